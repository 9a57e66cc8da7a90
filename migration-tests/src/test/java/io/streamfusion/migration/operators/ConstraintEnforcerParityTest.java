package io.streamfusion.migration.operators;

import io.streamfusion.migration.operators.ParityHarness.Failure;
import io.streamfusion.migration.operators.ParityHarness.Outcome;
import io.streamfusion.migration.operators.ParityHarness.Phase;
import io.streamfusion.migration.operators.ParityHarness.Shape;
import io.streamfusion.operators.OperatorOptions;
import io.streamfusion.operators.StreamFusionOperators;
import io.streamfusion.operators.sink.ConstraintEnforcerOperator;
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
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The columnar constraint enforcer against Flink's {@code ConstraintEnforcer}, in SQL jobs on a
 * MiniCluster: for every shape of {@link ConstraintShapes}, the layer on must produce the changelog
 * of the layer off record by record, straight through and across a checkpoint and restore; where
 * Flink's job fails, the layer's must fail with the same exception and message after the same
 * records.
 */
class ConstraintEnforcerParityTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = OperatorTestClusters.oneTaskManager(4, "1g");

    @TempDir Path dir;

    static List<Shape> shapes() {
        return ConstraintShapes.all();
    }

    static List<Shape> failing() {
        return ConstraintShapes.failing();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void theLayerReproducesFlinksChangelog(Shape shape, @InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        ParityHarness harness = new ParityHarness(miniCluster, dir);
        Outcome reference = harness.run(shape, List.of(Phase.toEnd(1, false)));
        harness.assertSameStraightAndRestored(shape, reference);
    }

    @Test
    void sinksWithoutLengthConstraintsOrWithNestedOnesKeepFlinksOperator() {
        assertKept(
                "k INT, s VARCHAR(3)",
                Map.of("table.exec.sink.type-length-enforcer", "TRIM_PAD"),
                ConstraintShapes.ENABLED + " is false");
        assertKept(
                "k INT NOT NULL, s STRING",
                Map.of(ConstraintShapes.ENABLED, "true"),
                "NOT NULL columns only");
        assertKept(
                "k INT, r ROW<x INT NOT NULL, y VARCHAR(3)>",
                Map.of(
                        ConstraintShapes.ENABLED,
                        "true",
                        "table.exec.sink.type-length-enforcer",
                        "TRIM_PAD",
                        "table.exec.sink.nested-constraint-enforcer",
                        "ROWS"),
                "NestedRowConstraint");
    }

    private static void assertKept(String sinkColumns, Map<String, String> options, String reason) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.getConfig().set(OperatorOptions.ENABLED, true);
        options.forEach(
                (key, value) -> tables.getConfig().getConfiguration().setString(key, value));
        tables.executeSql(
                "CREATE TEMPORARY TABLE src (k INT, s STRING) WITH ('connector' = 'datagen')");
        tables.executeSql(
                "CREATE TEMPORARY TABLE sink ("
                        + sinkColumns
                        + ") WITH ('connector' = '"
                        + CollectingSinkFactory.IDENTIFIER
                        + "', 'output' = 'explain')");
        String select =
                sinkColumns.contains("ROW<")
                        ? "SELECT k, ROW(k, s) FROM src"
                        : "SELECT k, s FROM src";
        SubstitutionReport report =
                StreamFusionOperators.explain(env, tables, "INSERT INTO sink " + select);
        SubstitutionOutcome kept =
                report.outcomes().stream()
                        .filter(outcome -> outcome.nodeName().startsWith("ConstraintEnforcer["))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no enforcer in " + report));
        assertNull(kept.replacement(), report.toString());
        assertTrue(kept.reason().contains(reason), report.toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failing")
    void theLayerFailsWhereFlinkFails(Shape shape, @InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        ParityHarness harness = new ParityHarness(miniCluster, dir);
        Failure reference = harness.runFailing(shape, false);
        Failure on = harness.runFailing(shape, true);
        assertEquals(
                reference.rootCause().getClass(),
                on.rootCause().getClass(),
                () -> shape + ": " + ExceptionUtils.stringifyException(on.rootCause()));
        assertEquals(reference.rootCause().getMessage(), on.rootCause().getMessage());
        assertEquals(
                reference.changelog().stream().map(Object::toString).toList(),
                on.changelog().stream().map(Object::toString).toList(),
                shape + ": the records before the failure");
        assertTrue(
                Arrays.stream(on.rootCause().getStackTrace())
                        .anyMatch(
                                frame ->
                                        frame.getClassName()
                                                .equals(
                                                        ConstraintEnforcerOperator.class
                                                                .getName())),
                shape + ": the columnar enforcer raised the failure: " + on.rootCause());
    }
}
