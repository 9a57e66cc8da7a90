package io.streamfusion.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.LongSupplier;

/** Starts clusters from failsafe's system properties, and waits for what the tests expect. */
final class ClusterTestSupport {

    /** The TaskManager process size of LocalFlinkCluster's memory settings, in bytes. */
    static final long TASK_MANAGER_PROCESS_BYTES =
            (128 + 384 + 256 + 64 + 128 + 256 + 192) * 1024L * 1024L;

    private ClusterTestSupport() {}

    /** The resident memory of process {@code pid}, or 0 if it is gone. */
    static long residentBytes(long pid) throws IOException {
        Path status = Path.of("/proc", Long.toString(pid), "status");
        if (!Files.exists(status)) {
            return 0;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return 0;
    }

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
