package io.streamfusion.cluster;

import io.streamfusion.backend.StreamFusionKeyedStateBackend;
import io.streamfusion.demo.CountPerKeyOperator;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A TaskManager process is killed with SIGKILL while a keyed job on StreamFusion runs. The job
 * recovers from its last checkpoint on a replacement TaskManager, and every key's count is exactly
 * its number of events.
 */
class FailoverClusterIT {

    private static final long EVENTS = 30_000;
    private static final long KEYS = 500;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aKilledTaskManagerRecoversFromTheLastCheckpointExactly(@TempDir Path dir)
            throws Exception {
        Path output = Files.createDirectories(dir.resolve("output"));
        // One slot per TaskManager: each holds one of the two subtasks, so the kill hits the job.
        try (LocalFlinkCluster cluster = ClusterTestSupport.start(dir, 2, 1, Map.of())) {
            StreamExecutionEnvironment env = cluster.environment(2, new Configuration());
            ClusterCountJob.build(env, EVENTS, KEYS, 1_500, output);
            JobClient job = env.executeAsync("streamfusion-failover");
            String id = job.getJobID().toHexString();
            ClusterTestSupport.await(
                    "completed checkpoints",
                    () -> cluster.completedCheckpoints(id),
                    3,
                    Duration.ofMinutes(2));
            long before = cluster.completedCheckpoints(id);

            long killedAt = System.nanoTime();
            cluster.killTaskManager(0);
            cluster.startTaskManager();
            ClusterTestSupport.await(
                    "checkpoints after the recovery",
                    () -> cluster.completedCheckpoints(id),
                    before + 1,
                    Duration.ofMinutes(2));
            long recoveryMillis = (System.nanoTime() - killedAt) / 1_000_000;

            JobExecutionResult result = job.getJobExecutionResult().get(4, TimeUnit.MINUTES);
            List<String> backends =
                    result.getAccumulatorResult(CountPerKeyOperator.BACKEND_CLASSES);
            assertEquals(StreamFusionKeyedStateBackend.class.getName(), backends.get(0));
            assertEquals(Map.of(), ClusterCountJob.wrongCounts(output, EVENTS, KEYS));
            System.out.printf(
                    "failover: kill to next completed checkpoint %d ms; checkpoints completed %d%n",
                    recoveryMillis, cluster.completedCheckpoints(id));
        }
    }
}
