package io.streamfusion.migration.operators;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.types.Row;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

/**
 * The Top-1 shapes of the parity test: {@code ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) =
 * 1} over append-only input, across key and sort types, directions, NULL placement, ties,
 * multi-column sorts, the rank column, TTL, upsert sinks, batch sizes and the winner cache.
 *
 * <p>Every shape reads rows {@code (k INT, k2 STRING, v ...)} plus a payload; the values include
 * the edge cases of their type (NaN and -0.0, empty and non-ASCII strings, NULLs), drawn from a
 * fixed seed, so every run sees the same input.
 */
final class Top1Shapes {

    private static final int ROWS = 600;
    private static final int KEYS = 23;

    private Top1Shapes() {}

    static List<ParityHarness.Shape> all() {
        List<ParityHarness.Shape> shapes = new ArrayList<>();
        shapes.add(
                top1(
                        "bigint desc",
                        Types.LONG,
                        Top1Shapes::longs,
                        "v",
                        "BIGINT",
                        "v DESC",
                        Map.of()));
        shapes.add(
                top1(
                        "bigint asc, batches of 1, no cache",
                        Types.LONG,
                        Top1Shapes::longs,
                        "v",
                        "BIGINT",
                        "v ASC",
                        Map.of(
                                "streamfusion.operators.batch-rows",
                                "1",
                                "streamfusion.operators.cache-size",
                                "0")));
        shapes.add(
                top1(
                        "int asc, batches of 7",
                        Types.INT,
                        r -> (int) longs(r),
                        "v",
                        "INT",
                        "v ASC",
                        Map.of("streamfusion.operators.batch-rows", "7")));
        shapes.add(
                top1(
                        "double desc with NaN and -0.0",
                        Types.DOUBLE,
                        Top1Shapes::doubles,
                        "v",
                        "DOUBLE",
                        "v DESC",
                        Map.of()));
        shapes.add(
                top1(
                        "double asc with NaN and -0.0, no cache",
                        Types.DOUBLE,
                        Top1Shapes::doubles,
                        "v",
                        "DOUBLE",
                        "v ASC",
                        Map.of("streamfusion.operators.cache-size", "0")));
        shapes.add(
                top1(
                        "decimal(10,2) asc",
                        Types.BIG_DEC,
                        Top1Shapes::decimals,
                        "CAST(v AS DECIMAL(10, 2))",
                        "DECIMAL(10, 2)",
                        "v ASC",
                        Map.of()));
        shapes.add(
                top1(
                        "decimal(30,5) desc",
                        Types.BIG_DEC,
                        Top1Shapes::decimals,
                        "CAST(v AS DECIMAL(30, 5))",
                        "DECIMAL(30, 5)",
                        "v DESC",
                        Map.of()));
        shapes.add(
                top1(
                        "string asc",
                        Types.STRING,
                        Top1Shapes::strings,
                        "v",
                        "STRING",
                        "v ASC",
                        Map.of()));
        shapes.add(
                top1(
                        "string desc, batches of 5",
                        Types.STRING,
                        Top1Shapes::strings,
                        "v",
                        "STRING",
                        "v DESC",
                        Map.of("streamfusion.operators.batch-rows", "5")));
        shapes.add(
                top1(
                        "timestamp(3) asc",
                        Types.LOCAL_DATE_TIME,
                        Top1Shapes::timestamps,
                        "CAST(v AS TIMESTAMP(3))",
                        "TIMESTAMP(3)",
                        "v ASC",
                        Map.of()));
        shapes.add(
                top1(
                        "timestamp(9) desc",
                        Types.LOCAL_DATE_TIME,
                        Top1Shapes::timestamps,
                        "CAST(v AS TIMESTAMP(9))",
                        "TIMESTAMP(9)",
                        "v DESC",
                        Map.of()));
        shapes.add(
                top1(
                        "date desc",
                        Types.LOCAL_DATE,
                        Top1Shapes::dates,
                        "v",
                        "DATE",
                        "v DESC",
                        Map.of()));
        shapes.add(
                top1(
                        "bigint asc, nulls first by default",
                        Types.LONG,
                        r -> withNulls(r, longs(r)),
                        "v",
                        "BIGINT",
                        "v ASC",
                        Map.of()));
        shapes.add(
                top1(
                        "bigint desc nulls first",
                        Types.LONG,
                        r -> withNulls(r, longs(r)),
                        "v",
                        "BIGINT",
                        "v DESC NULLS FIRST",
                        Map.of()));
        shapes.add(
                top1(
                        "double asc nulls last",
                        Types.DOUBLE,
                        r -> withNulls(r, doubles(r)),
                        "v",
                        "DOUBLE",
                        "v ASC NULLS LAST",
                        Map.of()));
        shapes.add(
                top1(
                        "string desc nulls last",
                        Types.STRING,
                        r -> withNulls(r, strings(r)),
                        "v",
                        "STRING",
                        "v DESC NULLS LAST",
                        Map.of()));
        shapes.add(
                top1(
                        "ties everywhere",
                        Types.LONG,
                        r -> (long) r.nextInt(3),
                        "v",
                        "BIGINT",
                        "v DESC",
                        Map.of()));
        shapes.add(
                top1(
                        "int desc, string asc (two columns)",
                        Types.INT,
                        r -> r.nextInt(4),
                        "v",
                        "INT",
                        "v DESC, k2 ASC",
                        Map.of()));
        shapes.add(
                top1(
                        "string asc nulls last, double desc",
                        Types.DOUBLE,
                        Top1Shapes::doubles,
                        "v",
                        "DOUBLE",
                        "k2 ASC NULLS LAST, v DESC",
                        Map.of()));
        shapes.add(rankProjected("rank column projected", Map.of()));
        shapes.add(
                top1(
                        "ttl 1 h",
                        Types.LONG,
                        Top1Shapes::longs,
                        "v",
                        "BIGINT",
                        "v DESC",
                        Map.of("table.exec.state.ttl", "1 h")));
        shapes.add(
                rankProjected(
                        "rank column and ttl, batches of 3",
                        Map.of(
                                "table.exec.state.ttl",
                                "1 h",
                                "streamfusion.operators.batch-rows",
                                "3")));
        shapes.add(upsert("upsert sink (no UPDATE_BEFORE)"));
        shapes.add(compositeKey("composite key (INT, STRING)"));
        return shapes;
    }

    /**
     * {@code INSERT INTO sink SELECT k, v, p FROM (... ROW_NUMBER() OVER (PARTITION BY k ORDER BY
     * order) ...) WHERE rn = 1}, where {@code v} is {@code valueExpression} over the raw value.
     */
    private static ParityHarness.Shape top1(
            String name,
            TypeInformation<?> valueType,
            Function<Random, Object> value,
            String valueExpression,
            String valueSqlType,
            String order,
            Map<String, String> options) {
        return new ParityHarness.Shape(
                name,
                columns(),
                types(valueType),
                rows(value),
                "SELECT k, k2, " + valueExpression + " AS v, p FROM scripted",
                "k INT, k2 STRING, v " + valueSqlType + ", p INT",
                false,
                "INSERT INTO sink SELECT k, k2, v, p FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY "
                        + order
                        + ") AS rn FROM src) WHERE rn = 1",
                options,
                0);
    }

    private static ParityHarness.Shape rankProjected(String name, Map<String, String> options) {
        return overBigints(
                name,
                "k INT, v BIGINT, p INT, rn BIGINT",
                false,
                "SELECT k, v, p, rn",
                "PARTITION BY k ORDER BY v DESC, p ASC",
                options,
                0);
    }

    private static ParityHarness.Shape upsert(String name) {
        return overBigints(
                name,
                "k INT, v BIGINT, p INT, PRIMARY KEY (k) NOT ENFORCED",
                true,
                "SELECT k, v, p",
                "PARTITION BY k ORDER BY v DESC",
                Map.of(),
                0);
    }

    private static ParityHarness.Shape compositeKey(String name) {
        return overBigints(
                name,
                "k INT, k2 STRING, v BIGINT, p INT",
                false,
                "SELECT k, k2, v, p",
                "PARTITION BY k, k2 ORDER BY v DESC",
                Map.of(),
                0,
                1);
    }

    /** A Top-1 over BIGINT values: {@code select} from the ranking over {@code window}. */
    private static ParityHarness.Shape overBigints(
            String name,
            String sinkColumns,
            boolean upsertSink,
            String select,
            String window,
            Map<String, String> options,
            int... keyColumns) {
        return new ParityHarness.Shape(
                name,
                columns(),
                types(Types.LONG),
                rows(Top1Shapes::longs),
                "SELECT k, k2, v, p FROM scripted",
                sinkColumns,
                upsertSink,
                "INSERT INTO sink "
                        + select
                        + " FROM (SELECT *, ROW_NUMBER() OVER ("
                        + window
                        + ") AS rn FROM src) WHERE rn = 1",
                options,
                keyColumns);
    }

    private static String[] columns() {
        return new String[] {"k", "k2", "v", "p"};
    }

    private static TypeInformation<?>[] types(TypeInformation<?> valueType) {
        return new TypeInformation<?>[] {Types.INT, Types.STRING, valueType, Types.INT};
    }

    /** Rows {@code (k, k2, v, p)}: key, a second key or sort column, the value, the row number. */
    private static List<Row> rows(Function<Random, Object> value) {
        Random random = new Random(42);
        List<Row> rows = new ArrayList<>(ROWS);
        for (int i = 0; i < ROWS; i++) {
            int key = random.nextInt(KEYS);
            String second =
                    random.nextInt(9) == 0
                            ? null
                            : "s" + (key % 3) + (char) ('a' + random.nextInt(3));
            rows.add(Row.of(key, second, value.apply(random), i));
        }
        return rows;
    }

    private static Object withNulls(Random random, Object value) {
        return random.nextInt(5) == 0 ? null : value;
    }

    private static long longs(Random random) {
        return random.nextInt(200) - 100;
    }

    private static final double[] SPECIAL_DOUBLES = {
        Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE
    };

    private static double doubles(Random random) {
        return random.nextInt(4) == 0
                ? SPECIAL_DOUBLES[random.nextInt(SPECIAL_DOUBLES.length)]
                : (random.nextInt(2000) - 1000) / 8.0;
    }

    private static BigDecimal decimals(Random random) {
        return BigDecimal.valueOf(random.nextLong() % 100_000_000L, 2)
                .multiply(BigDecimal.valueOf(random.nextInt(3) == 0 ? -1 : 1));
    }

    private static final String[] SPECIAL_STRINGS = {
        "",
        "a",
        "ab",
        "abc",
        "é",
        "日本語",
        "z",
        "a string longer than eight bytes",
        "Ω",
        "ü",
        "\u0001",
        "zz"
    };

    private static String strings(Random random) {
        return random.nextInt(3) == 0
                ? SPECIAL_STRINGS[random.nextInt(SPECIAL_STRINGS.length)]
                : "v" + random.nextInt(60);
    }

    private static LocalDateTime timestamps(Random random) {
        return LocalDateTime.of(2026, 1, 1, 0, 0)
                .plusSeconds(random.nextInt(50))
                .plusNanos(random.nextInt(3) * 1_000_000L + random.nextInt(2) * 7L);
    }

    private static LocalDate dates(Random random) {
        return LocalDate.of(2000, 1, 1).plusDays(random.nextInt(400) - 200);
    }
}
