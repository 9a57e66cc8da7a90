package io.streamfusion.migration.operators;

import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.operators.OperatorOptions;
import io.streamfusion.operators.StreamFusionOperators;
import io.streamfusion.operators.batch.BatchAllocators;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every Arrow buffer of a columnar operator is released when its task ends, not only on success: a
 * cancelled job whose operator still holds an unfinished batch, and a job that fails while the
 * operator is emitting, leave no Arrow memory behind (the operators' allocators would also fail the
 * task on a buffer released twice or never).
 */
class ArrowMemoryReleaseTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(clusterConfig())
                            .build());

    @TempDir Path dir;

    private static Configuration clusterConfig() {
        Configuration config = new Configuration();
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("512m"));
        return config;
    }

    @Test
    void aCancelledJobReleasesTheBatchItHeld() throws Exception {
        String run = "cancelled-" + UUID.randomUUID();
        // Rows wait in the batch: it is neither full nor old enough to be processed.
        JobClient job = submit(run, 1_000, OperatorOptions.BATCH_LATENCY.key(), "1 h", -1);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (BatchAllocators.allocatedBytes() == 0) {
            assertTrue(System.nanoTime() < deadline, "the operator never held a batch");
            Thread.sleep(5);
        }
        job.cancel().get();
        while (!job.getJobStatus().get().isGloballyTerminalState()) {
            Thread.sleep(5);
        }
        assertEquals(
                0, BatchAllocators.allocatedBytes(), "Arrow bytes left after the cancelled job");
        ScriptedRows.forget(run);
    }

    @Test
    void aFailedJobReleasesEveryBuffer() throws Exception {
        String run = "failed-" + UUID.randomUUID();
        JobClient job = submit(run, Long.MAX_VALUE, OperatorOptions.BATCH_ROWS.key(), "16", 3);
        assertThrows(ExecutionException.class, () -> job.getJobExecutionResult().get());
        assertEquals(0, BatchAllocators.allocatedBytes(), "Arrow bytes left after the failed job");
        ScriptedRows.forget(run);
        CollectingSinkFactory.forget(run);
    }

    private JobClient submit(
            String run, long openRows, String optionKey, String optionValue, int sinkFailsAfter) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            rows.add(Row.of(i % 97, (long) i));
        }
        ScriptedRows.register(run, rows);
        ScriptedRows.openUntil(run, openRows);
        Configuration config = new Configuration();
        config.set(StateBackendOptions.STATE_BACKEND, "streamfusion");
        config.setString(
                StreamFusionOptions.LOCAL_DIRECTORIES.key(), dir.resolve("work").toString());
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(1);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.getConfig().set(OperatorOptions.ENABLED, true);
        tables.getConfig().getConfiguration().setString(optionKey, optionValue);
        StreamFusionOperators.install(tables);
        DataGeneratorSource<Row> source =
                new DataGeneratorSource<>(
                        new ScriptedRows.Generator(run),
                        rows.size(),
                        new ScriptedRows.Gate(run),
                        Types.ROW_NAMED(new String[] {"k", "v"}, Types.INT, Types.LONG));
        tables.createTemporaryView(
                "src", env.fromSource(source, WatermarkStrategy.noWatermarks(), "rows"));
        tables.executeSql(
                "CREATE TEMPORARY TABLE sink (k INT, v BIGINT) WITH ('connector' = '"
                        + CollectingSinkFactory.IDENTIFIER
                        + "', 'output' = '"
                        + run
                        + "', 'fail-after' = '"
                        + sinkFailsAfter
                        + "')");
        return tables.executeSql(
                        "INSERT INTO sink SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v"
                                + " ASC) AS rn FROM src) WHERE rn = 1")
                .getJobClient()
                .orElseThrow();
    }
}
