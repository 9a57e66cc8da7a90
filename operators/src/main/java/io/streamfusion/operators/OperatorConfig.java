package io.streamfusion.operators;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.ReadableConfig;

import java.io.Serializable;
import java.time.Duration;

/**
 * The validated {@link OperatorOptions} of one job, carried by every columnar operator it runs.
 *
 * @param batchRows rows per batch at most
 * @param batchLatencyMillis the longest a row waits in an unfinished batch
 * @param cacheBytes the state cache each operator instance reserves
 * @param batchMemoryBytes the Arrow memory each operator instance may use
 * @param sinkConstraints whether the sink constraint enforcer is replaced
 */
public record OperatorConfig(
        int batchRows,
        long batchLatencyMillis,
        long cacheBytes,
        long batchMemoryBytes,
        boolean sinkConstraints)
        implements Serializable {

    /** Below this, a batch of a few wide rows would not fit. */
    static final long MIN_BATCH_MEMORY_BYTES = 1 << 20;

    /** Reads and checks the options; a bad value names the option and what it accepts. */
    public static OperatorConfig from(ReadableConfig config) {
        int rows = config.get(OperatorOptions.BATCH_ROWS);
        require(rows > 0, OperatorOptions.BATCH_ROWS, rows, "a positive whole number");
        Duration latency = config.get(OperatorOptions.BATCH_LATENCY);
        require(
                !latency.isNegative() && !latency.isZero(),
                OperatorOptions.BATCH_LATENCY,
                latency,
                "a positive duration, such as 50 ms");
        long cache = config.get(OperatorOptions.CACHE_SIZE).getBytes();
        long batches = config.get(OperatorOptions.BATCH_MEMORY).getBytes();
        require(
                batches >= MIN_BATCH_MEMORY_BYTES,
                OperatorOptions.BATCH_MEMORY,
                config.get(OperatorOptions.BATCH_MEMORY),
                "a memory size of at least 1mb");
        return new OperatorConfig(
                rows,
                latency.toMillis(),
                cache,
                batches,
                config.get(OperatorOptions.SINK_CONSTRAINTS));
    }

    private static void require(boolean ok, ConfigOption<?> option, Object value, String accepted) {
        if (!ok) {
            throw new IllegalConfigurationException(
                    "Invalid value '"
                            + value
                            + "' for '"
                            + option.key()
                            + "': use "
                            + accepted
                            + ".");
        }
    }
}
