package io.streamfusion.backend.nativelib;

/**
 * A slot's memory figures, read in one native call, in bytes.
 *
 * @param cacheUsage held by the block cache, memtable memory charged to it included
 * @param pinnedUsage of cache entries pinned in memory (index and filter blocks in use)
 * @param writeBufferUsage of memtables, counted by the write-buffer manager
 * @param reservedBytes reserved by columnar operators for their caches and batches
 * @param cacheCapacity the block cache's capacity: its share less reservations and the loan
 * @param lentBytes lent to the decoded-value cache
 * @param idleCacheBytes block cache RocksDB does not use and would not with every memtable full
 */
public record SlotMemoryUsage(
        long cacheUsage,
        long pinnedUsage,
        long writeBufferUsage,
        long reservedBytes,
        long cacheCapacity,
        long lentBytes,
        long idleCacheBytes) {

    static final SlotMemoryUsage CLOSED = new SlotMemoryUsage(0, 0, 0, 0, 0, 0, 0);

    static SlotMemoryUsage of(long[] figures) {
        return new SlotMemoryUsage(
                figures[0], figures[1], figures[2], figures[3], figures[4], figures[5], figures[6]);
    }
}
