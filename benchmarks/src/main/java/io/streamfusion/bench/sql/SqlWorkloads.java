package io.streamfusion.bench.sql;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The end-to-end SQL workloads of {@code bin/bench}: a keyed aggregation, Top-1 per key, and an
 * upsert sink whose primary key differs from the upstream key (so the planner adds Flink's sink
 * upsert materializer). The quick mode runs the cases the targets in docs/benchmarks.md name; the
 * full mode runs the whole grid.
 */
public final class SqlWorkloads {

    public static final String AGGREGATE = "sql-aggregate";
    public static final String TOP1 = "sql-top1";
    public static final String UPSERT = "sql-upsert";
    public static final String DEDUP = "sql-dedup";
    public static final String CONSTRAINTS = "sql-constraints";

    /**
     * Upstream groups per sink key in the upsert workload: the candidates the materializer keeps.
     */
    static final int CANDIDATES_PER_SINK_KEY = 4;

    static final long UPSERT_ROWS = 1_000_000L;

    /** Lets the layer replace Flink's sink constraint enforcer, which it does not by default. */
    private static final String SINK_CONSTRAINTS =
            "streamfusion.operators.sink-constraints.enabled";

    private static final String STRATEGY_OPTION =
            "table.exec.sink.upsert-materialize-strategy.type";

    private SqlWorkloads() {}

    /**
     * The workloads of one suite ({@link #AGGREGATE}, {@link #TOP1}, {@link #UPSERT}, {@link
     * #DEDUP}, {@link #CONSTRAINTS}).
     */
    /** Bundles of 5,000 rows or 1 s, the mini-batch cases of every suite. */
    private static final Map<String, String> MINI_BATCH =
            Map.of(
                    "table.exec.mini-batch.enabled", "true",
                    "table.exec.mini-batch.allow-latency", "1 s",
                    "table.exec.mini-batch.size", "5000");

    public static List<SqlWorkload> of(String suite, boolean full) {
        switch (suite) {
            case AGGREGATE:
                return aggregate(full);
            case TOP1:
                return top1(full);
            case UPSERT:
                return upsert(full);
            case DEDUP:
                return dedup(full);
            case CONSTRAINTS:
                return constraints();
            default:
                throw new IllegalArgumentException(
                        "Unknown SQL suite '"
                                + suite
                                + "'; use "
                                + AGGREGATE
                                + ", "
                                + TOP1
                                + ", "
                                + UPSERT
                                + ", "
                                + DEDUP
                                + " or "
                                + CONSTRAINTS);
        }
    }

    /** The distinct upstream groups each key of the DISTINCT aggregate case sees. */
    private static final long DISTINCT_VALUES_PER_KEY = 16;

    private static List<SqlWorkload> aggregate(boolean full) {
        List<SqlWorkload> cases = new ArrayList<>();
        for (long keys : full ? new long[] {64, 65_536, 1_048_576} : new long[] {65_536}) {
            cases.add(
                    new SqlWorkload(
                            AGGREGATE,
                            "count and sum per key keys=" + keys,
                            keys,
                            keys,
                            8,
                            true,
                            0,
                            false,
                            "CREATE TABLE sink (k BIGINT, c BIGINT, s BIGINT) WITH ('connector' = 'blackhole')",
                            "INSERT INTO sink SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k",
                            Map.of()));
            cases.add(
                    new SqlWorkload(
                            AGGREGATE,
                            "count and sum per key keys=" + keys + " mini-batch=5000",
                            keys,
                            keys,
                            8,
                            true,
                            0,
                            false,
                            "CREATE TABLE sink (k BIGINT, c BIGINT, s BIGINT) WITH ('connector' = 'blackhole')",
                            "INSERT INTO sink SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k",
                            MINI_BATCH));
            cases.add(
                    new SqlWorkload(
                            AGGREGATE,
                            "count and sum per key keys=" + keys + " mini-batch=5000 one-phase",
                            keys,
                            keys,
                            8,
                            true,
                            0,
                            false,
                            "CREATE TABLE sink (k BIGINT, c BIGINT, s BIGINT) WITH ('connector' = 'blackhole')",
                            "INSERT INTO sink SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k",
                            withOption(
                                    MINI_BATCH,
                                    "table.optimizer.agg-phase-strategy",
                                    "ONE_PHASE")));
            // 16 upstream groups per key, seen again and again: each row looks its value up in
            // the key's distinct view, and only a key's first 16 rows change it.
            cases.add(
                    new SqlWorkload(
                            AGGREGATE,
                            "distinct count per key keys=" + keys + " values per key=16",
                            keys,
                            keys * DISTINCT_VALUES_PER_KEY,
                            8,
                            true,
                            0,
                            false,
                            "CREATE TABLE sink (k BIGINT, d BIGINT, c BIGINT) WITH ('connector' = 'blackhole')",
                            "INSERT INTO sink SELECT k, COUNT(DISTINCT g), COUNT(*) FROM src GROUP BY k",
                            Map.of()));
        }
        // Two aggregations joined, behind a keyed exchange that spreads each source batch over
        // the parallel instances: StreamFusion gathers its batches after the exchange; with
        // batch-rows=26 they are as small as a public accelerator's were without coalescing.
        for (int parallelism : new int[] {2, 4}) {
            for (String batchRows : new String[] {"4096", "26"}) {
                cases.add(
                        new SqlWorkload(
                                AGGREGATE,
                                String.format(
                                        "two aggregates and a join parallelism=%d batch-rows=%s"
                                                + " complete rows=2000000",
                                        parallelism, batchRows),
                                65_536,
                                65_536,
                                8,
                                true,
                                2_000_000L,
                                false,
                                "CREATE TABLE sink (k BIGINT, c BIGINT, s BIGINT) WITH ('connector' = 'blackhole')",
                                "INSERT INTO sink SELECT a.k, a.c, b.s FROM (SELECT k, COUNT(*) AS c"
                                        + " FROM src GROUP BY k) a JOIN (SELECT k, SUM(v) AS s FROM src"
                                        + " GROUP BY k) b ON a.k = b.k",
                                Map.of(
                                        "table.exec.resource.default-parallelism",
                                        String.valueOf(parallelism),
                                        "streamfusion.operators.batch-rows",
                                        batchRows)));
            }
        }
        return cases;
    }

    /** Keys of the unique-key Top-1 case: every row is a new key (and so a new winner). */
    static final long UNIQUE_KEYS = 2_000_000L;

    private static List<SqlWorkload> top1(boolean full) {
        List<SqlWorkload> cases = new ArrayList<>();
        // Quick: the four targeted cases (docs/benchmarks.md) and unique keys. Full: every
        // combination.
        long[][] quick = {{65_536, 256, 0}, {65_536, 8, 0}, {65_536, 8, 1}, {64, 8, 0}};
        List<long[]> grid = new ArrayList<>();
        if (full) {
            for (long keys : new long[] {64, 65_536}) {
                for (long chars : new long[] {8, 256}) {
                    for (long improving : new long[] {0, 1}) {
                        grid.add(new long[] {keys, chars, improving});
                    }
                }
            }
        } else {
            grid.addAll(List.of(quick));
        }
        long completeRows = full ? 8_000_000L : 4_000_000L;
        for (long[] c : grid) {
            boolean improving = c[2] == 1;
            String name =
                    String.format(
                            "row_number = 1 keys=%d payload=%d arrivals=%s",
                            c[0], c[1], improving ? "improving" : "rejected");
            // Measured both ways: sustained windows after a warm-up, and complete jobs from
            // submission.
            cases.add(top1Case(name + " sustained", c[0], c[0], (int) c[1], improving, 0));
            cases.add(
                    top1Case(
                            name + " complete rows=" + completeRows,
                            c[0],
                            c[0],
                            (int) c[1],
                            improving,
                            completeRows));
        }
        cases.add(
                top1Case(
                        "row_number = 1 unique keys payload=8 complete rows=" + UNIQUE_KEYS,
                        UNIQUE_KEYS,
                        UNIQUE_KEYS,
                        8,
                        true,
                        UNIQUE_KEYS));
        return cases;
    }

    private static SqlWorkload top1Case(
            String name, long keys, long groups, int chars, boolean improving, long rows) {
        return new SqlWorkload(
                TOP1,
                name,
                keys,
                groups,
                chars,
                improving,
                rows,
                true,
                "CREATE TABLE sink (k BIGINT, v BIGINT, payload STRING) WITH ('connector' = 'blackhole')",
                "INSERT INTO sink SELECT k, v, payload FROM ("
                        + "SELECT k, v, payload, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM src)"
                        + " WHERE rn = 1",
                Map.of());
    }

    /**
     * Deduplication on processing time. Keep-last: every row replaces its key's kept row (its
     * payload differs), so each emits UPDATE_BEFORE and UPDATE_AFTER. Keep-first: every row after a
     * key's first is dropped.
     */
    private static List<SqlWorkload> dedup(boolean full) {
        List<SqlWorkload> cases = new ArrayList<>();
        for (long keys : full ? new long[] {64, 65_536, 1_048_576} : new long[] {65_536}) {
            String name = String.format("keep-last keys=%d payload=8", keys);
            cases.add(dedupCase(name + " sustained", keys, "DESC", 0));
            cases.add(dedupCase(name + " complete rows=4000000", keys, "DESC", 4_000_000L));
            cases.add(
                    dedupCase(
                            String.format("keep-first keys=%d payload=8 sustained", keys),
                            keys,
                            "ASC",
                            0));
            cases.add(
                    dedupCase(
                            String.format(
                                    "keep-last keys=%d payload=8 mini-batch=5000 sustained", keys),
                            keys,
                            "DESC",
                            0,
                            MINI_BATCH));
            cases.add(rowTimeKeepFirstCase(keys));
        }
        return cases;
    }

    /**
     * Keep-first on row time into an append sink, which Flink runs with an event-time timer per
     * key: row {@code i} has row time {@code i} ms, so each key's first row waits a second of row
     * time for the watermark, is emitted, and every later row of the key is dropped by its emitted
     * flag.
     */
    private static SqlWorkload rowTimeKeepFirstCase(long keys) {
        return new SqlWorkload(
                DEDUP,
                String.format("row-time keep-first keys=%d payload=8 sustained", keys),
                keys,
                keys,
                8,
                true,
                0,
                true,
                "CREATE TABLE sink (k BIGINT, v BIGINT, payload STRING) WITH ('connector' = 'blackhole')",
                "INSERT INTO sink SELECT k, v, payload FROM ("
                        + "SELECT k, v, payload, ROW_NUMBER() OVER (PARTITION BY k ORDER BY rt ASC)"
                        + " AS rn FROM src) WHERE rn = 1",
                Map.of(),
                "STRING",
                true);
    }

    private static SqlWorkload dedupCase(String name, long keys, String order, long rows) {
        return dedupCase(name, keys, order, rows, Map.of());
    }

    private static SqlWorkload dedupCase(
            String name, long keys, String order, long rows, Map<String, String> options) {
        return new SqlWorkload(
                DEDUP,
                name,
                keys,
                keys,
                8,
                true,
                rows,
                true,
                "CREATE TABLE sink (k BIGINT, v BIGINT, payload STRING) WITH ('connector' = 'blackhole')",
                "INSERT INTO sink SELECT k, v, payload FROM ("
                        + "SELECT k, v, payload, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt "
                        + order
                        + ") AS rn"
                        + " FROM (SELECT *, PROCTIME() AS pt FROM src)) WHERE rn = 1",
                options);
    }

    private static List<SqlWorkload> upsert(boolean full) {
        List<SqlWorkload> cases = new ArrayList<>();
        // The columnar materializer replaces LEGACY and VALUE; MAP (and ADAPTIVE) keep Flink's
        // operator in every setup, as the best stock structure to beat.
        String[] strategies =
                full
                        ? new String[] {"LEGACY", "VALUE", "MAP", "ADAPTIVE"}
                        : new String[] {"LEGACY", "VALUE", "MAP"};
        for (long keys : new long[] {1_000, 100_000}) {
            for (String strategy : strategies) {
                // The aggregation's upsert key is g; the sink's primary key is k, and
                // CANDIDATES_PER_SINK_KEY groups share one k, so the sink materializes per k.
                cases.add(
                        upsertCase(
                                String.format(
                                        "materializer=%s keys=%d rows=%d",
                                        strategy, keys, UPSERT_ROWS),
                                keys,
                                strategy,
                                "k BIGINT, g BIGINT, s BIGINT",
                                "MAX(k), g, SUM(v)"));
            }
        }
        // Nested types in the sink row: a timestamp, an array with a null element, a row.
        cases.add(
                upsertCase(
                        String.format(
                                "materializer=LEGACY nested keys=100000 rows=%d", UPSERT_ROWS),
                        100_000,
                        "LEGACY",
                        "k BIGINT, g BIGINT, s BIGINT, t TIMESTAMP(3), a ARRAY<BIGINT>,"
                                + " r ROW<x BIGINT, y STRING>",
                        "MAX(k), g, SUM(v), TO_TIMESTAMP_LTZ(SUM(v), 3), ARRAY[SUM(v), CAST(NULL AS"
                                + " BIGINT), g], ROW(g, MAX(payload))"));
        return cases;
    }

    /**
     * A sink's constraint enforcement, the one operator between the source's projection and the
     * sink: NOT NULL columns fed one NULL in ten (dropped), a {@code CHAR(5)} column fed the
     * 8-character payload its source declares as {@code CHAR(5)}, so every row is trimmed, and
     * both. With NOT NULL checks alone the layer keeps Flink's operator.
     */
    private static List<SqlWorkload> constraints() {
        List<SqlWorkload> cases = new ArrayList<>();
        for (long rows : new long[] {100_000, 1_000_000}) {
            cases.add(
                    new SqlWorkload(
                            CONSTRAINTS,
                            "not-null=DROP rows=" + rows,
                            65_536,
                            65_536,
                            8,
                            true,
                            rows,
                            false,
                            "CREATE TABLE sink (k BIGINT NOT NULL, v BIGINT NOT NULL, payload STRING NOT"
                                    + " NULL) WITH ('connector' = 'blackhole')",
                            "INSERT INTO sink SELECT k, CASE WHEN MOD(v, 10) = 0 THEN CAST(NULL AS"
                                    + " BIGINT) ELSE v END, payload FROM src",
                            Map.of(
                                    SINK_CONSTRAINTS,
                                    "true",
                                    "table.exec.sink.not-null-enforcer",
                                    "DROP")));
            cases.add(
                    new SqlWorkload(
                            CONSTRAINTS,
                            "not-null=DROP type-length=TRIM_PAD rows=" + rows,
                            65_536,
                            65_536,
                            8,
                            true,
                            rows,
                            false,
                            "CREATE TABLE sink (k BIGINT NOT NULL, v BIGINT NOT NULL, c CHAR(5)) WITH"
                                    + " ('connector' = 'blackhole')",
                            "INSERT INTO sink SELECT k, CASE WHEN MOD(v, 10) = 0 THEN CAST(NULL AS"
                                    + " BIGINT) ELSE v END, payload FROM src",
                            Map.of(
                                    SINK_CONSTRAINTS,
                                    "true",
                                    "table.exec.sink.not-null-enforcer",
                                    "DROP",
                                    "table.exec.sink.type-length-enforcer",
                                    "TRIM_PAD"),
                            "CHAR(5)",
                            false));
            cases.add(
                    new SqlWorkload(
                            CONSTRAINTS,
                            "type-length=TRIM_PAD rows=" + rows,
                            65_536,
                            65_536,
                            8,
                            true,
                            rows,
                            false,
                            "CREATE TABLE sink (k BIGINT, v BIGINT, c CHAR(5)) WITH ('connector' ="
                                    + " 'blackhole')",
                            "INSERT INTO sink SELECT k, v, payload FROM src",
                            Map.of(
                                    SINK_CONSTRAINTS,
                                    "true",
                                    "table.exec.sink.type-length-enforcer",
                                    "TRIM_PAD"),
                            "CHAR(5)",
                            false));
        }
        return cases;
    }

    private static SqlWorkload upsertCase(
            String name, long keys, String strategy, String sinkColumns, String select) {
        return new SqlWorkload(
                UPSERT,
                name,
                keys,
                keys * CANDIDATES_PER_SINK_KEY,
                8,
                true,
                UPSERT_ROWS,
                false,
                "CREATE TABLE sink ("
                        + sinkColumns
                        + ", PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole')",
                "INSERT INTO sink SELECT " + select + " FROM src GROUP BY g",
                Map.of(STRATEGY_OPTION, strategy, "table.exec.sink.upsert-materialize", "FORCE"));
    }

    private static Map<String, String> withOption(
            Map<String, String> options, String key, String value) {
        Map<String, String> all = new HashMap<>(options);
        all.put(key, value);
        return Map.copyOf(all);
    }
}
