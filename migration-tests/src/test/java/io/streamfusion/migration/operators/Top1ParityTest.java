package io.streamfusion.migration.operators;

import io.streamfusion.migration.operators.ParityHarness.Shape;
import io.streamfusion.operators.OperatorOptions;
import io.streamfusion.operators.StreamFusionOperators;
import io.streamfusion.operators.substitution.SubstitutionOutcome;
import io.streamfusion.operators.substitution.SubstitutionReport;

import org.apache.flink.configuration.StateBackendOptions;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The columnar Top-1 ranker against Flink's {@code FastTop1Function}, in SQL jobs on a MiniCluster:
 * for every shape of {@link Top1Shapes}, the layer on must produce the changelog of the layer off,
 * record by record and in order, straight through, across a checkpoint and restore, across
 * rescaling 1 -> 2 -> 1 through native and through canonical savepoints, and while switching the
 * layer on -> off -> on through savepoints. Shapes the layer does not support must keep Flink's
 * operator, with their reason.
 */
class Top1ParityTest {

    // 256 MiB of state memory per slot: room for the operator's cache and batches.
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = OperatorTestClusters.oneTaskManager(4, "1g");

    @TempDir Path dir;

    static List<Shape> shapes() {
        return Top1Shapes.all();
    }

    @Test
    void thereAreAtLeastTwentyShapes() {
        assertTrue(Top1Shapes.all().size() >= 20, "shapes: " + Top1Shapes.all());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void theLayerReproducesFlinksChangelog(Shape shape, @InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        new ParityHarness(miniCluster, dir).assertSameEverywhere(shape);
    }

    @Test
    void unsupportedShapesKeepFlinksOperatorWithTheirReason() {
        assertKept(
                "INSERT INTO sink SELECT k, v, p FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC)"
                        + " AS rn FROM src) WHERE rn <= 3",
                "AppendOnlyTopNFunction",
                "top N > 1");
        // A count grows, so ascending by it the winner can retract: RetractStrategy.
        assertKept(
                "INSERT INTO sink SELECT k, c, 0 FROM (SELECT k, c, ROW_NUMBER() OVER (PARTITION BY k ORDER BY c ASC)"
                        + " AS rn FROM (SELECT k, p, COUNT(*) AS c FROM src GROUP BY k, p)) WHERE rn = 1",
                "RetractableTopNFunction",
                "retracts rows");
        // Descending by a growing count the planner picks FastTop1Function over an update stream.
        assertKept(
                "INSERT INTO sink SELECT k, c, 0 FROM (SELECT k, c, ROW_NUMBER() OVER (PARTITION BY k ORDER BY c DESC)"
                        + " AS rn FROM (SELECT k, p, COUNT(*) AS c FROM src GROUP BY k, p)) WHERE rn = 1",
                "FastTop1Function",
                "update stream");
        assertKept(
                "INSERT INTO sink SELECT k, v, p FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY r ASC)"
                        + " AS rn FROM (SELECT k, v, p, ROW(v, p) AS r FROM src)) WHERE rn = 1",
                "FastTop1Function",
                "no native comparison");
    }

    @Test
    void asyncStateKeepsFlinksOperator() {
        SubstitutionReport report =
                explain(
                        "INSERT INTO sink SELECT k, v, p FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY"
                                + " v DESC) AS rn FROM src) WHERE rn = 1",
                        true);
        SubstitutionOutcome rank = rankOutcome(report);
        assertNull(rank.replacement(), report.toString());
        assertTrue(rank.reason().contains("async state"), report.toString());
    }

    @Test
    void aJobOnAnotherStateBackendIsLeftAlone() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tables = tables(env, false);
        tables.getConfig().set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        SubstitutionReport report =
                StreamFusionOperators.explain(
                        env,
                        tables,
                        "INSERT INTO sink SELECT k, v, p FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY"
                                + " v DESC) AS rn FROM src) WHERE rn = 1");
        assertTrue(
                report.skipped() != null && report.skipped().contains("rocksdb"),
                report.toString());
    }

    private static void assertKept(String insert, String flinkOperator, String reason) {
        SubstitutionReport report = explain(insert, false);
        SubstitutionOutcome rank = rankOutcome(report);
        assertEquals(flinkOperator, rank.flinkOperator(), report.toString());
        assertNull(rank.replacement(), report.toString());
        assertTrue(rank.reason().contains(reason), report.toString());
    }

    private static SubstitutionOutcome rankOutcome(SubstitutionReport report) {
        return report.outcomes().stream()
                .filter(outcome -> outcome.nodeName().startsWith("Rank["))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no rank node in " + report));
    }

    private static SubstitutionReport explain(String insert, boolean asyncState) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tables = tables(env, asyncState);
        return StreamFusionOperators.explain(env, tables, insert);
    }

    private static StreamTableEnvironment tables(
            StreamExecutionEnvironment env, boolean asyncState) {
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.getConfig().set(OperatorOptions.ENABLED, true);
        tables.getConfig()
                .getConfiguration()
                .setString("table.exec.async-state.enabled", String.valueOf(asyncState));
        tables.executeSql(
                "CREATE TEMPORARY TABLE src (k INT, k2 STRING, v BIGINT, p INT) WITH ('connector' = 'datagen')");
        tables.executeSql(
                "CREATE TEMPORARY TABLE sink (k INT, v BIGINT, p INT) WITH ('connector' = '"
                        + CollectingSinkFactory.IDENTIFIER
                        + "', 'output' = 'explain')");
        return tables;
    }
}
