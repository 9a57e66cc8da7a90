package io.streamfusion.cluster;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TaskManagers' StreamFusion working directory cannot be created (its parent is a file). The
 * job restarts, then fails with a message that names the directory and the option to change, and
 * checkpoint storage holds no partial checkpoint.
 */
class DiskTroubleClusterIT {

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void anUnusableLocalDirectoryFailsTheJobWithAClearMessage(@TempDir Path dir) throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("a-file"), "not a directory");
        Map<String, String> config =
                Map.of(
                        "state.backend.streamfusion.localdir",
                        notADirectory.resolve("state").toString(),
                        "restart-strategy.fixed-delay.attempts",
                        "2");
        try (LocalFlinkCluster cluster = ClusterTestSupport.start(dir, 1, 1, config)) {
            StreamExecutionEnvironment env = cluster.environment(1, new Configuration());
            ClusterCountJob.build(
                    env, 1_000, 10, 1_000, Files.createDirectories(dir.resolve("output")));
            JobClient job = env.executeAsync("streamfusion-disk-trouble");
            ExecutionException failure =
                    assertThrows(
                            ExecutionException.class,
                            () -> job.getJobExecutionResult().get(4, TimeUnit.MINUTES));
            String causes =
                    String.join(" | ", ExceptionUtils.stringifyException(failure).lines().toList());
            assertTrue(
                    causes.contains(
                            "Could not create the working directory "
                                    + notADirectory.resolve("state")),
                    causes);
            assertTrue(causes.contains("'state.backend.streamfusion.localdir'"), causes);
            assertEquals(List.of(), partialCheckpoints(cluster.checkpointDir()));
        }
    }

    /** Checkpoint directories without Flink's _metadata file, that is, not completed ones. */
    private static List<Path> partialCheckpoints(Path root) throws Exception {
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.filter(
                            p ->
                                    Files.isDirectory(p)
                                            && p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> !Files.exists(p.resolve("_metadata")))
                    .filter(
                            p -> {
                                try (Stream<Path> contents = Files.list(p)) {
                                    return contents.findAny().isPresent();
                                } catch (Exception e) {
                                    return true;
                                }
                            })
                    .toList();
        }
    }
}
