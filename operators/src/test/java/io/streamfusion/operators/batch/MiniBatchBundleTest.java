package io.streamfusion.operators.batch;

import org.apache.flink.table.data.binary.BinaryRowData;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The mirrored bundle keeps Flink's rows per key, its count trigger and its HashMap order. */
class MiniBatchBundleTest {

    @Test
    void keepsTheFirstOrTheLastRowOfEachKeyInHashMapOrder() throws Exception {
        for (MiniBatchBundle.Keep keep : MiniBatchBundle.Keep.values()) {
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
    void isFullAtItsCountOfRowsAndCountsAgainAfterFinishing() throws Exception {
        MiniBatchBundle bundle =
                new MiniBatchBundle(new MiniBatchBundle.Spec(MiniBatchBundle.Keep.LAST, 3));
        assertFalse(bundle.add(row(1), row(1)));
        assertFalse(bundle.add(row(2), row(1)));
        assertTrue(bundle.add(row(3), row(1)), "three rows, one key");
        assertEquals(List.of("1=3"), finish(bundle));
        assertFalse(bundle.add(row(4), row(2)));
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
