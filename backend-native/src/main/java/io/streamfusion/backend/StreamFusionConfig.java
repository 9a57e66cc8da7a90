package io.streamfusion.backend;

import io.streamfusion.api.PriorityQueueStateType;
import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.backend.ttl.TtlCompactionSettings;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

import javax.annotation.Nullable;

import java.io.File;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The validated settings of a StreamFusion backend. Built once from configuration; every bad value
 * is reported with the option's key and the values it accepts.
 */
public final class StreamFusionConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final String MIN_FIXED_MEMORY_TEXT = "1mb";
    private static final String MIN_CACHE_TEXT = "1mb";
    private static final String MIN_WRITE_BUFFER_TEXT = "64kb";

    private final List<String> localDirectories;
    @Nullable private final MemorySize fixedMemoryPerSlot;
    private final double writeBufferRatio;
    private final MemorySize writeBufferSize;
    private final MemorySize writeBackSize;
    private final PriorityQueueStateType timerService;
    private final int timerCacheSize;
    private final boolean cacheEnabled;

    /** The decoded-value cache's size, or null for its share of each slot's budget. */
    @Nullable private final MemorySize cacheSize;

    private final List<String> cacheExcludedStates;
    private final boolean incrementalCheckpoints;
    private final TtlCompactionSettings ttlCompaction;

    private StreamFusionConfig(
            List<String> localDirectories,
            @Nullable MemorySize fixedMemoryPerSlot,
            double writeBufferRatio,
            MemorySize writeBufferSize,
            MemorySize writeBackSize,
            PriorityQueueStateType timerService,
            int timerCacheSize,
            boolean cacheEnabled,
            @Nullable MemorySize cacheSize,
            List<String> cacheExcludedStates,
            boolean incrementalCheckpoints,
            TtlCompactionSettings ttlCompaction) {
        this.localDirectories = Collections.unmodifiableList(new ArrayList<>(localDirectories));
        this.fixedMemoryPerSlot = fixedMemoryPerSlot;
        this.writeBufferRatio = writeBufferRatio;
        this.writeBufferSize = writeBufferSize;
        this.writeBackSize = writeBackSize;
        this.timerService = timerService;
        this.timerCacheSize = timerCacheSize;
        this.cacheEnabled = cacheEnabled;
        this.cacheSize = cacheSize;
        this.cacheExcludedStates =
                Collections.unmodifiableList(new ArrayList<>(cacheExcludedStates));
        this.incrementalCheckpoints = incrementalCheckpoints;
        this.ttlCompaction = ttlCompaction;
    }

    /** The defaults of every option. */
    public static StreamFusionConfig defaults() {
        return new StreamFusionConfig(
                Collections.emptyList(),
                null,
                StreamFusionOptions.WRITE_BUFFER_RATIO.defaultValue(),
                StreamFusionOptions.WRITE_BUFFER_SIZE.defaultValue(),
                StreamFusionOptions.WRITE_BACK_SIZE.defaultValue(),
                StreamFusionOptions.TIMER_SERVICE_FACTORY.defaultValue(),
                StreamFusionOptions.TIMER_SERVICE_CACHE_SIZE.defaultValue(),
                StreamFusionOptions.CACHE_ENABLED.defaultValue(),
                null,
                StreamFusionOptions.CACHE_EXCLUDED_STATES.defaultValue(),
                // Incremental unless the job says otherwise, although Flink's switch defaults to
                // false: uploading only new SST files is what a disk-based backend is for.
                true,
                new TtlCompactionSettings(
                        StreamFusionOptions.TTL_COMPACTION_FILTER_ENABLED.defaultValue(),
                        StreamFusionOptions.TTL_QUERY_TIME_AFTER_NUM_ENTRIES.defaultValue(),
                        StreamFusionOptions.TTL_PERIODIC_COMPACTION_TIME.defaultValue()));
    }

    /** Reads and validates every option, falling back to {@code base} for unset ones. */
    public static StreamFusionConfig from(ReadableConfig config, StreamFusionConfig base) {
        String directories = "a ';'-separated list of absolute directory paths (or file: URIs)";
        List<String> dirs =
                read(
                        config,
                        StreamFusionOptions.LOCAL_DIRECTORIES,
                        base.localDirectories,
                        directories);
        for (String dir : dirs) {
            check(
                    new File(localPath(dir)).isAbsolute(),
                    StreamFusionOptions.LOCAL_DIRECTORIES,
                    "'" + dir + "' is not an absolute path",
                    directories + ", or no value");
        }
        MemorySize fixed =
                atLeast(
                        config,
                        StreamFusionOptions.FIXED_MEMORY_PER_SLOT,
                        base.fixedMemoryPerSlot,
                        MIN_FIXED_MEMORY_TEXT);
        String ratioRange = "a number strictly between 0 and 1, such as 0.5";
        double ratio =
                read(
                        config,
                        StreamFusionOptions.WRITE_BUFFER_RATIO,
                        base.writeBufferRatio,
                        ratioRange);
        check(ratio > 0 && ratio < 1, StreamFusionOptions.WRITE_BUFFER_RATIO, ratio, ratioRange);
        MemorySize writeBufferSize =
                atLeast(
                        config,
                        StreamFusionOptions.WRITE_BUFFER_SIZE,
                        base.writeBufferSize,
                        MIN_WRITE_BUFFER_TEXT);
        MemorySize writeBackSize =
                read(
                        config,
                        StreamFusionOptions.WRITE_BACK_SIZE,
                        base.writeBackSize,
                        "a memory size such as '4mb', or 0 to write every update through at once");
        PriorityQueueStateType timers =
                read(
                        config,
                        StreamFusionOptions.TIMER_SERVICE_FACTORY,
                        base.timerService,
                        "NATIVE or HEAP");
        String positive = "a positive whole number";
        int timerCache =
                read(
                        config,
                        StreamFusionOptions.TIMER_SERVICE_CACHE_SIZE,
                        base.timerCacheSize,
                        positive);
        check(timerCache > 0, StreamFusionOptions.TIMER_SERVICE_CACHE_SIZE, timerCache, positive);
        boolean cacheEnabled =
                read(config, StreamFusionOptions.CACHE_ENABLED, base.cacheEnabled, "true or false");
        MemorySize cacheSize =
                atLeast(config, StreamFusionOptions.CACHE_SIZE, base.cacheSize, MIN_CACHE_TEXT);
        List<String> excluded =
                read(
                        config,
                        StreamFusionOptions.CACHE_EXCLUDED_STATES,
                        base.cacheExcludedStates,
                        "a ';'-separated list of state names");
        boolean incremental =
                read(
                        config,
                        CheckpointingOptions.INCREMENTAL_CHECKPOINTS,
                        base.incrementalCheckpoints,
                        "true or false");
        return new StreamFusionConfig(
                dirs,
                fixed,
                ratio,
                writeBufferSize,
                writeBackSize,
                timers,
                timerCache,
                cacheEnabled,
                cacheSize,
                excluded,
                incremental,
                ttlCompaction(config, base.ttlCompaction));
    }

    private static TtlCompactionSettings ttlCompaction(
            ReadableConfig config, TtlCompactionSettings base) {
        boolean enabled =
                read(
                        config,
                        StreamFusionOptions.TTL_COMPACTION_FILTER_ENABLED,
                        base.enabled(),
                        "true or false");
        String positive = "a positive whole number";
        long queryAfter =
                read(
                        config,
                        StreamFusionOptions.TTL_QUERY_TIME_AFTER_NUM_ENTRIES,
                        base.queryTimeAfterEntries(),
                        positive);
        check(
                queryAfter > 0,
                StreamFusionOptions.TTL_QUERY_TIME_AFTER_NUM_ENTRIES,
                queryAfter,
                positive);
        String duration =
                "a duration such as '30 d' or '12 h', or 0 to switch periodic compaction off";
        Duration periodic =
                read(
                        config,
                        StreamFusionOptions.TTL_PERIODIC_COMPACTION_TIME,
                        base.periodicCompaction(),
                        duration);
        check(
                !periodic.isNegative(),
                StreamFusionOptions.TTL_PERIODIC_COMPACTION_TIME,
                periodic,
                duration);
        return new TtlCompactionSettings(enabled, queryAfter, periodic);
    }

    /** A memory-size option of at least {@code minText}; null only if unset without a fallback. */
    @Nullable
    private static MemorySize atLeast(
            ReadableConfig config,
            ConfigOption<MemorySize> option,
            @Nullable MemorySize fallback,
            String minText) {
        MemorySize value =
                read(
                        config,
                        option,
                        fallback,
                        "a memory size such as '256mb' of at least " + minText);
        if (value != null) {
            check(
                    value.compareTo(MemorySize.parse(minText)) >= 0,
                    option,
                    value.toHumanReadableString(),
                    "a memory size of at least " + minText);
        }
        return value;
    }

    /**
     * The option's value, or {@code fallback}; an unparsable value names the option and what it
     * accepts.
     */
    private static <T> T read(
            ReadableConfig config, ConfigOption<T> option, T fallback, String accepts) {
        try {
            return config.getOptional(option).orElse(fallback);
        } catch (IllegalArgumentException e) {
            throw invalid(option, e.getMessage(), accepts, e);
        }
    }

    private static void check(boolean valid, ConfigOption<?> option, Object value, String accepts) {
        if (!valid) {
            throw invalid(option, value, accepts, null);
        }
    }

    private static IllegalConfigurationException invalid(
            ConfigOption<?> option, Object problem, String accepts, @Nullable Throwable cause) {
        return new IllegalConfigurationException(
                "Invalid value for '"
                        + option.key()
                        + "': "
                        + problem
                        + ". It accepts "
                        + accepts
                        + ".",
                cause);
    }

    /**
     * A configured directory as a local path; {@code file:} URIs are accepted, as Flink's RocksDB
     * backend does.
     */
    private static String localPath(String configured) {
        String trimmed = configured.trim();
        return trimmed.startsWith("file:") ? java.net.URI.create(trimmed).getPath() : trimmed;
    }

    /** Configured working directories; empty means the TaskManager's temporary directories. */
    public List<String> localDirectories() {
        return localDirectories;
    }

    public List<File> localDirectoriesOr(File[] fallback) {
        List<File> result = new ArrayList<>();
        if (localDirectories.isEmpty()) {
            Collections.addAll(result, fallback);
        } else {
            for (String dir : localDirectories) {
                result.add(new File(localPath(dir)));
            }
        }
        return result;
    }

    /** The fixed budget per slot, or null to use the slot's managed memory. */
    @Nullable
    public MemorySize fixedMemoryPerSlot() {
        return fixedMemoryPerSlot;
    }

    public double writeBufferRatio() {
        return writeBufferRatio;
    }

    /** The size of one memtable. */
    public MemorySize writeBufferSize() {
        return writeBufferSize;
    }

    /** Bytes of point writes each keyed backend holds back; 0 holds none. */
    public MemorySize writeBackSize() {
        return writeBackSize;
    }

    public PriorityQueueStateType timerService() {
        return timerService;
    }

    public int timerCacheSize() {
        return timerCacheSize;
    }

    public boolean cacheEnabled() {
        return cacheEnabled;
    }

    /** The configured size of the decoded-value cache, or null: a share of the slot budget. */
    @Nullable
    public MemorySize cacheSize() {
        return cacheSize;
    }

    /**
     * Incremental checkpoints, or full native ones when Flink's incremental switch is set to false.
     */
    public boolean incrementalCheckpoints() {
        return incrementalCheckpoints;
    }

    public TtlCompactionSettings ttlCompaction() {
        return ttlCompaction;
    }

    /** Whether a value state of this name may use the decoded-value cache. */
    public boolean cachesState(String stateName) {
        return cacheEnabled && !cacheExcludedStates.contains(stateName);
    }

    @Override
    public String toString() {
        return "StreamFusionConfig{localDirectories="
                + localDirectories
                + ", memory="
                + (fixedMemoryPerSlot == null
                        ? "managed"
                        : "fixed " + fixedMemoryPerSlot.toHumanReadableString())
                + " per slot, writeBufferRatio="
                + writeBufferRatio
                + ", writeBufferSize="
                + writeBufferSize.toHumanReadableString()
                + ", writeBackSize="
                + writeBackSize.toHumanReadableString()
                + ", timerService="
                + timerService
                + ", cache="
                + (!cacheEnabled
                        ? "off"
                        : cacheSize == null ? "auto" : cacheSize.toHumanReadableString())
                + ", checkpoints="
                + (incrementalCheckpoints ? "incremental" : "full")
                + ", ttlCompaction="
                + ttlCompaction
                + '}';
    }
}
