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
 * The sink constraint shapes of the parity test: NOT NULL columns under DROP and ERROR, and CHAR,
 * VARCHAR, BINARY and VARBINARY columns under TRIM_PAD and ERROR (the columnar enforcer replaces
 * only sinks with length constraints), fed values shorter, as long as and longer than their
 * declared length (non-ASCII strings, counted in code points), with and without NULLs, as
 * insert-only rows and as an updating stream. The legacy cast behaviour keeps {@code CAST(s AS
 * CHAR(5))} from trimming and padding itself, as a connector's values would arrive, so the enforcer
 * is what changes them.
 *
 * <p>Flink's length constraints read a NULL without asking: a NULL in a binary row reads as empty
 * (padded under TRIM_PAD), a NULL in any other row fails the job. A projection hands the enforcer
 * rows that are not binary, so those shapes keep NULLs out of constrained columns; the shapes
 * behind a Top-1, which emits the binary rows it received, feed NULLs in.
 */
final class ConstraintShapes {

    private static final int ROWS = 600;
    private static final int KEYS = 7;

    /** Trimmed and padded columns over the raw string and bytes, plus wide values to keep. */
    private static final String CONSTRAINED_VIEW =
            "SELECT k, CAST(s AS CHAR(5)) AS c, CAST(s AS VARCHAR(3)) AS vc,"
                    + " CAST(b AS BINARY(4)) AS bn, CAST(b AS VARBINARY(2)) AS vb, n,"
                    + " CAST(n AS DECIMAL(20, 2)) AS d,"
                    + " CAST(TO_TIMESTAMP_LTZ(n, 3) AS TIMESTAMP(9)) AS t,"
                    + " ARRAY[s, 'x'] AS a FROM scripted";

    private static final String CONSTRAINED_SINK =
            "k INT NOT NULL, c CHAR(5), vc VARCHAR(3), bn BINARY(4), vb VARBINARY(2), n BIGINT,"
                    + " d DECIMAL(20, 2), t TIMESTAMP(9), a ARRAY<STRING>";

    /**
     * The view's own types in the Top-1's field order, so that no cast or projection (which would
     * copy the rows into generic ones) comes between the Top-1 and the enforcer.
     */
    private static final String VIEW_TYPED_SINK =
            "k INT, n BIGINT, c CHAR(5), vc VARCHAR(3), bn BINARY(4), vb VARBINARY(2),"
                    + " d DECIMAL(20, 2), t TIMESTAMP(9), a ARRAY<STRING>";

    private static final String TOP1_BY_N =
            " FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY n DESC) AS rn FROM src)"
                    + " WHERE rn = 1";

    private ConstraintShapes() {}

    static List<ParityHarness.Shape> all() {
        List<ParityHarness.Shape> shapes = new ArrayList<>();
        shapes.add(
                shape(
                        "NOT NULL DROP",
                        "SELECT k, CAST(s AS VARCHAR(12)) AS s, n FROM scripted",
                        "k INT NOT NULL, s VARCHAR(12) NOT NULL, n BIGINT NOT NULL",
                        "INSERT INTO sink SELECT k, s, n FROM src",
                        trimPad(Map.of("table.exec.sink.not-null-enforcer", "DROP"))));
        shapes.add(
                shape(
                        "TRIM_PAD, wide values kept",
                        CONSTRAINED_VIEW + " WHERE s IS NOT NULL AND b IS NOT NULL",
                        CONSTRAINED_SINK,
                        "INSERT INTO sink SELECT * FROM src",
                        trimPad(Map.of())));
        shapes.add(
                shape(
                        "TRIM_PAD and NOT NULL DROP, batches of 3",
                        CONSTRAINED_VIEW + " WHERE s IS NOT NULL AND b IS NOT NULL",
                        "k INT NOT NULL, c CHAR(5), vc VARCHAR(3), bn BINARY(4), vb VARBINARY(2),"
                                + " n BIGINT NOT NULL, d DECIMAL(20, 2), t TIMESTAMP(9),"
                                + " a ARRAY<STRING>",
                        "INSERT INTO sink SELECT * FROM src",
                        trimPad(
                                Map.of(
                                        "table.exec.sink.not-null-enforcer",
                                        "DROP",
                                        "streamfusion.operators.batch-rows",
                                        "3"))));
        shapes.add(
                shape(
                        "TRIM_PAD of an updating stream",
                        CONSTRAINED_VIEW + " WHERE s IS NOT NULL",
                        "k INT NOT NULL, c CHAR(5), vc VARCHAR(3), cnt BIGINT NOT NULL",
                        "INSERT INTO sink SELECT k, MAX(c), MIN(vc), COUNT(*) FROM src GROUP BY k",
                        trimPad(Map.of())));
        shapes.add(
                shape(
                        "TRIM_PAD of binary rows with NULLs, behind a Top-1",
                        CONSTRAINED_VIEW,
                        VIEW_TYPED_SINK,
                        "INSERT INTO sink SELECT k, n, c, vc, bn, vb, d, t, a" + TOP1_BY_N,
                        trimPad(Map.of())));
        return shapes;
    }

    /** Shapes whose job Flink fails: the layer must fail it the same way, after the same rows. */
    static List<ParityHarness.Shape> failing() {
        List<ParityHarness.Shape> shapes = new ArrayList<>();
        shapes.add(
                shape(
                        "NOT NULL ERROR",
                        "SELECT k, CAST(s AS VARCHAR(12)) AS s, n FROM scripted"
                                + " WHERE s IS NOT NULL",
                        "k INT NOT NULL, s VARCHAR(12), n BIGINT NOT NULL",
                        "INSERT INTO sink SELECT k, s, n FROM src",
                        trimPad(Map.of())));
        shapes.add(
                shape(
                        "VARCHAR length ERROR",
                        "SELECT k, CAST(s AS VARCHAR(12)) AS s FROM scripted WHERE s IS NOT NULL",
                        "k INT NOT NULL, s VARCHAR(12)",
                        "INSERT INTO sink SELECT k, s FROM src",
                        lengthError()));
        shapes.add(
                shape(
                        "VARBINARY length ERROR",
                        "SELECT k, CAST(b AS VARBINARY(5)) AS b FROM scripted WHERE b IS NOT NULL",
                        "k INT NOT NULL, b VARBINARY(5)",
                        "INSERT INTO sink SELECT k, b FROM src",
                        lengthError()));
        shapes.add(
                shape(
                        "CHAR length ERROR of a NULL in a binary row",
                        "SELECT k, n, CAST(CASE WHEN s IS NULL THEN NULL ELSE 'abcde' END AS"
                                + " CHAR(5)) AS c FROM scripted",
                        "k INT, n BIGINT, c CHAR(5)",
                        "INSERT INTO sink SELECT k, n, c" + TOP1_BY_N,
                        lengthError()));
        shapes.add(
                shape(
                        "TRIM_PAD of a NULL in a row that is not binary",
                        CONSTRAINED_VIEW,
                        CONSTRAINED_SINK,
                        "INSERT INTO sink SELECT * FROM src",
                        trimPad(Map.of())));
        return shapes;
    }

    private static Map<String, String> trimPad(Map<String, String> more) {
        Map<String, String> options = new HashMap<>(more);
        options.put("table.exec.sink.type-length-enforcer", "TRIM_PAD");
        options.put("table.exec.legacy-cast-behaviour", "ENABLED");
        return options;
    }

    private static Map<String, String> lengthError() {
        return Map.of(
                "table.exec.sink.type-length-enforcer",
                "ERROR",
                "table.exec.legacy-cast-behaviour",
                "ENABLED");
    }

    /** The option that lets the layer replace Flink's enforcer (off by default). */
    static final String ENABLED = "streamfusion.operators.sink-constraints.enabled";

    private static ParityHarness.Shape shape(
            String name, String view, String sink, String insert, Map<String, String> more) {
        Map<String, String> options = new HashMap<>(more);
        options.put(ENABLED, "true");
        return new ParityHarness.Shape(
                name,
                new String[] {"k", "s", "b", "n"},
                new TypeInformation<?>[] {
                    Types.INT, Types.STRING, Types.PRIMITIVE_ARRAY(Types.BYTE), Types.LONG
                },
                rows(),
                view,
                sink,
                false,
                insert,
                options,
                0);
    }

    private static final String[] STRINGS = {
        "", "ab", "abc", "abcde", "äöü", "日本語です。", "a string longer than eight bytes", "😀x😀x😀x"
    };

    /** Rows {@code (k, s, b, n)}, NULLs among the last three. */
    private static List<Row> rows() {
        Random random = new Random(11);
        List<Row> rows = new ArrayList<>(ROWS);
        for (int i = 0; i < ROWS; i++) {
            byte[] bytes = new byte[random.nextInt(7)];
            random.nextBytes(bytes);
            rows.add(
                    Row.of(
                            random.nextInt(KEYS),
                            random.nextInt(9) == 0 ? null : STRINGS[random.nextInt(STRINGS.length)],
                            random.nextInt(9) == 0 ? null : bytes,
                            random.nextInt(11) == 0 ? null : (long) random.nextInt(1000) - 500));
        }
        return rows;
    }
}
