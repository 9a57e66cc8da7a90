package io.streamfusion.operators;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

import java.time.Duration;

/**
 * Options of StreamFusion's columnar operators, all under {@code streamfusion.operators.*}. They
 * are read from the job's configuration: the table config ({@code SET} in the SQL client, {@code
 * TableConfig} in a program) or the Flink configuration. docs/operators.md and
 * docs/configuration.md list them with their defaults.
 */
public final class OperatorOptions {

    /** Prefix shared by every option of the operator layer. */
    public static final String PREFIX = "streamfusion.operators.";

    /**
     * The value of {@code execution.target} that rewrites a job before a given executor submits it:
     * {@code streamfusion-local}, {@code streamfusion-remote}, and so on.
     */
    public static final String EXECUTION_TARGET_PREFIX = "streamfusion-";

    public static final ConfigOption<Boolean> ENABLED =
            ConfigOptions.key(PREFIX + "enabled")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Whether the SQL operators StreamFusion supports are replaced by its"
                                    + " columnar operators when the job is submitted. Takes effect"
                                    + " through the execution target 'streamfusion-<target>' or"
                                    + " StreamFusionOperators.install, and only where the job's state"
                                    + " backend is StreamFusion.");

    public static final ConfigOption<Integer> BATCH_ROWS =
            ConfigOptions.key(PREFIX + "batch-rows")
                    .intType()
                    .defaultValue(4096)
                    .withDescription(
                            "The most rows a columnar operator gathers into one Arrow batch before"
                                    + " it processes them. Must be positive.");

    public static final ConfigOption<Duration> BATCH_LATENCY =
            ConfigOptions.key(PREFIX + "batch-latency")
                    .durationType()
                    .defaultValue(Duration.ofMillis(50))
                    .withDescription(
                            "The longest a row waits in an unfinished batch; the batch is"
                                    + " processed when it is this old, even if it is not full. Batches"
                                    + " are also processed before every watermark, before every"
                                    + " checkpoint barrier and at the end of input. Must be positive.");

    public static final ConfigOption<MemorySize> CACHE_SIZE =
            ConfigOptions.key(PREFIX + "cache-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("32mb"))
                    .withDescription(
                            "Bytes of the slot's state memory budget each columnar operator instance"
                                    + " reserves for its cache of hot state (Top-1 and deduplication rows, aggregate"
                                    + " accumulators, upsert candidate lists)."
                                    + " RocksDB's block cache is smaller by as much. 0 disables it.");

    public static final ConfigOption<MemorySize> BATCH_MEMORY =
            ConfigOptions.key(PREFIX + "batch-memory")
                    .memoryType()
                    .defaultValue(MemorySize.parse("4mb"))
                    .withDescription(
                            "The most memory one columnar operator instance's Arrow batches may"
                                    + " take. Reserved from the slot's state memory budget too. A batch"
                                    + " is processed early rather than grow past half of it.");

    public static final ConfigOption<Boolean> SINK_CONSTRAINTS =
            ConfigOptions.key(PREFIX + "sink-constraints.enabled")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Replace Flink's sink constraint enforcer, where the sink has length"
                                    + " constraints, with the columnar one. Off by default: in a job"
                                    + " whose rows come from Flink's own operators it measures at"
                                    + " parity with Flink's (0.93x to 1.04x), not faster.");

    private OperatorOptions() {}
}
