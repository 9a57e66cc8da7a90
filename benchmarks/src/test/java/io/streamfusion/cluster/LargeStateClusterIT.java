package io.streamfusion.cluster;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * About 3 GB of keyed state on two TaskManagers with 256 MiB of managed memory each: the job
 * completes with checkpoints, and each TaskManager's resident memory stays within the process size
 * Flink's memory model gives it.
 */
class LargeStateClusterIT {

    private static final long KEYS = 3_000_000;
    private static final int VALUE_BYTES = 1_000;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void stateManyTimesTheManagedMemoryStaysWithinTheProcessBudget(@TempDir Path dir)
            throws Exception {
        Path localState = dir.resolve("local-state");
        Map<String, String> config =
                Map.of("state.backend.streamfusion.localdir", localState.toString());
        try (LocalFlinkCluster cluster = ClusterTestSupport.start(dir, 2, 1, config)) {
            StreamExecutionEnvironment env = cluster.environment(2, new Configuration());
            LargeStateJob.build(env, KEYS, VALUE_BYTES);
            JobClient job = env.executeAsync("streamfusion-large-state");
            long[] peakRss = new long[2];
            long peakLocalState = 0;
            long peakCheckpoints = 0;
            for (int sample = 0; !job.getJobStatus().get().isTerminalState(); sample++) {
                for (int tm = 0; tm < 2; tm++) {
                    peakRss[tm] =
                            Math.max(
                                    peakRss[tm],
                                    ClusterTestSupport.residentBytes(cluster.taskManagerPid(tm)));
                }
                if (sample % 10 == 0) {
                    // Files come and go while they are walked; a failed walk just skips a sample.
                    peakLocalState = Math.max(peakLocalState, directoryBytes(localState));
                    peakCheckpoints =
                            Math.max(peakCheckpoints, directoryBytes(cluster.checkpointDir()));
                }
                Thread.sleep(200);
            }
            job.getJobExecutionResult().get(1, TimeUnit.MINUTES);
            System.out.printf(
                    "large state: %d keys x %d bytes; peak TaskManager RSS %d MiB and %d MiB (process size %d MiB,"
                            + " managed memory 256 MiB); peak local state %d MiB; peak checkpoint storage %d MiB;"
                            + " completed checkpoints %d%n",
                    KEYS,
                    VALUE_BYTES,
                    peakRss[0] >> 20,
                    peakRss[1] >> 20,
                    ClusterTestSupport.TASK_MANAGER_PROCESS_BYTES >> 20,
                    peakLocalState >> 20,
                    peakCheckpoints >> 20,
                    cluster.completedCheckpoints(job.getJobID().toHexString()));
            assertTrue(
                    peakLocalState > KEYS * VALUE_BYTES / 2,
                    "the state was on local disk: " + peakLocalState + " bytes");
            for (long rss : peakRss) {
                assertTrue(
                        rss > 0 && rss <= ClusterTestSupport.TASK_MANAGER_PROCESS_BYTES,
                        "peak resident memory " + (rss >> 20) + " MiB");
            }
        }
    }

    private static long directoryBytes(Path root) {
        if (!Files.exists(root)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        } catch (IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }
}
