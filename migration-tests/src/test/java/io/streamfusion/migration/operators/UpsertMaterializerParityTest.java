package io.streamfusion.migration.operators;

import io.streamfusion.migration.operators.ParityHarness.Outcome;
import io.streamfusion.migration.operators.ParityHarness.Phase;
import io.streamfusion.migration.operators.ParityHarness.Shape;
import io.streamfusion.migration.operators.ParityHarness.Stop;
import io.streamfusion.operators.OperatorOptions;
import io.streamfusion.operators.StreamFusionOperators;
import io.streamfusion.operators.substitution.SubstitutionOutcome;
import io.streamfusion.operators.substitution.SubstitutionReport;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The columnar upsert materializer against Flink's {@code SinkUpsertMaterializer} and {@code
 * SinkUpsertMaterializerV2}, in SQL jobs on a MiniCluster: for every shape of {@link UpsertShapes},
 * the layer on must produce the changelog of the layer off, record by record and in order, straight
 * through, across a checkpoint and restore, across rescaling 1 -> 2 -> 1 through native and
 * canonical savepoints, and after restoring a savepoint of Flink's own operator. Restoring Flink's
 * operator from the columnar one's savepoint must fail, naming why, rather than lose the rows.
 */
class UpsertMaterializerParityTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = OperatorTestClusters.oneTaskManager(4, "1g");

    @TempDir Path dir;

    static List<Shape> shapes() {
        return UpsertShapes.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void theLayerReproducesFlinksChangelog(Shape shape, @InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        ParityHarness harness = new ParityHarness(miniCluster, dir);
        long rows = shape.rows().size();
        Outcome reference = harness.run(shape, List.of(Phase.toEnd(1, false)));

        harness.assertSameStraightAndRestored(shape, reference);
        // Above parallelism 1 only some shapes define one order of each key's changes.
        if (shape.name().startsWith(UpsertShapes.RESCALABLE)) {
            harness.assertSameRescaled(shape, reference);
        }

        Outcome fromStock =
                harness.run(
                        shape,
                        List.of(
                                new Phase(1, false, Stop.CANONICAL_SAVEPOINT, rows / 2),
                                Phase.toEnd(1, true)));
        ParityHarness.assertSameChangelog(
                shape, reference, fromStock, "restored from Flink's operator's savepoint");
    }

    @Test
    void flinksOperatorRefusesTheColumnarSavepoint(@InjectMiniCluster MiniCluster miniCluster) {
        Shape shape = UpsertShapes.all().get(1);
        ParityHarness harness = new ParityHarness(miniCluster, dir);
        long rows = shape.rows().size();
        Exception failure =
                assertThrows(
                        Exception.class,
                        () ->
                                harness.run(
                                        shape,
                                        List.of(
                                                new Phase(1, true, Stop.NATIVE_SAVEPOINT, rows / 2),
                                                Phase.toEnd(1, false))));
        assertTrue(
                ExceptionUtils.stringifyException(failure).contains("UpsertIndexMarkerSerializer"),
                ExceptionUtils.stringifyException(failure));
    }

    @Test
    void aSavepointOfFlinksMapStrategyIsRefusedWithTheWayOut(
            @InjectMiniCluster MiniCluster miniCluster) {
        Shape map = withStrategy(UpsertShapes.all().get(0), "MAP");
        Shape value = withStrategy(UpsertShapes.all().get(0), "VALUE");
        ParityHarness harness = new ParityHarness(miniCluster, dir);
        long rows = map.rows().size();
        Exception failure =
                assertThrows(
                        Exception.class,
                        () ->
                                harness.runEach(
                                        List.of(map, value),
                                        List.of(
                                                new Phase(
                                                        1, false, Stop.NATIVE_SAVEPOINT, rows / 2),
                                                Phase.toEnd(1, true))));
        String trace = ExceptionUtils.stringifyException(failure);
        assertTrue(trace.contains("sqnToNodeState") && trace.contains("VALUE"), trace);
    }

    @Test
    void theMapAndAdaptiveStrategiesKeepFlinksOperatorWithTheirReason() {
        for (String strategy : List.of("MAP", "ADAPTIVE")) {
            SubstitutionOutcome materializer =
                    materializerOutcome(
                            "k INT, c BIGINT",
                            "INSERT INTO sink SELECT k, c FROM (SELECT k, p, COUNT(*) AS c FROM src"
                                    + " GROUP BY k, p)",
                            strategy);
            assertEquals("SinkUpsertMaterializerV2", materializer.flinkOperator());
            assertTrue(materializer.reason().contains(strategy), materializer.reason());
        }
    }

    @Test
    void anUpsertKeyOfANestedTypeKeepsFlinksOperatorWithItsReason() {
        SubstitutionOutcome materializer =
                materializerOutcome(
                        "k INT, a ARRAY<INT>, c BIGINT",
                        "INSERT INTO sink SELECT k, a, COUNT(*) FROM src GROUP BY k, a",
                        "LEGACY");
        assertEquals("SinkUpsertMaterializer", materializer.flinkOperator());
        assertTrue(materializer.reason().contains("ARRAY"), materializer.reason());
    }

    private static Shape withStrategy(Shape shape, String strategy) {
        Map<String, String> options = new HashMap<>(shape.options());
        options.put(UpsertShapes.STRATEGY, strategy);
        return new Shape(
                shape.name() + ", " + strategy,
                shape.columns(),
                shape.types(),
                shape.rows(),
                shape.inputView(),
                shape.sinkColumns(),
                shape.upsertSink(),
                shape.insert(),
                options,
                shape.keyColumns());
    }

    /**
     * How the layer decided on the materializer of {@code insert} into a sink of {@code columns}.
     */
    private static SubstitutionOutcome materializerOutcome(
            String columns, String insert, String strategy) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.getConfig().set(OperatorOptions.ENABLED, true);
        tables.getConfig()
                .getConfiguration()
                .setString("table.exec.sink.upsert-materialize", "FORCE");
        tables.getConfig().getConfiguration().setString(UpsertShapes.STRATEGY, strategy);
        tables.executeSql(
                "CREATE TEMPORARY TABLE src (k INT, p INT, a ARRAY<INT>) WITH ('connector' ="
                        + " 'datagen')");
        tables.executeSql(
                "CREATE TEMPORARY TABLE sink ("
                        + columns
                        + ", PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = '"
                        + CollectingSinkFactory.IDENTIFIER
                        + "', 'output' = 'explain', 'changelog-mode' = 'upsert')");
        SubstitutionReport report = StreamFusionOperators.explain(env, tables, insert);
        return report.outcomes().stream()
                .filter(outcome -> outcome.nodeName().startsWith("SinkMaterializer["))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no materializer in " + report));
    }
}
