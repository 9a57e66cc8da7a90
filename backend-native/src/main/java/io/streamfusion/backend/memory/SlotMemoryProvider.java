package io.streamfusion.backend.memory;

import io.streamfusion.backend.StreamFusionConfig;
import io.streamfusion.backend.cache.DecodedValueCache;
import io.streamfusion.backend.nativelib.NativeSlotMemory;

import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.memory.OpaqueMemoryResource;
import org.apache.flink.util.function.LongFunctionWithException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Obtains the slot's shared native memory from Flink's memory manager, the way Flink's RocksDB
 * backend obtains its shared cache: from the slot's managed memory by default, or as a fixed
 * external budget per slot. The first keyed backend of a slot allocates it; the last one to release
 * its lease frees it. The decoded-value cache is paid from the same budget: it takes {@code
 * cache.size} (by default an eighth of the budget, at most 64 MiB, plus what it borrows of the
 * block cache RocksDB leaves idle) and RocksDB the rest. A set size that would leave RocksDB less
 * than the cache is refused, and the cache disabled.
 */
public final class SlotMemoryProvider {

    private static final Logger LOG = LoggerFactory.getLogger(SlotMemoryProvider.class);

    static final String MANAGED_RESOURCE_ID = "state-streamfusion-managed-memory";
    static final String FIXED_RESOURCE_ID = "state-streamfusion-fixed-slot-memory";

    /** The default decoded-value cache is at most this large... */
    static final long DEFAULT_CACHE_LIMIT = 64L << 20;

    /** ...and at most this fraction (one over it) of the slot's budget. */
    static final long DEFAULT_CACHE_SHARE_DIVISOR = 8;

    private SlotMemoryProvider() {}

    public static OpaqueMemoryResource<SlotMemory> acquire(
            Environment env, StreamFusionConfig config, double managedMemoryFraction)
            throws Exception {
        LongFunctionWithException<SlotMemory, Exception> allocator =
                size -> {
                    if (size <= 0) {
                        throw new IllegalConfigurationException(
                                "StreamFusion got no managed memory for this slot (fraction "
                                        + managedMemoryFraction
                                        + "). Give the TaskManager managed memory"
                                        + " (taskmanager.memory.managed.size or .fraction), or set"
                                        + " 'state.backend.streamfusion.memory.fixed-per-slot'.");
                    }
                    long cacheBytes = cacheBytes(size, config);
                    NativeSlotMemory nativeMemory =
                            NativeSlotMemory.allocate(
                                    size - cacheBytes,
                                    config.writeBufferRatio(),
                                    config.writeBufferSize().getBytes(),
                                    config.writeBackSize().getBytes());
                    // A cache of the default size borrows what the block cache leaves idle; a
                    // size the user set is kept.
                    DecodedValueCache cache =
                            cacheBytes <= 0
                                    ? null
                                    : new DecodedValueCache(
                                            cacheBytes,
                                            config.cacheSize() == null
                                                    ? new SlotBlockCacheLender(nativeMemory)
                                                    : null);
                    return new SlotMemory(nativeMemory, cache);
                };
        if (config.fixedMemoryPerSlot() != null) {
            return env.getMemoryManager()
                    .getExternalSharedMemoryResource(
                            FIXED_RESOURCE_ID, allocator, config.fixedMemoryPerSlot().getBytes());
        }
        return env.getMemoryManager()
                .getSharedMemoryResourceForManagedMemory(
                        MANAGED_RESOURCE_ID, allocator, managedMemoryFraction);
    }

    /**
     * The decoded-value cache's share of a slot budget: its configured size (0 if refused), or by
     * default an eighth of the budget, at most {@link #DEFAULT_CACHE_LIMIT} bytes. With state
     * larger than the budget, RocksDB's block cache serves every state kind and the decoded cache
     * only value states: at 136 MiB and 5M map entries a 64 MiB decoded cache halved MapState reads
     * against 16 MiB (docs/architecture.md, "State larger than the budget").
     */
    public static long cacheBytes(long slotBytes, StreamFusionConfig config) {
        if (!config.cacheEnabled()) {
            return 0;
        }
        if (config.cacheSize() == null) {
            return Math.min(DEFAULT_CACHE_LIMIT, slotBytes / DEFAULT_CACHE_SHARE_DIVISOR);
        }
        long wanted = config.cacheSize().getBytes();
        if (slotBytes - wanted < wanted) {
            LOG.warn(
                    "StreamFusion decoded-value cache disabled: the slot budget of {} bytes cannot spare"
                            + " {} bytes ('state.backend.streamfusion.cache.size') and leave RocksDB at"
                            + " least as much. Give the slot more managed memory or lower the cache size.",
                    slotBytes,
                    wanted);
            return 0;
        }
        return wanted;
    }
}
