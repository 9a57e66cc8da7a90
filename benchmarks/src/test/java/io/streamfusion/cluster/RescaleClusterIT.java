package io.streamfusion.cluster;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The keyed job is stopped with a savepoint and restarted at parallelism 1 -> 3 -> 2 on a real
 * cluster, through a canonical and then a native savepoint. Every key's count is exact.
 */
class RescaleClusterIT {

    private static final long EVENTS = 24_000;
    private static final long KEYS = 300;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void rescalingThroughSavepointsKeepsEveryCountExact(@TempDir Path dir) throws Exception {
        Path output = Files.createDirectories(dir.resolve("output"));
        Path savepoints = Files.createDirectories(dir.resolve("savepoints"));
        try (LocalFlinkCluster cluster = ClusterTestSupport.start(dir, 2, 2, Map.of())) {
            String savepoint =
                    runUntilSavepoint(
                            cluster, 1, null, output, savepoints, SavepointFormatType.CANONICAL);
            savepoint =
                    runUntilSavepoint(
                            cluster, 3, savepoint, output, savepoints, SavepointFormatType.NATIVE);
            JobClient last = submit(cluster, 2, savepoint, output);
            last.getJobExecutionResult().get(4, TimeUnit.MINUTES);
            assertEquals(Map.of(), ClusterCountJob.wrongCounts(output, EVENTS, KEYS));
        }
    }

    private static String runUntilSavepoint(
            LocalFlinkCluster cluster,
            int parallelism,
            String restoreFrom,
            Path output,
            Path savepoints,
            SavepointFormatType format)
            throws Exception {
        JobClient job = submit(cluster, parallelism, restoreFrom, output);
        String id = job.getJobID().toHexString();
        ClusterTestSupport.await(
                "completed checkpoints",
                () -> cluster.completedCheckpoints(id),
                2,
                Duration.ofMinutes(2));
        return job.stopWithSavepoint(false, savepoints.toUri().toString(), format)
                .get(2, TimeUnit.MINUTES);
    }

    private static JobClient submit(
            LocalFlinkCluster cluster, int parallelism, String restoreFrom, Path output)
            throws Exception {
        Configuration config = new Configuration();
        if (restoreFrom != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom);
        }
        StreamExecutionEnvironment env = cluster.environment(parallelism, config);
        ClusterCountJob.build(env, EVENTS, KEYS, 1_200, output);
        return env.executeAsync("streamfusion-rescale-p" + parallelism);
    }
}
