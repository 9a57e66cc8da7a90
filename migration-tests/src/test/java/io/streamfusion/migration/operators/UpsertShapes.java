package io.streamfusion.migration.operators;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.types.Row;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The sink upsert materializer shapes of the parity test. Each feeds a sink whose primary key
 * ({@code k}) differs from its input's upsert key, with materialization forced: counts or maxima
 * grouped by {@code k} and a second column, so every sink key has several live candidates that are
 * retracted as their groups change, oldest, middle and latest alike. Projecting the second column
 * away leaves no upsert key (whole rows are matched, and equal counts of two groups are
 * duplicates); keeping it makes it the upsert key. The values include NULLs, non-ASCII strings, and
 * NaN and -0.0 (which Flink's equaliser matches by {@code ==}), drawn from a fixed seed.
 *
 * <p>A grouping by {@code k} and another column reaches the materializer from every upstream
 * subtask, so above parallelism 1 the order of a key's changes is not defined, not even for Flink;
 * only the {@link #RESCALABLE} shapes, fed through an exchange on {@code k}, are rescaled.
 */
final class UpsertShapes {

    private static final int ROWS = 700;
    private static final int KEYS = 5;

    /** Names of shapes whose changelog per key does not depend on the parallelism. */
    static final String RESCALABLE = "rescalable: ";

    static final String STRATEGY = "table.exec.sink.upsert-materialize-strategy.type";

    private UpsertShapes() {}

    static List<ParityHarness.Shape> all() {
        List<ParityHarness.Shape> shapes = new ArrayList<>();
        String counts = "SELECT k, p, COUNT(*) AS c FROM src GROUP BY k, p";
        shapes.add(
                shape(
                        "no upsert key, duplicate rows",
                        "k INT, c BIGINT",
                        "SELECT k, c",
                        counts,
                        Map.of()));
        shapes.add(
                shape(
                        "upsert key (k, p)",
                        "k INT, p INT, c BIGINT",
                        "SELECT k, p, c",
                        counts,
                        Map.of()));
        shapes.add(
                shape(
                        "upsert key (k, s): strings with NULLs",
                        "k INT, s STRING, m BIGINT",
                        "SELECT k, s, m",
                        "SELECT k, s, MAX(v) AS m FROM src GROUP BY k, s",
                        Map.of()));
        shapes.add(
                shape(
                        "upsert key (k, d): NaN and -0.0",
                        "k INT, d DOUBLE, c BIGINT",
                        "SELECT k, d, c",
                        "SELECT k, d, COUNT(*) AS c FROM src GROUP BY k, d",
                        Map.of()));
        shapes.add(
                shape(
                        "rows deleted by a filter",
                        "k INT, p INT, c BIGINT",
                        "SELECT k, p, c",
                        "SELECT k, p, COUNT(*) AS c FROM src GROUP BY k, p) WHERE (c % 3 <> 0",
                        Map.of()));
        shapes.add(
                shape(
                        "no upsert key, TTL of an hour, batches of 7",
                        "k INT, c BIGINT",
                        "SELECT k, c",
                        counts,
                        Map.of(
                                "table.exec.state.ttl",
                                "1 h",
                                "streamfusion.operators.batch-rows",
                                "7")));
        shapes.add(
                shape(
                        "upsert key, batches of 1",
                        "k INT, p INT, c BIGINT",
                        "SELECT k, p, c",
                        counts,
                        Map.of("streamfusion.operators.batch-rows", "1")));
        // A cache of a few lists: changed lists are evicted into RocksDB batch after batch, and
        // the rest are written by the flush before each checkpoint.
        shapes.add(
                shape(
                        "upsert key (k, p), a cache of 1 KiB, batches of 5",
                        "k INT, p INT, c BIGINT",
                        "SELECT k, p, c",
                        counts,
                        Map.of(
                                "streamfusion.operators.cache-size",
                                "1kb",
                                "streamfusion.operators.batch-rows",
                                "5")));
        shapes.add(
                shape(
                        "V2 VALUE, no upsert key",
                        "k INT, c BIGINT",
                        "SELECT k, c",
                        counts,
                        Map.of(STRATEGY, "VALUE")));
        shapes.add(
                shape(
                        "V2 VALUE, upsert key (k, s)",
                        "k INT, s STRING, m BIGINT",
                        "SELECT k, s, m",
                        "SELECT k, s, MAX(v) AS m FROM src GROUP BY k, s",
                        Map.of(STRATEGY, "VALUE")));
        // A Top-3 per k feeds the sink through an exchange on k alone, so each key's changes
        // arrive in one order at any parallelism: these shapes are also rescaled.
        String top3 =
                "SELECT k, v, s, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM src";
        shapes.add(
                shape(
                        RESCALABLE + "top 3 per key, no upsert key",
                        "k INT, v BIGINT, s STRING",
                        "SELECT k, v, s",
                        top3 + ") WHERE (rn <= 3",
                        Map.of()));
        shapes.add(
                shape(
                        RESCALABLE + "top 3 per key, upsert key (k, rn)",
                        "k INT, rn BIGINT, v BIGINT",
                        "SELECT k, rn, v",
                        top3 + ") WHERE (rn <= 3",
                        Map.of()));
        shapes.add(
                shape(
                        RESCALABLE + "top 3 per key, V2 VALUE, batches of 3",
                        "k INT, v BIGINT, s STRING",
                        "SELECT k, v, s",
                        top3 + ") WHERE (rn <= 3",
                        Map.of(STRATEGY, "VALUE", "streamfusion.operators.batch-rows", "3")));
        shapes.add(
                shape(
                        RESCALABLE + "top 3 per key, upsert key (k, rn), a cache of 1 KiB",
                        "k INT, rn BIGINT, v BIGINT",
                        "SELECT k, rn, v",
                        top3 + ") WHERE (rn <= 3",
                        Map.of("streamfusion.operators.cache-size", "1kb")));
        return shapes;
    }

    /**
     * A sink {@code (columns, PRIMARY KEY (k))} fed {@code select} from the grouping {@code from}.
     */
    static ParityHarness.Shape shape(
            String name, String columns, String select, String from, Map<String, String> options) {
        Map<String, String> all = new HashMap<>(options);
        all.put("table.exec.sink.upsert-materialize", "FORCE");
        // Flink's test environment picks a random strategy when none is set.
        all.putIfAbsent(STRATEGY, "LEGACY");
        return new ParityHarness.Shape(
                name,
                new String[] {"k", "p", "s", "v", "d"},
                new TypeInformation<?>[] {
                    Types.INT, Types.INT, Types.STRING, Types.LONG, Types.DOUBLE
                },
                rows(),
                "SELECT k, p, s, v, d FROM scripted",
                columns + ", PRIMARY KEY (k) NOT ENFORCED",
                // Flink materializes only for sinks that take no UPDATE_BEFORE.
                true,
                "INSERT INTO sink " + select + " FROM (" + from + ")",
                all,
                0);
    }

    private static final String[] STRINGS = {
        "", "a", "é", "日本語", "a string longer than eight bytes"
    };
    private static final double[] DOUBLES = {Double.NaN, -0.0, 0.0, 1.5, -2.25};

    /** Rows {@code (k, p, s, v, d)}: the sink key, a group, a string, a value and a double. */
    private static List<Row> rows() {
        Random random = new Random(7);
        List<Row> rows = new ArrayList<>(ROWS);
        for (int i = 0; i < ROWS; i++) {
            String s = random.nextInt(6) == 0 ? null : STRINGS[random.nextInt(STRINGS.length)];
            rows.add(
                    Row.of(
                            random.nextInt(KEYS),
                            random.nextInt(6),
                            s,
                            (long) random.nextInt(100) - 50,
                            DOUBLES[random.nextInt(DOUBLES.length)]));
        }
        return rows;
    }
}
