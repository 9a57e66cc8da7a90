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
import org.apache.flink.types.Row;

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
 * The columnar deduplication against Flink's {@code ProcTimeDeduplicateKeepLastRowFunction}, {@code
 * ProcTimeDeduplicateKeepFirstRowFunction}, {@code RowTimeDeduplicateFunction} and the timer-driven
 * {@code RowTimeDeduplicateKeepFirstRowFunction}, in SQL jobs on a MiniCluster: for every shape of
 * {@link DeduplicateShapes}, the layer on must produce the changelog of the layer off, record by
 * record and in order, straight through, across a checkpoint and restore, across rescaling 1 -> 2
 * -> 1, and while switching the layer on -> off -> on through savepoints. The deduplications the
 * layer does not support keep Flink's operator, with their reason.
 */
class DeduplicateParityTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = OperatorTestClusters.oneTaskManager(4, "1g");

    @TempDir Path dir;

    static List<Shape> shapes() {
        return DeduplicateShapes.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void theLayerReproducesFlinksChangelog(Shape shape, @InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        new ParityHarness(miniCluster, dir).assertSameEverywhere(shape);
    }

    static List<Shape> rowTimeKeepFirstShapes() {
        return DeduplicateShapes.rowTimeKeepFirst();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rowTimeKeepFirstShapes")
    void theLayerReproducesFlinksTimerDrivenKeepFirst(
            Shape shape, @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        new ParityHarness(miniCluster, dir).assertSameAtParallelismOne(shape);
    }

    @Test
    void timersOfWaitingKeepFirstRowsMoveWithRescaling(@InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        new ParityHarness(miniCluster, dir)
                .assertSameEverywhere(DeduplicateShapes.rowTimeKeepFirstFiringAtTheEnd());
    }

    @Test
    void rowTimeKeepFirstIntoAnAppendSinkIsTheTimerDrivenFunction() {
        String insert =
                "INSERT INTO sink SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY rt ASC) AS rn FROM src) WHERE rn = 1";
        SubstitutionOutcome dedup = deduplicationIn(insert, Map.of());
        assertEquals("RowTimeDeduplicateKeepFirstRowFunction", dedup.flinkOperator());
        assertEquals("RowTimeKeepFirstOperator", dedup.replacement());
    }

    static List<Shape> miniBatchShapes() {
        return DeduplicateShapes.miniBatch();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("miniBatchShapes")
    void withMiniBatchTheLayerReproducesFlinksBundles(
            Shape shape, @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        new ParityHarness(miniCluster, dir).assertSameInEveryPhasing(shape);
    }

    @Test
    void theRepeatedRowShapesReallyRepeatRows() {
        // Without the row number p, a key's rows (k, k2, v) repeat, so the suppression is tested.
        long distinct =
                DeduplicateShapes.all().get(0).rows().stream()
                        .map(row -> Row.of(row.getField(0), row.getField(1), row.getField(2)))
                        .distinct()
                        .count();
        assertTrue(
                distinct < DeduplicateShapes.all().get(0).rows().size() / 4,
                "distinct: " + distinct);
    }

    @Test
    void unsupportedDeduplicationsKeepFlinksOperatorWithTheirReason() {
        String keepLast =
                "INSERT INTO sink SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC)"
                        + " AS rn FROM src) WHERE rn = 1";
        // Flink 2.2.1 has an async twin only for row-time deduplication.
        assertKept(
                keepLast.replace("pt DESC", "rt DESC"),
                Map.of("table.exec.async-state.enabled", "true"),
                "AsyncStateRowTimeDeduplicateFunction",
                "async state");
        assertKept(
                keepLast.replace("sink", "upsert_sink"),
                Map.of("table.exec.deduplicate.insert-update-after-sensitive-enabled", "false"),
                "ProcTimeDeduplicateKeepLastRowFunction",
                "keeps no state");
    }

    private static void assertKept(
            String insert, Map<String, String> options, String flinkOperator, String reason) {
        SubstitutionOutcome dedup = deduplicationIn(insert, options);
        if (flinkOperator != null) {
            assertEquals(flinkOperator, dedup.flinkOperator(), dedup.toString());
        }
        assertNull(dedup.replacement(), dedup.toString());
        assertTrue(dedup.reason().contains(reason), dedup.toString());
    }

    /** What the layer decided for the deduplication of {@code insert}, explained, not run. */
    private static SubstitutionOutcome deduplicationIn(String insert, Map<String, String> options) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.getConfig().set(OperatorOptions.ENABLED, true);
        options.forEach(
                (key, value) -> tables.getConfig().getConfiguration().setString(key, value));
        tables.executeSql(
                "CREATE TEMPORARY TABLE src (k INT, v BIGINT, rt TIMESTAMP(3), pt AS PROCTIME(),"
                        + " WATERMARK FOR rt AS rt) WITH ('connector' = 'datagen')");
        for (String sink : List.of("sink", "upsert_sink")) {
            tables.executeSql(
                    "CREATE TEMPORARY TABLE "
                            + sink
                            + " (k INT, v BIGINT"
                            + (sink.equals("sink") ? "" : ", PRIMARY KEY (k) NOT ENFORCED")
                            + ") WITH ('connector' = '"
                            + CollectingSinkFactory.IDENTIFIER
                            + "', 'output' = 'explain'"
                            + (sink.equals("sink") ? "" : ", 'changelog-mode' = 'upsert'")
                            + ")");
        }
        SubstitutionReport report = StreamFusionOperators.explain(env, tables, insert);
        return report.outcomes().stream()
                .filter(outcome -> outcome.nodeName().startsWith("Deduplicate["))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no deduplication in " + report));
    }
}
