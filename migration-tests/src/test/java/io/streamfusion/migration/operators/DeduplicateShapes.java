package io.streamfusion.migration.operators;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.types.Row;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The keep-last deduplication shapes of the parity test: {@code ROW_NUMBER() OVER (PARTITION BY ...
 * ORDER BY proctime DESC) = 1} over append-only input, with and without UPDATE_BEFORE, with rows
 * that repeat their key's kept row exactly (which Flink suppresses without TTL and re-emits with
 * it), with TTL, batch sizes, the cache off, and a composite key.
 *
 * <p>Every shape reads rows {@code (k INT, k2 STRING, v BIGINT, p INT)}, drawn from a fixed seed;
 * the view adds the processing-time attribute.
 */
final class DeduplicateShapes {

    private static final int ROWS = 600;
    private static final int KEYS = 23;

    private DeduplicateShapes() {}

    /** Mini-batch shapes: bundles end only by count, at checkpoints and at the end of input. */
    static List<ParityHarness.Shape> miniBatch() {
        List<ParityHarness.Shape> shapes = new ArrayList<>();
        for (String size : List.of("7", "100")) {
            shapes.add(
                    keepLast(
                            "mini-batch of " + size + ", keep-last, repeated rows",
                            "k, k2, v",
                            false,
                            ParityHarness.miniBatchOf(size, Map.of()),
                            0));
            shapes.add(
                    shape(
                            "mini-batch of " + size + ", keep-first",
                            "k, k2, v, p",
                            false,
                            "PARTITION BY k",
                            "pt ASC",
                            ParityHarness.miniBatchOf(size, Map.of()),
                            0));
        }
        shapes.add(
                rowTime(
                        "mini-batch of 7, row time keep-last",
                        false,
                        ParityHarness.miniBatchOf("7", Map.of())));
        shapes.add(
                rowTime(
                        "mini-batch of 7, row time keep-last, ttl 1 h, batches of 3, no cache",
                        false,
                        ParityHarness.miniBatchOf(
                                "7", ParityHarness.TTL_AND_BATCHES_OF_THREE_WITHOUT_CACHE)));
        String compact = "table.exec.deduplicate.mini-batch.compact-changes-enabled";
        shapes.add(
                rowTime(
                        "mini-batch of 100, row time keep-last, compacted changes, ttl 1 h",
                        false,
                        ParityHarness.miniBatchOf(
                                "100", Map.of(compact, "true", "table.exec.state.ttl", "1 h"))));
        shapes.add(
                rowTime(
                        "mini-batch of 7, row time keep-last, compacted changes, upsert sink",
                        true,
                        ParityHarness.miniBatchOf("7", Map.of(compact, "true"))));
        shapes.add(
                keepLast(
                        "mini-batch of 1000, keep-last, upsert sink, ttl 1 h, batches of 3",
                        "k, k2, v, p",
                        true,
                        ParityHarness.miniBatchOf(
                                "1000",
                                Map.of(
                                        "table.exec.state.ttl",
                                        "1 h",
                                        "streamfusion.operators.batch-rows",
                                        "3")),
                        0));
        return shapes;
    }

    static List<ParityHarness.Shape> all() {
        List<ParityHarness.Shape> shapes = new ArrayList<>();
        shapes.add(keepLast("retract sink", "k, k2, v, p", false, Map.of(), 0));
        shapes.add(keepLast("upsert sink (no UPDATE_BEFORE)", "k, k2, v, p", true, Map.of(), 0));
        shapes.add(keepLast("repeated rows suppressed", "k, k2, v", false, Map.of(), 0));
        shapes.add(
                keepLast(
                        "repeated rows re-emitted with ttl 1 h",
                        "k, k2, v",
                        false,
                        Map.of("table.exec.state.ttl", "1 h"),
                        0));
        shapes.add(
                keepLast(
                        "repeated rows, batches of 1, no cache",
                        "k, k2, v",
                        false,
                        Map.of(
                                "streamfusion.operators.batch-rows",
                                "1",
                                "streamfusion.operators.cache-size",
                                "0"),
                        0));
        shapes.add(
                keepLast(
                        "repeated rows, upsert sink, batches of 7",
                        "k, k2, v",
                        true,
                        Map.of("streamfusion.operators.batch-rows", "7"),
                        0));
        shapes.add(
                keepLast(
                        "insert-update-after-sensitive off",
                        "k, k2, v",
                        false,
                        Map.of(
                                "table.exec.deduplicate.insert-update-after-sensitive-enabled",
                                "false"),
                        0));
        shapes.add(compositeKey("composite key (INT, STRING)"));
        shapes.add(
                shape("keep-first", "k, k2, v, p", false, "PARTITION BY k", "pt ASC", Map.of(), 0));
        shapes.add(
                shape(
                        "keep-first, upsert sink, ttl 1 h, batches of 5, no cache",
                        "k, k2, v, p",
                        true,
                        "PARTITION BY k",
                        "pt ASC",
                        Map.of(
                                "table.exec.state.ttl",
                                "1 h",
                                "streamfusion.operators.batch-rows",
                                "5",
                                "streamfusion.operators.cache-size",
                                "0"),
                        0));
        shapes.add(
                shape(
                        "keep-first, composite key",
                        "k, k2, v, p",
                        false,
                        "PARTITION BY k, k2",
                        "pt ASC",
                        Map.of(),
                        0,
                        1));
        shapes.add(rowTime("row time keep-last, retract sink", false, Map.of()));
        shapes.add(rowTime("row time keep-last, upsert sink", true, Map.of()));
        shapes.add(
                rowTime(
                        "row time keep-last, ttl 1 h, batches of 3, no cache",
                        false,
                        ParityHarness.TTL_AND_BATCHES_OF_THREE_WITHOUT_CACHE));
        shapes.add(
                rowTime(
                        "row time keep-last, insert-update-after-sensitive off, upsert sink",
                        true,
                        Map.of(
                                "table.exec.deduplicate.insert-update-after-sensitive-enabled",
                                "false")));
        return shapes;
    }

    /**
     * Keeps the row of each {@code k} with the latest row time {@code ts} (ties go to the later
     * row). The row times repeat, arrive out of order and straddle 1970 (negative milliseconds).
     * They are never NULL: Flink's watermark assigner fails a job on a NULL row time.
     */
    private static ParityHarness.Shape rowTime(
            String name, boolean upsertSink, Map<String, String> options) {
        return rowTime(name, "ts DESC", rowsWithRowTimes(), upsertSink, options);
    }

    /**
     * Row-time keep-first into an append sink, which Flink runs as {@code
     * RowTimeDeduplicateKeepFirstRowFunction}: each key's earliest row, emitted when the watermark
     * passes it. With a watermark one second behind, rows arrive late (and are dropped), keys are
     * emitted while the input runs (and their later rows ignored), and a key's waiting row is
     * replaced by an earlier one before its timer fires; with a watermark a day behind, no row is
     * late and every timer fires at the end of the input, so rescaling moves waiting timers.
     */
    static List<ParityHarness.Shape> rowTimeKeepFirst() {
        return List.of(
                rowTimeKeepFirst(
                        "row time keep-first, watermark 1 s behind", "1' SECOND", Map.of()),
                rowTimeKeepFirst(
                        "row time keep-first, watermark 1 s behind, ttl 1 h, batches of 3, no cache",
                        "1' SECOND",
                        ParityHarness.TTL_AND_BATCHES_OF_THREE_WITHOUT_CACHE));
    }

    /** The row-time keep-first shape whose timers all fire at the end of the input. */
    static ParityHarness.Shape rowTimeKeepFirstFiringAtTheEnd() {
        return rowTimeKeepFirst(
                "row time keep-first, watermark a day behind, batches of 7",
                "1' DAY",
                Map.of("streamfusion.operators.batch-rows", "7"));
    }

    private static ParityHarness.Shape rowTimeKeepFirst(
            String name, String watermarkDelay, Map<String, String> options) {
        Map<String, String> withWatermark = new HashMap<>(options);
        withWatermark.put(ParityHarness.WATERMARK, "ts - INTERVAL '" + watermarkDelay);
        return rowTime(name, "ts ASC", rowsWithRisingRowTimes(), false, withWatermark);
    }

    private static ParityHarness.Shape rowTime(
            String name,
            String order,
            List<Row> rows,
            boolean upsertSink,
            Map<String, String> options) {
        return new ParityHarness.Shape(
                name,
                new String[] {"k", "k2", "v", "p", ParityHarness.ROWTIME_SOURCE_COLUMN},
                new TypeInformation<?>[] {
                    Types.INT, Types.STRING, Types.LONG, Types.INT, Types.LOCAL_DATE_TIME
                },
                rows,
                "SELECT k, k2, v, p, ts FROM scripted",
                "k INT, k2 STRING, v BIGINT, p INT"
                        + (upsertSink ? ", PRIMARY KEY (k) NOT ENFORCED" : ""),
                upsertSink,
                "INSERT INTO sink SELECT k, k2, v, p FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY "
                        + order
                        + ") AS rn FROM src) WHERE rn = 1",
                options,
                0);
    }

    /**
     * Row times that rise by 40 ms a row, each up to 3 s early, from 7 s after the epoch: Flink's
     * watermark assigner starts at 0, so a row time before it would be late from the start.
     */
    private static List<Row> rowsWithRisingRowTimes() {
        Random random = new Random(13);
        LocalDateTime start = LocalDateTime.of(1970, 1, 1, 0, 0, 10);
        List<Row> rows = new ArrayList<>();
        for (Row row : rows()) {
            int p = (Integer) row.getField(3);
            long millis = p * 40L - random.nextInt(3000);
            rows.add(withRowTime(row, start.plusNanos(millis * 1_000_000L)));
        }
        return rows;
    }

    private static Row withRowTime(Row row, LocalDateTime rowTime) {
        return Row.of(row.getField(0), row.getField(1), row.getField(2), row.getField(3), rowTime);
    }

    private static List<Row> rowsWithRowTimes() {
        Random random = new Random(11);
        List<Row> rows = new ArrayList<>();
        for (Row row : rows()) {
            LocalDateTime rowTime =
                    LocalDateTime.of(1969, 12, 31, 23, 59, 50)
                            .plusSeconds(random.nextInt(20))
                            .plusNanos(random.nextInt(2) * 1_000_000L);
            rows.add(withRowTime(row, rowTime));
        }
        return rows;
    }

    /**
     * Keeps the last row of each {@code k}, projecting {@code columns} of the input: without the
     * unique {@code p}, rows repeat.
     */
    private static ParityHarness.Shape keepLast(
            String name,
            String columns,
            boolean upsertSink,
            Map<String, String> options,
            int... keyColumns) {
        return shape(name, columns, upsertSink, "PARTITION BY k", "pt DESC", options, keyColumns);
    }

    private static ParityHarness.Shape compositeKey(String name) {
        return shape(name, "k, k2, v, p", false, "PARTITION BY k, k2", "pt DESC", Map.of(), 0, 1);
    }

    private static ParityHarness.Shape shape(
            String name,
            String columns,
            boolean upsertSink,
            String partition,
            String order,
            Map<String, String> options,
            int... keyColumns) {
        boolean withPayload = columns.endsWith(", p");
        String sinkColumns =
                "k INT, k2 STRING, v BIGINT"
                        + (withPayload ? ", p INT" : "")
                        + (upsertSink ? ", PRIMARY KEY (k) NOT ENFORCED" : "");
        return new ParityHarness.Shape(
                name,
                new String[] {"k", "k2", "v", "p"},
                new TypeInformation<?>[] {Types.INT, Types.STRING, Types.LONG, Types.INT},
                rows(),
                "SELECT " + columns + ", PROCTIME() AS pt FROM scripted",
                sinkColumns,
                upsertSink,
                "INSERT INTO sink SELECT "
                        + columns
                        + " FROM (SELECT *, ROW_NUMBER() OVER ("
                        + partition
                        + " ORDER BY "
                        + order
                        + ") AS rn FROM src) WHERE rn = 1",
                options,
                keyColumns);
    }

    /**
     * Rows {@code (k, k2, v, p)}: key, a second key with NULLs, a value of few distinct values (so
     * a key often sees its kept row again), the row number.
     */
    private static List<Row> rows() {
        Random random = new Random(7);
        List<Row> rows = new ArrayList<>(ROWS);
        for (int i = 0; i < ROWS; i++) {
            int key = random.nextInt(KEYS);
            String second = random.nextInt(9) == 0 ? null : "s" + (key % 2) + "é";
            Long value = random.nextInt(7) == 0 ? null : (long) random.nextInt(3);
            rows.add(Row.of(key, second, value, i));
        }
        return rows;
    }
}
