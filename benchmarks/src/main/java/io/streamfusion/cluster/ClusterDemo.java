package io.streamfusion.cluster;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What {@code bin/demo --cluster} runs: the keyed count job on a real multi-process cluster with
 * {@code state.backend.type: streamfusion}. It kills a TaskManager mid-run, then stops the job with
 * a savepoint, resumes it at another parallelism, and checks every key's count.
 */
public final class ClusterDemo {

    private static final long EVENTS = 40_000;
    private static final long KEYS = 1_000;

    private ClusterDemo() {}

    public static void main(String[] args) throws Exception {
        Path workDir =
                args.length > 0
                        ? Path.of(args[0])
                        : Files.createTempDirectory("streamfusion-cluster-demo-");
        Path output = Files.createDirectories(workDir.resolve("output"));
        System.out.println(
                "StreamFusion cluster demo: 1 JobManager and 2 TaskManager processes; files in "
                        + workDir);
        try (LocalFlinkCluster cluster =
                LocalFlinkCluster.start(
                        LocalFlinkCluster.settingsFromSystemProperties(workDir, 2, 2, Map.of()))) {
            StreamExecutionEnvironment env = cluster.environment(2, new Configuration());
            ClusterCountJob.build(env, EVENTS, KEYS, 2_000, output);
            JobClient job = env.executeAsync("streamfusion-cluster-demo");
            String id = job.getJobID().toHexString();
            awaitCheckpoints(cluster, id, 2);
            long killedAt = System.nanoTime();
            cluster.killTaskManager(0);
            cluster.startTaskManager();
            long before = cluster.completedCheckpoints(id);
            awaitCheckpoints(cluster, id, before + 1);
            System.out.printf(
                    "  killed TaskManager 0 (SIGKILL); next checkpoint completed after %d ms%n",
                    (System.nanoTime() - killedAt) / 1_000_000);
            String savepoint =
                    job.stopWithSavepoint(
                                    false,
                                    workDir.resolve("savepoints").toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get(2, TimeUnit.MINUTES);
            System.out.println("  stopped at parallelism 2 with a savepoint: " + savepoint);

            Configuration resume = new Configuration();
            resume.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            StreamExecutionEnvironment env2 = cluster.environment(3, resume);
            ClusterCountJob.build(env2, EVENTS, KEYS, 20_000, output);
            env2.execute("streamfusion-cluster-demo-resumed");
            System.out.println("  resumed at parallelism 3 and ran to the end");
        }
        Map<Long, String> wrong = ClusterCountJob.wrongCounts(output, EVENTS, KEYS);
        if (wrong.isEmpty()) {
            System.out.println(
                    "Result: all "
                            + KEYS
                            + " keys have exact counts after a TaskManager failure and a rescale.");
        } else {
            System.out.println(
                    "Result: WRONG counts for "
                            + wrong.size()
                            + " keys, e.g. "
                            + wrong.entrySet().iterator().next());
            System.exit(1);
        }
    }

    private static void awaitCheckpoints(LocalFlinkCluster cluster, String jobId, long target)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (cluster.completedCheckpoints(jobId) < target) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "No " + target + " completed checkpoints within 2 minutes");
            }
            Thread.sleep(100);
        }
    }
}
