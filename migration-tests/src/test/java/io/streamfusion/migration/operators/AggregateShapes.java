package io.streamfusion.migration.operators;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.types.Row;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The {@code GROUP BY} shapes of the parity test: every function and number type the native kernels
 * compute, over insert-only input and over retractions (a second aggregation level, and a
 * deduplication's updates, which empty groups), with FILTERs, a composite key, TTL, small batches
 * and the cache off.
 *
 * <p>Every shape reads rows {@code (k INT, k2 STRING, v BIGINT, i INT, t TINYINT, s SMALLINT, d
 * DOUBLE, f FLOAT, p INT)} drawn from a fixed seed, with NULLs, values that overflow their type's
 * sum, NaN and -0.0; the view adds a processing-time attribute {@code pt}.
 */
final class AggregateShapes {

    private static final int ROWS = 600;
    private static final int KEYS = 23;

    /** The raw rows with their decimals cast, and a processing-time attribute. */
    static final String INPUT_VIEW =
            "SELECT k, k2, v, i, t, s, d, f, p, CAST(e AS DECIMAL(10, 2)) AS e,"
                    + " CAST(w AS DECIMAL(38, 0)) AS w, PROCTIME() AS pt FROM scripted";

    /**
     * DISTINCT calls: two sharing the view of one argument, with and without a FILTER, one whose
     * view only a FILTER passes rows to, a string, compact and wide decimals, NaN and -0.0, and
     * NULL arguments.
     */
    private static final String DISTINCT_CALLS =
            "COUNT(DISTINCT MOD(p, 4)), SUM(DISTINCT MOD(p, 4)), COUNT(DISTINCT k2),"
                    + " COUNT(DISTINCT t) FILTER (WHERE v > 0), SUM(DISTINCT t),"
                    + " COUNT(DISTINCT s) FILTER (WHERE i > 0), SUM(DISTINCT d), COUNT(DISTINCT e),"
                    + " COUNT(DISTINCT w), MAX(i)";

    private static final String DISTINCT_SINK =
            "dc BIGINT, ds INT, dk BIGINT, dt BIGINT, st TINYINT, dn BIGINT, dd DOUBLE, de BIGINT,"
                    + " dw BIGINT, mi INT";

    /**
     * A first level whose values the second level's MIN, MAX and DISTINCT see change, so they
     * retract: BIGINT, DOUBLE (with NaN and -0.0) and DECIMAL values.
     */
    private static final String CHANGING_VALUES =
            "(SELECT k, COUNT(*) AS c, SUM(v) AS s, MAX(d) AS md, SUM(e) AS se FROM src GROUP BY k)";

    private static final String EXTREMES_OF_CHANGING_VALUES =
            "SELECT c, MIN(s), MAX(s), MIN(md), MAX(md), MAX(se), COUNT(DISTINCT s) FROM "
                    + CHANGING_VALUES
                    + " GROUP BY c";

    private static final String EXTREMES_SINK =
            "c BIGINT, ns BIGINT, xs BIGINT, nd DOUBLE, xd DOUBLE, xe DECIMAL(38, 2), ds BIGINT";

    private AggregateShapes() {}

    static List<ParityHarness.Shape> all() {
        String bigints = "COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v)";
        String bigintSink = "c BIGINT, cv BIGINT, sv BIGINT, mn BIGINT, mx BIGINT, av BIGINT";
        List<ParityHarness.Shape> shapes = new ArrayList<>();
        shapes.add(byK("BIGINT count, sum, min, max, avg", bigints, bigintSink, false, Map.of()));
        shapes.add(byK("upsert sink (no UPDATE_BEFORE)", bigints, bigintSink, true, Map.of()));
        shapes.add(
                byK(
                        "ttl 1 h re-emits unchanged values, batches of 3, no cache",
                        bigints,
                        bigintSink,
                        false,
                        ParityHarness.TTL_AND_BATCHES_OF_THREE_WITHOUT_CACHE));
        shapes.add(
                byK(
                        "narrow integers wrap and truncate",
                        "SUM(t), SUM(s), SUM(i), AVG(t), AVG(s), AVG(i), MIN(t), MAX(s)",
                        "st TINYINT, ss SMALLINT, si INT, vt TINYINT, vs SMALLINT, vi INT,"
                                + " mt TINYINT, ms SMALLINT",
                        false,
                        Map.of()));
        shapes.add(
                byK(
                        "floating point with NaN and -0.0",
                        "SUM(d), SUM(f), AVG(d), AVG(f), MIN(d), MAX(d), MIN(f), MAX(f)",
                        "sd DOUBLE, sf FLOAT, ad DOUBLE, af FLOAT, nd DOUBLE, xd DOUBLE, nf FLOAT,"
                                + " xf FLOAT",
                        false,
                        Map.of()));
        shapes.add(
                byK(
                        "DECIMAL sums past 38 digits are NULL, compact and wide MIN, MAX and AVG",
                        "SUM(e), MIN(e), MAX(e), SUM(w), MIN(w), MAX(w), COUNT(w), AVG(e), AVG(w),"
                                + " AVG(CAST(e AS DECIMAL(20, 8)))",
                        "se DECIMAL(38, 2), ne DECIMAL(10, 2), xe DECIMAL(10, 2), sw DECIMAL(38, 0),"
                                + " nw DECIMAL(38, 0), xw DECIMAL(38, 0), cw BIGINT, ae DECIMAL(38, 6),"
                                + " aw DECIMAL(38, 6), a8 DECIMAL(38, 8)",
                        false,
                        Map.of()));
        shapes.add(
                byK(
                        "FILTER clauses",
                        "COUNT(*) FILTER (WHERE v > 0), SUM(v) FILTER (WHERE i < 0),"
                                + " MAX(i) FILTER (WHERE v IS NULL), COUNT(d)",
                        "c BIGINT, sv BIGINT, mi INT, cd BIGINT",
                        false,
                        Map.of()));
        shapes.add(
                byK(
                        "MIN and MAX of strings, short and long, non-ASCII and NULL",
                        "MIN(k2), MAX(k2), MAX(CAST(v AS STRING)), MIN(CAST(d AS STRING))",
                        "nk STRING, xk STRING, xv STRING, nd STRING",
                        false,
                        Map.of()));
        shapes.add(
                byK(
                        "MIN and MAX of timestamps, dates and times",
                        "MIN(TO_TIMESTAMP_LTZ(i, 3)), MAX(CAST(TO_TIMESTAMP_LTZ(i, 3) AS TIMESTAMP(3))),"
                                + " MIN(CAST(TO_TIMESTAMP_LTZ(CAST(i AS BIGINT) * 1000, 3) AS DATE)),"
                                + " MAX(CAST(TO_TIMESTAMP_LTZ(i, 3) AS TIME))",
                        "nt TIMESTAMP_LTZ(3), xt TIMESTAMP(3), nd DATE, xm TIME",
                        false,
                        Map.of()));
        shapes.add(
                byK(
                        "DISTINCT counts and sums: shared views, strings, decimals, NULLs, FILTERs",
                        DISTINCT_CALLS,
                        DISTINCT_SINK,
                        false,
                        Map.of()));
        shapes.add(
                byK(
                        "DISTINCT with ttl 1 h, batches of 3, no cache",
                        DISTINCT_CALLS,
                        DISTINCT_SINK,
                        false,
                        ParityHarness.TTL_AND_BATCHES_OF_THREE_WITHOUT_CACHE));
        shapes.add(
                shape(
                        "composite key (INT, STRING)",
                        "SELECT k, k2, SUM(v), COUNT(*) FROM src GROUP BY k, k2",
                        "k INT, k2 STRING, sv BIGINT, c BIGINT",
                        false,
                        Map.of(),
                        0,
                        1));
        return shapes;
    }

    /**
     * Shapes with two stateful levels, whose second level aggregates retractions: a GROUP BY over a
     * GROUP BY, and over a deduplication's updates, which empty groups.
     */
    static List<ParityHarness.Shape> twoLevels() {
        List<ParityHarness.Shape> shapes = new ArrayList<>();
        String counts = "(SELECT k, COUNT(*) AS c, SUM(v) AS s FROM src GROUP BY k)";
        shapes.add(
                shape(
                        "two levels: SUM, AVG and COUNT of retractions",
                        "SELECT c, COUNT(*), SUM(s), AVG(s), COUNT(s) FROM "
                                + counts
                                + " GROUP BY c",
                        "c BIGINT, n BIGINT, ss BIGINT, sa BIGINT, sc BIGINT",
                        false,
                        Map.of(),
                        0));
        shapes.add(
                shape(
                        "two levels: DECIMAL sums and averages of retractions",
                        "SELECT c, SUM(se), SUM(sw), AVG(se) FROM (SELECT k, COUNT(*) AS c, SUM(e)"
                                + " AS se, SUM(w) AS sw FROM src GROUP BY k) GROUP BY c",
                        "c BIGINT, se DECIMAL(38, 2), sw DECIMAL(38, 0), ae DECIMAL(38, 6)",
                        false,
                        Map.of(),
                        0));
        shapes.add(
                shape(
                        "two levels: the planner's row count, batches of 7",
                        "SELECT c, SUM(s), AVG(s) FROM " + counts + " GROUP BY c",
                        "c BIGINT, ss BIGINT, sa BIGINT",
                        false,
                        Map.of("streamfusion.operators.batch-rows", "7"),
                        0));
        shapes.add(
                shape(
                        "two levels: MIN, MAX and DISTINCT of retractions",
                        EXTREMES_OF_CHANGING_VALUES,
                        EXTREMES_SINK,
                        false,
                        Map.of(),
                        0));
        shapes.add(
                shape(
                        "two levels: MIN and MAX of strings over retractions",
                        "SELECT c, MIN(ms), MAX(ms) FROM (SELECT k, COUNT(*) AS c,"
                                + " MAX(CAST(v AS STRING)) AS ms FROM src GROUP BY k) GROUP BY c",
                        "c BIGINT, ns STRING, xs STRING",
                        false,
                        Map.of(),
                        0));
        shapes.add(
                shape(
                        "two levels: MIN and MAX of timestamps over retractions",
                        "SELECT c, MIN(mt), MAX(mt) FROM (SELECT k, COUNT(*) AS c,"
                                + " MAX(TO_TIMESTAMP_LTZ(i, 3)) AS mt FROM src GROUP BY k) GROUP BY c",
                        "c BIGINT, nt TIMESTAMP_LTZ(3), xt TIMESTAMP_LTZ(3)",
                        false,
                        Map.of(),
                        0));
        shapes.add(
                shape(
                        "two levels: MIN and MAX of retractions, ttl 1 h, batches of 3, no cache",
                        EXTREMES_OF_CHANGING_VALUES,
                        EXTREMES_SINK,
                        false,
                        ParityHarness.TTL_AND_BATCHES_OF_THREE_WITHOUT_CACHE,
                        0));
        String lastPerKey =
                "(SELECT k, i, v, d FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt"
                        + " DESC) AS rn FROM src) WHERE rn = 1)";
        shapes.add(
                shape(
                        "updates of a deduplication of 3 keys empty and refill 4 groups",
                        "SELECT MOD(i, 4), MAX(v), MIN(d), COUNT(DISTINCT k), COUNT(*) FROM "
                                + lastPerKey
                                + " WHERE k < 3 GROUP BY MOD(i, 4)",
                        "g INT, xv BIGINT, nd DOUBLE, dk BIGINT, c BIGINT",
                        false,
                        Map.of(),
                        0));
        shapes.add(
                shape(
                        "updates of a deduplication: MIN, MAX and DISTINCT empty groups",
                        "SELECT i, MAX(v), MIN(d), COUNT(DISTINCT k), COUNT(*) FROM "
                                + lastPerKey
                                + " GROUP BY i",
                        "i INT, xv BIGINT, nd DOUBLE, dk BIGINT, c BIGINT",
                        false,
                        Map.of(),
                        0));
        shapes.add(
                shape(
                        "updates of a deduplication empty groups",
                        "SELECT i, COUNT(*), SUM(v), AVG(d), COUNT(v) FROM "
                                + lastPerKey
                                + " GROUP BY i",
                        "i INT, c BIGINT, sv BIGINT, ad DOUBLE, cv BIGINT",
                        false,
                        Map.of(),
                        0));
        return shapes;
    }

    /**
     * Mini-batch shapes, which the planner runs in two phases (a local aggregation per bundle, then
     * the global half, which the layer replaces): bundles end only by count, at checkpoints and at
     * the end of input.
     */
    static List<ParityHarness.Shape> miniBatch() {
        String bigints = "COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v)";
        String bigintSink = "c BIGINT, cv BIGINT, sv BIGINT, mn BIGINT, mx BIGINT, av BIGINT";
        List<ParityHarness.Shape> shapes = new ArrayList<>();
        shapes.add(
                byK(
                        "mini-batch of 7, BIGINT",
                        bigints,
                        bigintSink,
                        false,
                        ParityHarness.miniBatchOf("7", Map.of())));
        shapes.add(
                byK(
                        "mini-batch of 100, floating point and narrow integers, upsert sink",
                        "SUM(d), AVG(f), MAX(d), MIN(f), SUM(t), AVG(s), COUNT(i) FILTER (WHERE v > 0)",
                        "sd DOUBLE, af FLOAT, xd DOUBLE, nf FLOAT, st TINYINT, vs SMALLINT, ci BIGINT",
                        true,
                        ParityHarness.miniBatchOf("100", Map.of())));
        shapes.add(
                byK(
                        "mini-batch of 1000, ttl 1 h, batches of 3, no cache",
                        bigints,
                        bigintSink,
                        false,
                        ParityHarness.miniBatchOf(
                                "1000", ParityHarness.TTL_AND_BATCHES_OF_THREE_WITHOUT_CACHE)));
        shapes.add(
                byK(
                        "mini-batch of 7, DECIMAL",
                        "SUM(e), MAX(e), SUM(w), MIN(w), AVG(e), AVG(w)",
                        "se DECIMAL(38, 2), xe DECIMAL(10, 2), sw DECIMAL(38, 0), nw DECIMAL(38, 0),"
                                + " ae DECIMAL(38, 6), aw DECIMAL(38, 6)",
                        false,
                        ParityHarness.miniBatchOf("7", Map.of())));
        String counts = "(SELECT k, COUNT(*) AS c, SUM(v) AS s FROM src GROUP BY k)";
        shapes.add(
                shape(
                        "mini-batch of 20, two levels: merged retractions",
                        "SELECT c, COUNT(*), SUM(s), AVG(s) FROM " + counts + " GROUP BY c",
                        "c BIGINT, n BIGINT, ss BIGINT, sa BIGINT",
                        false,
                        ParityHarness.miniBatchOf("20", Map.of()),
                        0));
        return shapes;
    }

    /**
     * The {@link #miniBatch} shapes with the planner's aggregation in one phase ({@code
     * MiniBatchGroupAggFunction}: every row of a key in a bundle aggregated as one run).
     */
    static List<ParityHarness.Shape> onePhase() {
        List<ParityHarness.Shape> shapes = new ArrayList<>();
        for (ParityHarness.Shape shape : miniBatch()) {
            Map<String, String> options = new java.util.HashMap<>(shape.options());
            options.put("table.optimizer.agg-phase-strategy", "ONE_PHASE");
            shapes.add(
                    new ParityHarness.Shape(
                            "one phase, " + shape.name(),
                            shape.columns(),
                            shape.types(),
                            shape.rows(),
                            shape.inputView(),
                            shape.sinkColumns(),
                            shape.upsertSink(),
                            shape.insert(),
                            options,
                            shape.keyColumns()));
        }
        // The global half of a two-phase aggregation merges its local half's MapViews, which the
        // layer does not: MIN and MAX over retractions and DISTINCT run one-phase only.
        Map<String, String> onePhase =
                ParityHarness.miniBatchOf(
                        "7", Map.of("table.optimizer.agg-phase-strategy", "ONE_PHASE"));
        shapes.add(
                byK(
                        "one phase, mini-batch of 7, DISTINCT",
                        DISTINCT_CALLS,
                        DISTINCT_SINK,
                        false,
                        onePhase));
        shapes.add(
                shape(
                        "one phase, mini-batch of 7, two levels: MIN, MAX and DISTINCT of"
                                + " retractions",
                        EXTREMES_OF_CHANGING_VALUES,
                        EXTREMES_SINK,
                        false,
                        onePhase,
                        0));
        return shapes;
    }

    /** {@code SELECT k, <aggregates> FROM src GROUP BY k}. */
    private static ParityHarness.Shape byK(
            String name,
            String aggregates,
            String valueColumns,
            boolean upsertSink,
            Map<String, String> options) {
        return shape(
                name,
                "SELECT k, " + aggregates + " FROM src GROUP BY k",
                "k INT, " + valueColumns + (upsertSink ? ", PRIMARY KEY (k) NOT ENFORCED" : ""),
                upsertSink,
                options,
                0);
    }

    private static ParityHarness.Shape shape(
            String name,
            String query,
            String sinkColumns,
            boolean upsertSink,
            Map<String, String> options,
            int... keyColumns) {
        return new ParityHarness.Shape(
                name,
                new String[] {"k", "k2", "v", "i", "t", "s", "d", "f", "p", "e", "w"},
                new TypeInformation<?>[] {
                    Types.INT,
                    Types.STRING,
                    Types.LONG,
                    Types.INT,
                    Types.BYTE,
                    Types.SHORT,
                    Types.DOUBLE,
                    Types.FLOAT,
                    Types.INT,
                    Types.STRING,
                    Types.STRING
                },
                rows(),
                INPUT_VIEW,
                sinkColumns,
                upsertSink,
                "INSERT INTO sink " + query,
                options,
                keyColumns);
    }

    private static List<Row> rows() {
        Random random = new Random(13);
        List<Row> rows = new ArrayList<>(ROWS);
        for (int p = 0; p < ROWS; p++) {
            int key = random.nextInt(KEYS);
            String second = random.nextInt(9) == 0 ? null : "s" + (key % 3) + "é";
            rows.add(
                    Row.of(
                            key,
                            second,
                            orNull(random, bigint(random)),
                            orNull(random, integer(random)),
                            orNull(random, (byte) random.nextInt(256)),
                            orNull(random, (short) (random.nextInt(65536) - 32768)),
                            orNull(random, floating(random)),
                            orNull(random, (float) floating(random)),
                            p,
                            orNull(random, (random.nextInt(200001) - 100000) / 100.0 + ""),
                            orNull(random, wide(random))));
        }
        return rows;
    }

    private static <T> T orNull(Random random, T value) {
        return random.nextInt(8) == 0 ? null : value;
    }

    /** A DECIMAL(38, 0) value: mostly small, sometimes 5 * 10^37, so that two of them overflow. */
    private static String wide(Random random) {
        int pick = random.nextInt(10);
        return pick == 0
                ? "5" + "0".repeat(37)
                : pick == 1 ? "-5" + "0".repeat(37) : "" + (random.nextInt(9) - 4);
    }

    private static long bigint(Random random) {
        int pick = random.nextInt(20);
        return pick == 0 ? Long.MAX_VALUE : pick == 1 ? Long.MIN_VALUE + 1 : random.nextInt(7) - 3;
    }

    private static int integer(Random random) {
        return random.nextInt(20) == 0 ? Integer.MAX_VALUE : random.nextInt(11) - 5;
    }

    private static double floating(Random random) {
        switch (random.nextInt(12)) {
            case 0:
                return Double.NaN;
            case 1:
                return -0.0;
            case 2:
                return 0.0;
            case 3:
                return 16_777_217.0;
            default:
                return (random.nextInt(2001) - 1000) / 8.0;
        }
    }
}
