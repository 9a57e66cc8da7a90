package io.streamfusion.operators.rank;

import io.streamfusion.api.columnar.BinaryFieldType;
import io.streamfusion.api.columnar.SortField;
import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.substitution.ColumnarOrFlinkOperatorFactory;
import io.streamfusion.operators.substitution.NodeSubstitution;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.util.InstantiationUtil;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * The Top-1 substitution reads the ORDER BY off the planner's generated code: field positions,
 * directions and null placement, for the planner's real output, without running a job.
 */
class Top1SubstitutionTest {

    @Test
    void sortFieldsComeFromTheGeneratedComparator() throws Exception {
        NodeSubstitution.Decision decision =
                decide("ORDER BY v DESC NULLS FIRST, s ASC NULLS LAST, d ASC");
        Top1OperatorSpec spec = spec(decision);
        assertEquals(
                List.of(
                        new SortField(2, BinaryFieldType.DOUBLE, false, false),
                        new SortField(1, BinaryFieldType.BYTES, true, true),
                        new SortField(3, BinaryFieldType.COMPACT_DECIMAL, true, false)),
                spec.kernel().sortFields());
    }

    @Test
    void flinksDefaultNullPlacementIsKept() throws Exception {
        // Flink sorts nulls first when ascending and last when descending, unless told otherwise.
        assertEquals(
                List.of(new SortField(2, BinaryFieldType.DOUBLE, true, false)),
                spec(decide("ORDER BY v ASC")).kernel().sortFields());
        assertEquals(
                List.of(new SortField(2, BinaryFieldType.DOUBLE, false, true)),
                spec(decide("ORDER BY v DESC")).kernel().sortFields());
    }

    @Test
    void theReplacementFactoryTravelsWithTheJob() throws Exception {
        NodeSubstitution.Decision decision = decide("ORDER BY v DESC");
        ColumnarOrFlinkOperatorFactory copy =
                InstantiationUtil.clone(
                        (ColumnarOrFlinkOperatorFactory) decision.factory(),
                        Thread.currentThread().getContextClassLoader());
        assertEquals(
                decision.factory().getChainingStrategy(),
                copy.getChainingStrategy(),
                "the chaining strategy (and so the operator ids) stay Flink's");
    }

    private static Top1OperatorSpec spec(NodeSubstitution.Decision decision) throws Exception {
        assertInstanceOf(
                ColumnarOrFlinkOperatorFactory.class,
                decision.factory(),
                String.valueOf(decision.reason()));
        Object constructor =
                org.apache.flink.util.InstantiationUtil.clone(
                        (java.io.Serializable) readConstructor(decision.factory()),
                        Thread.currentThread().getContextClassLoader());
        return ((Top1RankOperatorConstructor) constructor).spec();
    }

    private static Object readConstructor(Object factory) throws Exception {
        java.lang.reflect.Field field =
                ColumnarOrFlinkOperatorFactory.class.getDeclaredField("columnarOperator");
        field.setAccessible(true);
        return field.get(factory);
    }

    private static NodeSubstitution.Decision decide(String orderBy) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql(
                "CREATE TEMPORARY TABLE src (k INT, s STRING, v DOUBLE, d DECIMAL(10, 2)) WITH ('connector' = 'datagen')");
        tables.executeSql(
                "CREATE TEMPORARY TABLE sink (k INT, s STRING, v DOUBLE, d DECIMAL(10, 2)) WITH ('connector' = 'blackhole')");
        StreamStatementSet statements = tables.createStatementSet();
        statements.addInsertSql(
                "INSERT INTO sink SELECT k, s, v, d FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
                        + orderBy
                        + ") AS rn FROM src) WHERE rn = 1");
        statements.attachAsDataStream();
        StreamGraph graph = env.getStreamGraph();
        Top1Substitution substitution = new Top1Substitution();
        StreamNode rank =
                graph.getStreamNodes().stream()
                        .filter(node -> substitution.recognize(node) != null)
                        .findFirst()
                        .orElseThrow();
        return substitution.decide(rank, OperatorConfig.from(new Configuration()));
    }
}
