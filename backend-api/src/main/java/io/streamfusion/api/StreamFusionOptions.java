package io.streamfusion.api;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

import java.time.Duration;
import java.util.List;

/**
 * Configuration options of the StreamFusion state backend, all under {@code
 * state.backend.streamfusion.*}. docs/configuration.md lists them with their defaults.
 */
public final class StreamFusionOptions {

    /** The value of {@code state.backend.type} that selects StreamFusion. */
    public static final String BACKEND_SHORT_NAME = "streamfusion";

    /** Prefix shared by every option of this backend. */
    public static final String PREFIX = "state.backend.streamfusion.";

    public static final ConfigOption<List<String>> LOCAL_DIRECTORIES =
            ConfigOptions.key(PREFIX + "localdir")
                    .stringType()
                    .asList()
                    .noDefaultValue()
                    .withDescription(
                            "Directories where StreamFusion keeps the working RocksDB files of"
                                    + " keyed state. Several directories are used round robin."
                                    + " Unset, the TaskManager's temporary directories"
                                    + " (io.tmp.dirs) are used, as Flink's rocksdb backend does.");

    public static final ConfigOption<MemorySize> FIXED_MEMORY_PER_SLOT =
            ConfigOptions.key(PREFIX + "memory.fixed-per-slot")
                    .memoryType()
                    .noDefaultValue()
                    .withDescription(
                            "A fixed memory budget per slot for the RocksDB block cache and"
                                    + " memtables, shared by every keyed backend in the slot. Unset,"
                                    + " the budget is the slot's managed memory for state backends,"
                                    + " as with Flink's rocksdb backend. Must be at least 1 MiB.");

    public static final ConfigOption<Double> WRITE_BUFFER_RATIO =
            ConfigOptions.key(PREFIX + "memory.write-buffer-ratio")
                    .doubleType()
                    .defaultValue(0.5)
                    .withDescription(
                            "The share of the slot's budget that memtables may use, strictly"
                                    + " between 0 and 1. Memtable memory is charged to the block"
                                    + " cache, so together they stay within the budget.");

    public static final ConfigOption<MemorySize> WRITE_BUFFER_SIZE =
            ConfigOptions.key(PREFIX + "memory.write-buffer-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("16mb"))
                    .withDescription(
                            "The size of one memtable, after which it is flushed to disk, as"
                                    + " Flink's 'state.backend.rocksdb.writebuffer.size' (64 MiB)."
                                    + " Every state read and write searches a memtable; a smaller"
                                    + " one stays in the CPU cache, which made per-record access"
                                    + " faster in our benchmarks, at the price of more, smaller"
                                    + " files to compact. Must be at least 64 KiB.");

    public static final ConfigOption<MemorySize> WRITE_BACK_SIZE =
            ConfigOptions.key(PREFIX + "write-back.size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("4mb"))
                    .withDescription(
                            "Bytes of state writes each keyed backend holds back before it applies"
                                    + " them to RocksDB as one write batch, sorted by key. A key"
                                    + " written again meanwhile is written once; reads see held"
                                    + " writes, and a checkpoint applies them first. The bytes are"
                                    + " taken from the slot's block cache when a backend first"
                                    + " writes; if the slot cannot spare them, that backend writes"
                                    + " through. 0 writes every update through at once.");

    public static final ConfigOption<PriorityQueueStateType> TIMER_SERVICE_FACTORY =
            ConfigOptions.key(PREFIX + "timer-service.factory")
                    .enumType(PriorityQueueStateType.class)
                    .defaultValue(PriorityQueueStateType.NATIVE)
                    .withDescription(
                            "Where timers live: NATIVE keeps them in the native store, HEAP in"
                                    + " Flink's heap priority queues (like"
                                    + " state.backend.rocksdb.timer-service.factory).");

    public static final ConfigOption<Integer> TIMER_SERVICE_CACHE_SIZE =
            ConfigOptions.key(PREFIX + "timer-service.cache-size")
                    .intType()
                    .defaultValue(128)
                    .withDescription(
                            "With NATIVE timers, how many of the earliest timers of each key group"
                                    + " are cached on the heap. Must be positive.");

    public static final ConfigOption<Boolean> CACHE_ENABLED =
            ConfigOptions.key(PREFIX + "cache.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Whether ValueState (and reducing and aggregating state with immutable"
                                    + " accumulators) keeps recently read and written values decoded in a"
                                    + " per-slot cache, so that a repeated read crosses no JNI and"
                                    + " deserializes nothing.");

    public static final ConfigOption<MemorySize> CACHE_SIZE =
            ConfigOptions.key(PREFIX + "cache.size")
                    .memoryType()
                    .noDefaultValue()
                    .withDescription(
                            "Bytes of the slot's memory budget given to the decoded-value cache;"
                                    + " RocksDB gets the rest. Unset, the cache takes an eighth of"
                                    + " the budget, at most 64 MiB, so that RocksDB keeps the"
                                    + " memory its index, filter and data blocks need when state"
                                    + " outgrows the budget; an unset size also borrows block cache"
                                    + " that RocksDB leaves idle, and gives the block cache most of"
                                    + " its share while few of its reads hit. If the budget cannot"
                                    + " spare a set size"
                                    + " (RocksDB would keep less than the cache gets), the cache is"
                                    + " disabled.");

    public static final ConfigOption<List<String>> CACHE_EXCLUDED_STATES =
            ConfigOptions.key(PREFIX + "cache.excluded-states")
                    .stringType()
                    .asList()
                    .defaultValues()
                    .withDescription(
                            "Names of value, reducing and aggregating states that never use the decoded-value cache, for"
                                    + " states whose reads rarely repeat.");

    public static final ConfigOption<Boolean> TTL_COMPACTION_FILTER_ENABLED =
            ConfigOptions.key(PREFIX + "ttl.compaction-filter.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Whether RocksDB compactions drop expired entries of states with TTL"
                                    + " (StateTtlConfig with cleanup in background, Flink's default)."
                                    + " A state can still opt out with"
                                    + " StateTtlConfig.Builder#disableCleanupInBackground.");

    public static final ConfigOption<Long> TTL_QUERY_TIME_AFTER_NUM_ENTRIES =
            ConfigOptions.key(PREFIX + "ttl.query-time-after-num-entries")
                    .longType()
                    .defaultValue(1000L)
                    .withDescription(
                            "Entries the TTL compaction filter processes before it reads the current"
                                    + " time again (a call into the JVM). Must be positive. A state's"
                                    + " StateTtlConfig#cleanupInRocksdbCompactFilter overrides it.");

    public static final ConfigOption<Duration> TTL_PERIODIC_COMPACTION_TIME =
            ConfigOptions.key(PREFIX + "ttl.periodic-compaction-time")
                    .durationType()
                    .defaultValue(Duration.ofDays(30))
                    .withDescription(
                            "Files of a TTL state older than this are compacted even if nothing else"
                                    + " would compact them, so that cold expired entries are dropped too."
                                    + " 0 switches periodic compaction off. A state's"
                                    + " StateTtlConfig#cleanupInRocksdbCompactFilter overrides it.");

    private StreamFusionOptions() {}
}
