package io.streamfusion.cluster;

import io.streamfusion.operators.OperatorOptions;
import io.streamfusion.operators.batch.BatchingKeyedOperator;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * SQL submitted from the client side to a real session cluster, as a user would: a plain {@code
 * TableEnvironment} with {@code execution.target: streamfusion-remote} and {@code
 * streamfusion.operators.enabled: true}. The job's Top-1 runs as StreamFusion's columnar ranker on
 * the cluster, which has nothing but the plugin jar added to Flink's libraries.
 */
class OperatorsClusterIT {

    private static final long ROWS = 50_000;

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
                                                    .startsWith(
                                                            BatchingKeyedOperator.ROWS_ACCUMULATOR))
                            .mapToLong(entry -> ((Number) entry.getValue()).longValue())
                            .sum();
            assertEquals(
                    ROWS,
                    columnarRows,
                    "rows the columnar ranker processed: " + result.getAllAccumulatorResults());
        }
    }
}
