package io.streamfusion.operators.batch;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The mirrored bundle keeps Flink's rows per key, its count trigger and its HashMap order. */
class MiniBatchBundleTest {

    @Test
    void keepsTheFirstOrTheLastRowOfEachKeyInHashMapOrder() throws Exception {
        for (MiniBatchBundle.Keep keep :
                List.of(MiniBatchBundle.Keep.FIRST, MiniBatchBundle.Keep.LAST)) {
            MiniBatchBundle bundle = new MiniBatchBundle(new MiniBatchBundle.Spec(keep, 1_000));
            // What Flink's AbstractMapBundleOperator builds from the same input.
            Map<BinaryRowData, Long> flink = new HashMap<>();
            for (long i = 0; i < 300; i++) {
                BinaryRowData key = row(i * 7919 % 37);
                bundle.add(row(i), key);
                if (keep == MiniBatchBundle.Keep.LAST || !flink.containsKey(key)) {
                    flink.put(key, i);
                }
            }
            List<String> expected = new ArrayList<>();
            flink.forEach((key, value) -> expected.add(key.getLong(0) + "=" + value));
            assertEquals(expected, finish(bundle), keep.toString());
            assertTrue(bundle.isEmpty());
        }
    }

    @Test
    void keepsEveryRowOfAKeyTogetherInArrivalOrder() throws Exception {
        MiniBatchBundle bundle =
                new MiniBatchBundle(new MiniBatchBundle.Spec(MiniBatchBundle.Keep.EVERY, 100));
        Map<BinaryRowData, List<Long>> flink = new HashMap<>();
        for (long[] keyAndValue : new long[][] {{1, 10}, {2, 20}, {1, 11}, {3, 30}, {1, 12}}) {
            BinaryRowData key = row(keyAndValue[0]);
            bundle.add(row(keyAndValue[1]), key);
            flink.computeIfAbsent(key, unused -> new ArrayList<>()).add(keyAndValue[1]);
        }
        List<String> expected = new ArrayList<>();
        flink.forEach((key, values) -> values.forEach(v -> expected.add(key.getLong(0) + "=" + v)));
        assertEquals(expected, finish(bundle));
    }

    @Test
    void rowTimeRulesKeepTheLatestWithTiesToTheLaterAndTheEarliestWithTiesToTheEarlier()
            throws Exception {
        // The row's only field is its row time; keys tell the rows apart by arrival.
        MiniBatchBundle latest =
                new MiniBatchBundle(
                        new MiniBatchBundle.Spec(MiniBatchBundle.Keep.LATEST_ROW_TIME, 100, 0));
        MiniBatchBundle earliest =
                new MiniBatchBundle(
                        new MiniBatchBundle.Spec(MiniBatchBundle.Keep.EARLIEST_ROW_TIME, 100, 0));
        BinaryRowData first = row(5);
        BinaryRowData tie = row(5);
        for (MiniBatchBundle bundle : List.of(latest, earliest)) {
            bundle.add(first, row(1));
            bundle.add(row(3), row(1));
            bundle.add(tie, row(1));
        }
        List<BinaryRowData> kept = new ArrayList<>();
        latest.finish((row, key) -> kept.add(row));
        earliest.finish((row, key) -> kept.add(row));
        assertTrue(kept.get(0) == tie, "the later of two latest row times");
        assertEquals(3, kept.get(1).getLong(0), "the earliest row time");
    }

    @Test
    void isFullAtItsCountOfRowsAndCountsAgainAfterFinishing() throws Exception {
        MiniBatchBundle bundle =
                new MiniBatchBundle(new MiniBatchBundle.Spec(MiniBatchBundle.Keep.LAST, 3));
        assertFalse(bundle.add(row(1), row(1)));
        assertFalse(bundle.add(row(2), row(1)));
        assertTrue(bundle.add(row(3), row(1)), "three rows, one key");
        assertEquals(List.of("1=3"), finish(bundle));
        assertFalse(bundle.add(row(4), row(2)));
    }

    @Test
    void mergesEachKeysRowsIntoOne() throws Exception {
        MiniBatchBundle.Merger sum =
                new MiniBatchBundle.Merger() {
                    @Override
                    public RowData merge(RowData merged, BinaryRowData row) {
                        long before = merged == null ? 0 : merged.getLong(0);
                        return GenericRowData.of(before + row.getLong(0));
                    }

                    @Override
                    public BinaryRowData toBinary(RowData merged) {
                        return row(merged.getLong(0));
                    }
                };
        MiniBatchBundle bundle =
                new MiniBatchBundle(
                        new MiniBatchBundle.Spec(MiniBatchBundle.Keep.MERGED, 100), sum);
        bundle.add(row(5), row(1));
        bundle.add(row(7), row(2));
        bundle.add(row(-2), row(1));
        List<String> finished = new ArrayList<>();
        bundle.finish((merged, key) -> finished.add(key.getLong(0) + "=" + merged.getLong(0)));
        // In the order of a HashMap that received the same keys, as Flink's bundle.
        Map<BinaryRowData, Long> flinks = new HashMap<>();
        flinks.merge(row(1), 5L, Long::sum);
        flinks.merge(row(2), 7L, Long::sum);
        flinks.merge(row(1), -2L, Long::sum);
        List<String> expected = new ArrayList<>();
        flinks.forEach((key, total) -> expected.add(key.getLong(0) + "=" + total));
        assertEquals(expected, finished);
        assertThrows(
                IllegalArgumentException.class,
                () ->
                        new MiniBatchBundle(
                                new MiniBatchBundle.Spec(MiniBatchBundle.Keep.MERGED, 1)));
    }

    private static List<String> finish(MiniBatchBundle bundle) throws Exception {
        List<String> rows = new ArrayList<>();
        bundle.finish((row, key) -> rows.add(key.getLong(0) + "=" + row.getLong(0)));
        return rows;
    }

    private static BinaryRowData row(long value) {
        return TestRows.longRow(value);
    }
}
