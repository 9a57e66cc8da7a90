package io.streamfusion.cluster;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/** Starts clusters and submits jobs the way the cluster tests need, from failsafe's properties. */
final class ClusterTestSupport {

    private ClusterTestSupport() {}

    static LocalFlinkCluster start(Path dir, int taskManagers, int slots, Map<String, String> extraConfig) throws Exception {
        File plugin = new File(required("streamfusion.plugin.jar"));
        List<String> jvmOptions = Arrays.asList(required("streamfusion.jvm.opens").trim().split("\\s+"));
        return LocalFlinkCluster.start(new LocalFlinkCluster.Settings(
                dir,
                LocalFlinkCluster.clusterClassPath(System.getProperty("java.class.path"), plugin),
                jvmOptions,
                taskManagers,
                slots,
                "256m",
                extraConfig));
    }

    /** A client environment for the cluster, shipping the job classes in the benchmarks jar. */
    static StreamExecutionEnvironment environment(LocalFlinkCluster cluster, int parallelism, Configuration extra) {
        Configuration config = new Configuration(extra);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(500));
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createRemoteEnvironment("localhost", cluster.restPort(), config, required("streamfusion.job.jar"));
        env.setParallelism(parallelism);
        return env;
    }

    /** Waits, within {@code bound}, until {@code value} reaches {@code target}. */
    static void await(String what, LongSupplier value, long target, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (value.getAsLong() < target) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + " did not reach " + target + " within " + bound + " (now " + value.getAsLong() + ")");
            }
            Thread.sleep(100);
        }
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("System property " + property + " is not set; run with mvn -Pcluster-tests verify");
        }
        return value;
    }
}
