package io.streamfusion.cluster;

import io.streamfusion.operators.OperatorOptions;
import io.streamfusion.operators.batch.BatchingOperator;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SQL submitted from the client side to a real session cluster, as a user would: a plain {@code
 * TableEnvironment} with {@code execution.target: streamfusion-remote} and {@code
 * streamfusion.operators.enabled: true}. The job's Top-1 runs as StreamFusion's columnar ranker on
 * the cluster, which has nothing but the plugin jar added to Flink's libraries.
 */
class OperatorsClusterIT {

    private static final long ROWS = 50_000;
    private static final long DISTINCT_KEYS = 10_000_000;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aTop1QueryRunsWithTheColumnarRankerOnTheCluster(@TempDir Path dir) throws Exception {
        try (LocalFlinkCluster cluster = ClusterTestSupport.start(dir, 1, 2, Map.of())) {
            Configuration config = new Configuration();
            config.set(
                    DeploymentOptions.TARGET, OperatorOptions.EXECUTION_TARGET_PREFIX + "remote");
            config.set(RestOptions.ADDRESS, "localhost");
            config.set(RestOptions.PORT, cluster.restPort());
            config.set(StateBackendOptions.STATE_BACKEND, "streamfusion");
            config.set(OperatorOptions.ENABLED, true);
            TableEnvironment tables =
                    TableEnvironment.create(
                            EnvironmentSettings.newInstance()
                                    .inStreamingMode()
                                    .withConfiguration(config)
                                    .build());
            tables.executeSql(
                    "CREATE TABLE src (k INT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '"
                            + ROWS
                            + "', 'fields.k.min' = '0', 'fields.k.max' = '999')");
            tables.executeSql(
                    "CREATE TABLE sink (k INT, v BIGINT) WITH ('connector' = 'blackhole')");
            JobExecutionResult result =
                    tables.executeSql(
                                    "INSERT INTO sink SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER"
                                            + " (PARTITION BY k ORDER BY v DESC) AS rn FROM src) WHERE rn = 1")
                            .getJobClient()
                            .orElseThrow()
                            .getJobExecutionResult()
                            .get(4, TimeUnit.MINUTES);
            long columnarRows =
                    result.getAllAccumulatorResults().entrySet().stream()
                            .filter(
                                    entry ->
                                            entry.getKey()
                                                    .startsWith(BatchingOperator.ROWS_ACCUMULATOR))
                            .mapToLong(entry -> ((Number) entry.getValue()).longValue())
                            .sum();
            assertEquals(
                    ROWS,
                    columnarRows,
                    "rows the columnar ranker processed: " + result.getAllAccumulatorResults());
        }
    }

    /**
     * Ten million distinct keys through the columnar ranker on a TaskManager with 256 MiB of
     * managed memory: every key's winner goes to disk, the ranker's cache and batches stay within
     * their reservation, and the process's resident memory within the size Flink's memory model
     * gives it.
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void tenMillionDistinctKeysStayWithinTheMemoryBudget(@TempDir Path dir) throws Exception {
        try (LocalFlinkCluster cluster = ClusterTestSupport.start(dir, 1, 1, Map.of())) {
            TableEnvironment tables = tables(cluster);
            tables.executeSql(
                    "CREATE TABLE src (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', 'fields.k.kind' ="
                            + " 'sequence', 'fields.k.start' = '0', 'fields.k.end' = '"
                            + (DISTINCT_KEYS - 1)
                            + "', 'rows-per-second' = '100000000')");
            tables.executeSql(
                    "CREATE TABLE sink (k BIGINT, v BIGINT) WITH ('connector' = 'blackhole')");
            JobClient job =
                    tables.executeSql(
                                    "INSERT INTO sink SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER"
                                            + " (PARTITION BY k ORDER BY v DESC) AS rn FROM src) WHERE rn = 1")
                            .getJobClient()
                            .orElseThrow();
            long peakRss = 0;
            while (!job.getJobStatus().get().isTerminalState()) {
                peakRss =
                        Math.max(
                                peakRss,
                                ClusterTestSupport.residentBytes(cluster.taskManagerPid(0)));
                Thread.sleep(200);
            }
            JobExecutionResult result = job.getJobExecutionResult().get(1, TimeUnit.MINUTES);
            System.out.printf(
                    "columnar Top-1, %d distinct keys: peak TaskManager RSS %d MiB (process size %d MiB,"
                            + " managed memory 256 MiB), %s%n",
                    DISTINCT_KEYS,
                    peakRss >> 20,
                    ClusterTestSupport.TASK_MANAGER_PROCESS_BYTES >> 20,
                    result.getAllAccumulatorResults());
            assertEquals(DISTINCT_KEYS, columnarRows(result));
            assertTrue(
                    peakRss > 0 && peakRss <= ClusterTestSupport.TASK_MANAGER_PROCESS_BYTES,
                    "peak resident memory " + (peakRss >> 20) + " MiB");
        }
    }

    /** A client-side Table environment for the cluster, as a user configures one. */
    private static TableEnvironment tables(LocalFlinkCluster cluster) {
        Configuration config = new Configuration();
        config.set(DeploymentOptions.TARGET, OperatorOptions.EXECUTION_TARGET_PREFIX + "remote");
        config.set(RestOptions.ADDRESS, "localhost");
        config.set(RestOptions.PORT, cluster.restPort());
        config.set(StateBackendOptions.STATE_BACKEND, "streamfusion");
        config.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        config.set(OperatorOptions.ENABLED, true);
        return TableEnvironment.create(
                EnvironmentSettings.newInstance()
                        .inStreamingMode()
                        .withConfiguration(config)
                        .build());
    }

    private static long columnarRows(JobExecutionResult result) {
        return result.getAllAccumulatorResults().entrySet().stream()
                .filter(entry -> entry.getKey().startsWith(BatchingOperator.ROWS_ACCUMULATOR))
                .mapToLong(entry -> ((Number) entry.getValue()).longValue())
                .sum();
    }
}
