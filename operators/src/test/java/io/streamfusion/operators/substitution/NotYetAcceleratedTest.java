package io.streamfusion.operators.substitution;

import io.streamfusion.operators.OperatorConfig;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Stateful operators without a columnar twin are named in the report, window operators too. */
class NotYetAcceleratedTest {

    @Test
    void windowOperatorsAreReportedAsKept() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql(
                "CREATE TEMPORARY TABLE src (k INT, v BIGINT, rt TIMESTAMP(3), WATERMARK FOR rt AS rt)"
                        + " WITH ('connector' = 'datagen')");
        tables.executeSql(
                "CREATE TEMPORARY TABLE sink (k INT, v BIGINT) WITH ('connector' = 'blackhole')");
        StreamStatementSet statements = tables.createStatementSet();
        statements.addInsertSql(
                "INSERT INTO sink SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY"
                        + " window_start, window_end, k ORDER BY rt DESC) AS rn FROM TABLE(TUMBLE("
                        + "TABLE src, DESCRIPTOR(rt), INTERVAL '1' MINUTE))) WHERE rn = 1");
        statements.addInsertSql(
                "INSERT INTO sink SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY rt ROWS BETWEEN"
                        + " 2 PRECEDING AND CURRENT ROW) FROM src");
        statements.attachAsDataStream();
        StreamGraph graph = env.getStreamGraph();
        NotYetAccelerated family = new NotYetAccelerated();
        List<StreamNode> recognized =
                graph.getStreamNodes().stream()
                        .filter(node -> family.recognize(node) != null)
                        .collect(Collectors.toList());
        assertEquals(
                List.of("OverAggregate", "WindowDeduplicate"),
                recognized.stream().map(family::recognize).sorted().collect(Collectors.toList()),
                graph.getStreamNodes().toString());
        for (StreamNode node : recognized) {
            String reason = family.decide(node, OperatorConfig.from(new Configuration())).reason();
            assertTrue(reason.contains("no columnar operator"), reason);
        }
    }
}
