package io.streamfusion.backend;

import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.api.TimerServiceFactory;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

import javax.annotation.Nullable;

import java.io.File;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The validated settings of a StreamFusion backend. Built once from configuration; every bad
 * value is reported with the option's key and the values it accepts.
 */
public final class StreamFusionConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final String MIN_FIXED_MEMORY_TEXT = "1mb";
    static final MemorySize MIN_FIXED_MEMORY = MemorySize.parse(MIN_FIXED_MEMORY_TEXT);
    private static final String MIN_CACHE_TEXT = "1mb";
    static final MemorySize MIN_CACHE = MemorySize.parse(MIN_CACHE_TEXT);

    private final List<String> localDirectories;
    @Nullable private final MemorySize fixedMemoryPerSlot;
    private final double writeBufferRatio;
    private final TimerServiceFactory timerService;
    private final int timerCacheSize;
    private final boolean cacheEnabled;
    private final MemorySize cacheSize;
    private final List<String> cacheExcludedStates;

    private StreamFusionConfig(
            List<String> localDirectories,
            @Nullable MemorySize fixedMemoryPerSlot,
            double writeBufferRatio,
            TimerServiceFactory timerService,
            int timerCacheSize,
            boolean cacheEnabled,
            MemorySize cacheSize,
            List<String> cacheExcludedStates) {
        this.localDirectories = Collections.unmodifiableList(new ArrayList<>(localDirectories));
        this.fixedMemoryPerSlot = fixedMemoryPerSlot;
        this.writeBufferRatio = writeBufferRatio;
        this.timerService = timerService;
        this.timerCacheSize = timerCacheSize;
        this.cacheEnabled = cacheEnabled;
        this.cacheSize = cacheSize;
        this.cacheExcludedStates = Collections.unmodifiableList(new ArrayList<>(cacheExcludedStates));
    }

    /** The defaults of every option. */
    public static StreamFusionConfig defaults() {
        return new StreamFusionConfig(
                Collections.emptyList(),
                null,
                StreamFusionOptions.WRITE_BUFFER_RATIO.defaultValue(),
                StreamFusionOptions.TIMER_SERVICE_FACTORY.defaultValue(),
                StreamFusionOptions.TIMER_SERVICE_CACHE_SIZE.defaultValue(),
                StreamFusionOptions.CACHE_ENABLED.defaultValue(),
                StreamFusionOptions.CACHE_SIZE.defaultValue(),
                StreamFusionOptions.CACHE_EXCLUDED_STATES.defaultValue());
    }

    /** Reads and validates every option, falling back to {@code base} for unset ones. */
    public static StreamFusionConfig from(ReadableConfig config, StreamFusionConfig base) {
        List<String> dirs =
                config.getOptional(StreamFusionOptions.LOCAL_DIRECTORIES)
                        .orElse(base.localDirectories);
        for (String dir : dirs) {
            if (!new File(localPath(dir)).isAbsolute()) {
                throw new IllegalConfigurationException(
                        "Invalid value for '"
                                + StreamFusionOptions.LOCAL_DIRECTORIES.key()
                                + "': '"
                                + dir
                                + "' is not an absolute path. Give a ';'-separated list of"
                                + " absolute directory paths (or file: URIs), or leave the option unset.");
            }
        }
        MemorySize fixed = fixedMemory(config, base.fixedMemoryPerSlot);
        double ratio = writeBufferRatio(config, base.writeBufferRatio);
        TimerServiceFactory timers = timerService(config, base.timerService);
        int timerCache = timerCacheSize(config, base.timerCacheSize);
        boolean cacheEnabled = config.getOptional(StreamFusionOptions.CACHE_ENABLED).orElse(base.cacheEnabled);
        MemorySize cacheSize =
                atLeast(config, StreamFusionOptions.CACHE_SIZE, base.cacheSize, MIN_CACHE, MIN_CACHE_TEXT);
        List<String> excluded =
                config.getOptional(StreamFusionOptions.CACHE_EXCLUDED_STATES).orElse(base.cacheExcludedStates);
        return new StreamFusionConfig(dirs, fixed, ratio, timers, timerCache, cacheEnabled, cacheSize, excluded);
    }

    private static TimerServiceFactory timerService(ReadableConfig config, TimerServiceFactory fallback) {
        try {
            return config.getOptional(StreamFusionOptions.TIMER_SERVICE_FACTORY).orElse(fallback);
        } catch (IllegalArgumentException e) {
            throw new IllegalConfigurationException(
                    "Invalid value for '" + StreamFusionOptions.TIMER_SERVICE_FACTORY.key() + "': "
                            + e.getMessage() + ". It accepts NATIVE or HEAP.",
                    e);
        }
    }

    private static int timerCacheSize(ReadableConfig config, int fallback) {
        ConfigOption<Integer> option = StreamFusionOptions.TIMER_SERVICE_CACHE_SIZE;
        int value;
        try {
            value = config.getOptional(option).orElse(fallback);
        } catch (IllegalArgumentException e) {
            throw new IllegalConfigurationException(
                    "Invalid value for '" + option.key() + "': " + e.getMessage()
                            + ". It accepts a positive whole number.",
                    e);
        }
        if (value <= 0) {
            throw new IllegalConfigurationException(
                    "Invalid value for '" + option.key() + "': " + value + ". It accepts a positive whole number.");
        }
        return value;
    }

    private static double writeBufferRatio(ReadableConfig config, double fallback) {
        ConfigOption<Double> option = StreamFusionOptions.WRITE_BUFFER_RATIO;
        double value;
        try {
            value = config.getOptional(option).orElse(fallback);
        } catch (IllegalArgumentException e) {
            throw new IllegalConfigurationException(
                    "Invalid value for '" + option.key() + "': " + e.getMessage()
                            + ". It accepts a number strictly between 0 and 1, such as 0.5.",
                    e);
        }
        if (!(value > 0 && value < 1)) {
            throw new IllegalConfigurationException(
                    "Invalid value for '" + option.key() + "': " + value
                            + ". It accepts a number strictly between 0 and 1, such as 0.5.");
        }
        return value;
    }

    @Nullable
    private static MemorySize fixedMemory(ReadableConfig config, @Nullable MemorySize fallback) {
        return atLeast(
                config, StreamFusionOptions.FIXED_MEMORY_PER_SLOT, fallback, MIN_FIXED_MEMORY, MIN_FIXED_MEMORY_TEXT);
    }

    /** A memory-size option of at least {@code min}; null only if unset without a fallback. */
    @Nullable
    private static MemorySize atLeast(
            ReadableConfig config,
            ConfigOption<MemorySize> option,
            @Nullable MemorySize fallback,
            MemorySize min,
            String minText) {
        MemorySize value;
        try {
            value = config.getOptional(option).orElse(fallback);
        } catch (IllegalArgumentException e) {
            throw new IllegalConfigurationException(
                    "Invalid value for '"
                            + option.key()
                            + "': "
                            + e.getMessage()
                            + ". It accepts a memory size such as '256mb' of at least "
                            + minText
                            + ".",
                    e);
        }
        if (value != null && value.compareTo(min) < 0) {
            throw new IllegalConfigurationException(
                    "Invalid value for '"
                            + option.key()
                            + "': "
                            + value.toHumanReadableString()
                            + ". It accepts a memory size of at least "
                            + minText
                            + ".");
        }
        return value;
    }

    /** A configured directory as a local path; {@code file:} URIs are accepted, as Flink's RocksDB backend does. */
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

    public TimerServiceFactory timerService() {
        return timerService;
    }

    public int timerCacheSize() {
        return timerCacheSize;
    }

    public boolean cacheEnabled() {
        return cacheEnabled;
    }

    public MemorySize cacheSize() {
        return cacheSize;
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
                + (fixedMemoryPerSlot == null ? "managed" : "fixed " + fixedMemoryPerSlot.toHumanReadableString())
                + " per slot, writeBufferRatio="
                + writeBufferRatio
                + ", timerService="
                + timerService
                + ", cache="
                + (cacheEnabled ? cacheSize.toHumanReadableString() : "off")
                + '}';
    }
}
