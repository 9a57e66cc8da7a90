package io.streamfusion.migration.operators;

import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.operators.OperatorOptions;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code StreamTableEnvironment} program on a MiniCluster, switched to the columnar operators
 * with configuration only, as docs/operators.md tells users: {@code execution.target:
 * streamfusion-local} and {@code streamfusion.operators.enabled: true}. The job's output equals the
 * same program's with the layer off.
 */
class ExecutionTargetTest {

    private static final int ROWS = 2_000;

    @TempDir Path dir;

    @Test
    void theExecutionTargetRewritesATableProgram() throws Exception {
        Run off = run(false);
        Run on = run(true);
        assertEquals(0, off.columnarRows());
        assertEquals(ROWS, on.columnarRows(), "every row went through the columnar ranker");
        assertTrue(!off.changelog().isEmpty());
        assertEquals(off.changelog(), on.changelog());
    }

    private record Run(List<String> changelog, long columnarRows) {}

    private Run run(boolean layer) throws Exception {
        String run = "target-" + layer + "-" + UUID.randomUUID();
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            rows.add(Row.of(i % 31, (long) ((i * 7919) % 1009), i));
        }
        ScriptedRows.register(run, rows);
        ScriptedRows.openUntil(run, Long.MAX_VALUE);
        try {
            Configuration config = new Configuration();
            config.set(StateBackendOptions.STATE_BACKEND, "streamfusion");
            config.setString(
                    StreamFusionOptions.LOCAL_DIRECTORIES.key(), dir.resolve("work").toString());
            config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("256m"));
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(config);
            env.setParallelism(1);
            StreamTableEnvironment tables = StreamTableEnvironment.create(env);
            // The two lines a user adds (SET in the SQL client, or the table config).
            tables.getConfig()
                    .getConfiguration()
                    .setString("execution.target", "streamfusion-local");
            tables.getConfig().set(OperatorOptions.ENABLED, layer);
            DataGeneratorSource<Row> source =
                    new DataGeneratorSource<>(
                            new ScriptedRows.Generator(run),
                            ROWS,
                            new ScriptedRows.Gate(run),
                            Types.ROW_NAMED(
                                    new String[] {"k", "v", "p"},
                                    Types.INT,
                                    Types.LONG,
                                    Types.INT));
            tables.createTemporaryView(
                    "src", env.fromSource(source, WatermarkStrategy.noWatermarks(), "rows"));
            tables.executeSql(
                    "CREATE TEMPORARY TABLE sink (k INT, v BIGINT, p INT) WITH ('connector' = '"
                            + CollectingSinkFactory.IDENTIFIER
                            + "', 'output' = '"
                            + run
                            + "')");
            JobExecutionResult result =
                    tables.executeSql(
                                    "INSERT INTO sink SELECT k, v, p FROM (SELECT *, ROW_NUMBER() OVER"
                                            + " (PARTITION BY k ORDER BY v DESC) AS rn FROM src) WHERE rn = 1")
                            .getJobClient()
                            .orElseThrow()
                            .getJobExecutionResult()
                            .get();
            List<String> changelog = new ArrayList<>();
            CollectingSinkFactory.collected(run).forEach(row -> changelog.add(row.toString()));
            return new Run(
                    changelog, ParityHarness.columnarRows(result.getAllAccumulatorResults()));
        } finally {
            ScriptedRows.forget(run);
            CollectingSinkFactory.forget(run);
        }
    }
}
