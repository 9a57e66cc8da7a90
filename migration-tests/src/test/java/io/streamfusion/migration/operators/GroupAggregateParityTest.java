package io.streamfusion.migration.operators;

import io.streamfusion.migration.operators.ParityHarness.Shape;
import io.streamfusion.operators.OperatorOptions;
import io.streamfusion.operators.StreamFusionOperators;
import io.streamfusion.operators.substitution.SubstitutionOutcome;
import io.streamfusion.operators.substitution.SubstitutionReport;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The columnar {@code GROUP BY} against Flink's {@code GroupAggFunction}, in SQL jobs on a
 * MiniCluster: for every shape of {@link AggregateShapes}, the layer on must produce the changelog
 * of the layer off, record by record and in order, straight through, across a checkpoint and
 * restore, across rescaling 1 -> 2 -> 1, and while switching the layer on -> off -> on through
 * savepoints. The aggregations the layer does not support keep Flink's operator, with their reason.
 */
class GroupAggregateParityTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = OperatorTestClusters.oneTaskManager(4, "1g");

    @TempDir Path dir;

    static List<Shape> shapes() {
        return AggregateShapes.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void theLayerReproducesFlinksChangelog(Shape shape, @InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        new ParityHarness(miniCluster, dir).assertSameEverywhere(shape);
    }

    static List<Shape> twoLevelShapes() {
        return AggregateShapes.twoLevels();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("twoLevelShapes")
    void overRetractionsTheLayerReproducesFlinksChangelog(
            Shape shape, @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        new ParityHarness(miniCluster, dir).assertSameEverywhereInterleaved(shape);
    }

    static List<Shape> miniBatchShapes() {
        return AggregateShapes.miniBatch();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("miniBatchShapes")
    void withMiniBatchTheLayerReproducesFlinksBundles(
            Shape shape, @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        new ParityHarness(miniCluster, dir).assertSameInEveryPhasingInterleaved(shape);
    }

    static List<Shape> onePhaseShapes() {
        return AggregateShapes.onePhase();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("onePhaseShapes")
    void withOnePhaseMiniBatchTheLayerReproducesFlinksBundles(
            Shape shape, @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        new ParityHarness(miniCluster, dir).assertSameInEveryPhasingInterleaved(shape);
    }

    @Test
    void everyShapeReplacesEveryAggregation() {
        List<Shape> shapes = new java.util.ArrayList<>(AggregateShapes.all());
        shapes.addAll(AggregateShapes.twoLevels());
        shapes.addAll(AggregateShapes.miniBatch());
        shapes.addAll(AggregateShapes.onePhase());
        for (Shape shape : shapes) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            StreamTableEnvironment tables = StreamTableEnvironment.create(env);
            tables.getConfig().set(OperatorOptions.ENABLED, true);
            shape.options()
                    .forEach(
                            (key, value) ->
                                    tables.getConfig().getConfiguration().setString(key, value));
            tables.executeSql(
                    "CREATE TEMPORARY TABLE scripted (k INT, k2 STRING, v BIGINT, i INT, t TINYINT,"
                            + " s SMALLINT, d DOUBLE, f FLOAT, p INT, e STRING, w STRING)"
                            + " WITH ('connector' = 'datagen')");
            tables.executeSql("CREATE TEMPORARY VIEW src AS " + shape.inputView());
            tables.executeSql(
                    "CREATE TEMPORARY TABLE sink ("
                            + shape.sinkColumns()
                            + ") WITH ('connector' = '"
                            + CollectingSinkFactory.IDENTIFIER
                            + "', 'output' = 'explain')");
            SubstitutionReport report = StreamFusionOperators.explain(env, tables, shape.insert());
            List<SubstitutionOutcome> aggregations =
                    report.outcomes().stream()
                            .filter(
                                    outcome ->
                                            outcome.nodeName().startsWith("GroupAggregate[")
                                                    || outcome.nodeName()
                                                            .startsWith("GlobalGroupAggregate["))
                            .collect(java.util.stream.Collectors.toList());
            assertTrue(!aggregations.isEmpty(), shape + ": " + report);
            for (SubstitutionOutcome aggregation : aggregations) {
                assertEquals(
                        "GroupAggregateOperator", aggregation.replacement(), shape + ": " + report);
            }
        }
    }

    @Test
    void unsupportedAggregationsKeepFlinksOperatorWithTheirReason() {
        String retracting = "(SELECT k, COUNT(*) AS c, SUM(v) AS s FROM src GROUP BY k)";
        assertKept(
                "INSERT INTO sink SELECT c, COUNT(DISTINCT s) + SUM(DISTINCT s) FROM "
                        + retracting
                        + " GROUP BY c",
                Map.of(),
                "DISTINCT s",
                "array of counts");
        assertKept(
                "INSERT INTO sink SELECT k, COUNT(DISTINCT v) FROM src GROUP BY k",
                ParityHarness.miniBatchOf("7", Map.of()),
                "distinct$0",
                "merges views");
        assertKept(
                "INSERT INTO sink SELECT k, CAST(EXTRACT(YEAR FROM MIN(z)) AS BIGINT) FROM (SELECT k,"
                        + " CAST(TO_TIMESTAMP_LTZ(v, 3) AS TIMESTAMP(6)) AS z FROM src) GROUP BY k",
                Map.of(),
                "MIN(z)",
                "numbers only");
        assertKept(
                "INSERT INTO sink SELECT k, CAST(CHAR_LENGTH(LISTAGG(z)) AS BIGINT) FROM (SELECT k,"
                        + " CAST(v AS STRING) AS z FROM src) GROUP BY k",
                Map.of(),
                "LISTAGG",
                "no native kernel");
    }

    private static void assertKept(
            String insert, Map<String, String> options, String what, String reason) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.getConfig().set(OperatorOptions.ENABLED, true);
        options.forEach(
                (key, value) -> tables.getConfig().getConfiguration().setString(key, value));
        tables.executeSql(
                "CREATE TEMPORARY TABLE src (k INT, v BIGINT, e DECIMAL(10, 2))"
                        + " WITH ('connector' = 'datagen')");
        tables.executeSql(
                "CREATE TEMPORARY TABLE sink (k BIGINT, v BIGINT) WITH ('connector' = '"
                        + CollectingSinkFactory.IDENTIFIER
                        + "', 'output' = 'explain')");
        SubstitutionReport report = StreamFusionOperators.explain(env, tables, insert);
        SubstitutionOutcome kept =
                report.outcomes().stream()
                        .filter(outcome -> outcome.reason() != null)
                        .filter(outcome -> outcome.nodeName().contains("GroupAggregate["))
                        .reduce((first, second) -> second)
                        .orElseThrow(() -> new AssertionError("no kept aggregation in " + report));
        assertNull(kept.replacement(), report.toString());
        assertTrue(kept.reason().contains(what), report.toString());
        assertTrue(kept.reason().contains(reason), report.toString());
    }
}
