package io.streamfusion.backend.nativelib;

/**
 * The memory budget of one slot in native code: a RocksDB block cache and a write-buffer manager
 * charged to it, shared by every {@link NativeStore} opened with it.
 */
public final class NativeSlotMemory extends NativeHandle {

    private final long totalBytes;
    private final long writeBackBytes;

    private NativeSlotMemory(long handle, long totalBytes, long writeBackBytes) {
        super(handle, "StreamFusion slot memory of " + totalBytes + " bytes");
        this.totalBytes = totalBytes;
        this.writeBackBytes = writeBackBytes;
    }

    /**
     * Creates the cache and write-buffer manager for a budget of {@code totalBytes}, of which
     * memtables may use the share {@code writeBufferRatio}, each memtable holding up to {@code
     * writeBufferSize} bytes. Each store opened with it holds back up to {@code writeBackBytes} of
     * point writes, taken from the block cache's share (0 holds none).
     */
    public static NativeSlotMemory allocate(
            long totalBytes, double writeBufferRatio, long writeBufferSize, long writeBackBytes) {
        NativeLibrary.ensureLoaded();
        return new NativeSlotMemory(
                NativeMethods.openSlotMemory(totalBytes, writeBufferRatio, writeBufferSize),
                totalBytes,
                writeBackBytes);
    }

    public long totalBytes() {
        return totalBytes;
    }

    /** Bytes of point writes each store of this slot holds back before applying them. */
    public long writeBackBytes() {
        return writeBackBytes;
    }

    /** Bytes held by the block cache, including memtable memory charged to it. */
    public long cacheUsage() {
        return NativeMethods.slotMemoryUsage(handle())[0];
    }

    /** Bytes of cache entries pinned in memory (index and filter blocks in use). */
    public long pinnedUsage() {
        return NativeMethods.slotMemoryUsage(handle())[1];
    }

    /** Bytes of memtables, counted by the write-buffer manager. */
    public long writeBufferUsage() {
        return NativeMethods.slotMemoryUsage(handle())[2];
    }

    /**
     * Bytes of the budget reserved for memory outside RocksDB (columnar operators' caches and
     * batches); the block cache is smaller by as much while they are held.
     */
    public long reservedBytes() {
        return NativeMethods.slotMemoryUsage(handle())[3];
    }

    /**
     * Every figure of the slot's memory from one native call; all 0 once closed. Synchronized with
     * close(): read from any task thread of the slot.
     */
    public synchronized SlotMemoryUsage usageIfOpen() {
        return isClosed()
                ? SlotMemoryUsage.CLOSED
                : SlotMemoryUsage.of(NativeMethods.slotMemoryUsage(handle()));
    }

    /**
     * Lends the decoded-value cache {@code bytes} of the block cache in place of its previous loan
     * (0 gives it all back), at most what the operators' reservations leave of half the block
     * cache. Returns the bytes lent, 0 once this memory is closed.
     */
    public synchronized long lendToValueCache(long bytes) {
        // Synchronized with close(): the loan is asked for from any task thread of the slot.
        return isClosed() ? 0 : NativeMethods.lendToValueCache(handle(), bytes);
    }

    /**
     * Grows the block cache by {@code bytes} of the decoded-value cache's own share, in place of
     * what it gave before (0 takes it all back). Returns the bytes accepted, 0 once this memory is
     * closed.
     */
    public synchronized long acceptFromValueCache(long bytes) {
        return isClosed() ? 0 : NativeMethods.acceptFromValueCache(handle(), bytes);
    }

    @Override
    void free(long handle) {
        NativeMethods.closeSlotMemory(handle);
    }
}
