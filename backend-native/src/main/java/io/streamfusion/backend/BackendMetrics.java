package io.streamfusion.backend;

import io.streamfusion.backend.cache.DecodedValueCache;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeSlotMemory;
import io.streamfusion.backend.snapshot.SnapshotTimings;
import io.streamfusion.backend.state.SkippedCorruptEntries;

import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.ResourceGuard;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The gauges a keyed backend registers under its operator's metric group, in the subgroup {@value
 * #GROUP}. docs/metrics.md lists them. Reporter threads read them, so every native read holds a
 * store lease and reports 0 once the backend is disposed.
 */
final class BackendMetrics {

    static final String GROUP = "streamfusion";

    private BackendMetrics() {}

    static void register(
            MetricGroup operatorGroup,
            ResourceGuard storeGuard,
            NativeSlotMemory slotMemory,
            @Nullable DecodedValueCache valueCache,
            List<NativeColumnFamily> columnFamilies,
            SnapshotTimings timings,
            SkippedCorruptEntries skippedCorruptEntries) {
        MetricGroup group = operatorGroup.addGroup(GROUP);
        group.gauge("slotMemoryBudgetBytes", (Gauge<Long>) slotMemory::totalBytes);
        group.gauge("blockCacheUsageBytes", guarded(storeGuard, () -> slotMemory.cacheUsage()));
        group.gauge("blockCachePinnedBytes", guarded(storeGuard, () -> slotMemory.pinnedUsage()));
        group.gauge("slotReservedBytes", guarded(storeGuard, () -> slotMemory.reservedBytes()));
        group.gauge(
                "writeBufferUsageBytes", guarded(storeGuard, () -> slotMemory.writeBufferUsage()));
        group.gauge(
                "sstBytes",
                guarded(
                        storeGuard,
                        () ->
                                sum(
                                        columnFamilies,
                                        c -> c.intProperty("rocksdb.total-sst-files-size"))));
        group.gauge(
                "memtableBytes",
                guarded(
                        storeGuard,
                        () ->
                                sum(
                                        columnFamilies,
                                        c -> c.intProperty("rocksdb.cur-size-all-mem-tables"))));
        group.gauge("corruptEntriesSkipped", (Gauge<Long>) skippedCorruptEntries::count);
        group.gauge("lastCheckpointSyncMillis", (Gauge<Long>) timings::lastSyncMillis);
        group.gauge("lastCheckpointAsyncMillis", (Gauge<Long>) timings::lastAsyncMillis);
        // The decoded-value cache is the slot's; 0 capacity means disabled or refused.
        group.gauge(
                "valueCacheCapacityBytes",
                (Gauge<Long>) () -> valueCache == null ? 0L : valueCache.capacityBytes());
        group.gauge(
                "valueCacheBorrowedBytes",
                (Gauge<Long>) () -> valueCache == null ? 0L : valueCache.borrowedBytes());
        group.gauge(
                "valueCacheGivenBytes",
                (Gauge<Long>) () -> valueCache == null ? 0L : valueCache.givenBytes());
        group.gauge(
                "valueCacheBytes",
                (Gauge<Long>) () -> valueCache == null ? 0L : valueCache.weightedBytes());
        group.gauge(
                "valueCacheHits",
                (Gauge<Long>) () -> valueCache == null ? 0L : valueCache.stats().hitCount());
        group.gauge(
                "valueCacheMisses",
                (Gauge<Long>) () -> valueCache == null ? 0L : valueCache.stats().missCount());
        group.gauge(
                "valueCacheEvictions",
                (Gauge<Long>) () -> valueCache == null ? 0L : valueCache.stats().evictionCount());
    }

    private static long sum(
            List<NativeColumnFamily> columnFamilies, ToLongFunction<NativeColumnFamily> property) {
        long total = 0;
        for (NativeColumnFamily columnFamily : columnFamilies) {
            total += Math.max(0, property.applyAsLong(columnFamily));
        }
        return total;
    }

    /** Reads native state under a lease; 0 once the store is closed. */
    private static Gauge<Long> guarded(ResourceGuard storeGuard, NativeRead read) {
        return () -> {
            try (ResourceGuard.Lease ignored = storeGuard.acquireResource()) {
                return read.read();
            } catch (IOException | IllegalStateException closed) {
                return 0L;
            }
        };
    }

    @FunctionalInterface
    private interface NativeRead {
        long read();
    }
}
