package io.streamfusion.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.LongSupplier;

/** Starts clusters from failsafe's system properties, and waits for what the tests expect. */
final class ClusterTestSupport {

    private ClusterTestSupport() {}

    static LocalFlinkCluster start(
            Path dir, int taskManagers, int slots, Map<String, String> extraConfig)
            throws Exception {
        return LocalFlinkCluster.start(
                LocalFlinkCluster.settingsFromSystemProperties(
                        dir, taskManagers, slots, extraConfig));
    }

    /** Waits, within {@code bound}, until {@code value} reaches {@code target}. */
    static void await(String what, LongSupplier value, long target, Duration bound)
            throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (value.getAsLong() < target) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        what
                                + " did not reach "
                                + target
                                + " within "
                                + bound
                                + " (now "
                                + value.getAsLong()
                                + ")");
            }
            Thread.sleep(100);
        }
    }
}
