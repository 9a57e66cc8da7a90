package io.streamfusion.backend.nativelib;

import java.io.File;
import java.util.List;

/**
 * One RocksDB instance in native memory, owned by one keyed backend. Its column families are opened
 * as {@link NativeColumnFamily}s. Each keeps the native instance alive, so they may be closed in
 * any order; the instance is freed with the last of them.
 */
public final class NativeStore extends NativeHandle {

    private NativeStore(long handle, File directory) {
        super(handle, "StreamFusion store at " + directory);
    }

    /**
     * Opens, creating if needed, the RocksDB instance in {@code directory}, using the slot's shared
     * block cache and write-buffer budget. The store keeps that memory alive natively, so {@code
     * memory} may be closed before the store. Point writes are held back up to the slot's {@link
     * NativeSlotMemory#writeBackBytes() write-back size}, invisibly to every read of the store.
     */
    public static NativeStore open(File directory, NativeSlotMemory memory) {
        long handle =
                NativeMethods.openStore(
                        directory.getAbsolutePath(), memory.handle(), memory.writeBackBytes());
        return new NativeStore(handle, directory);
    }

    /** Opens the column family of a state, creating it if it does not exist. */
    public NativeColumnFamily openColumnFamily(String stateName) {
        return new NativeColumnFamily(
                NativeMethods.openColumnFamily(handle(), stateName), stateName);
    }

    /** Writes all entries of an encoded batch in one atomic RocksDB write. */
    public int applyBatch(List<NativeColumnFamily> columnFamilies, byte[] encodedBatch) {
        return NativeMethods.applyBatch(
                handle(), NativeColumnFamily.handles(columnFamilies), encodedBatch);
    }

    /**
     * Starts a scan of the given column families over a point-in-time snapshot, in canonical
     * snapshot order: by key group, then by the column family's position in {@code columnFamilies}.
     */
    public NativeKeyGroupScan openScan(
            List<NativeColumnFamily> columnFamilies, int keyGroupPrefixBytes) {
        return new NativeKeyGroupScan(
                NativeMethods.openScan(
                        handle(), NativeColumnFamily.handles(columnFamilies), keyGroupPrefixBytes));
    }

    /**
     * Starts a native RocksDB checkpoint into {@code target}, which must not exist: applies held
     * writes and switches every memtable, without waiting for the flushes. The checkpoint holds
     * exactly the writes made before this call. Its files (hard links of the SST files plus copies
     * of RocksDB's metadata files) exist once {@link #completeCheckpoint} returns; the store's next
     * write to RocksDB links them first if nothing else has.
     */
    public void beginCheckpoint(File target) {
        NativeMethods.beginCheckpoint(handle(), target.getAbsolutePath());
    }

    /**
     * Waits until the checkpoint begun into {@code target} has its files, and throws if writing
     * them failed. Each begun checkpoint is completed once, also when it is abandoned, so that no
     * directory appears after its owner has cleaned up.
     */
    public void completeCheckpoint(File target) {
        NativeMethods.completeCheckpoint(handle(), target.getAbsolutePath());
    }

    /**
     * Deletes every key {@code k} with {@code begin <= k < end} of each given range from every
     * column family. Whole files inside a range are dropped without I/O.
     */
    public void deleteKeyRanges(List<KeyRange> ranges) {
        KeyListWriter bounds = new KeyListWriter(64);
        for (KeyRange range : ranges) {
            bounds.add(range.begin());
            bounds.add(range.end());
        }
        NativeMethods.deleteKeyRanges(handle(), bounds.toByteArray());
    }

    /**
     * Copies the entries in {@code range} of every column family of the RocksDB instance in {@code
     * source} (opened read-only) into the same-named column families of this store.
     *
     * @return the number of entries copied
     */
    public long copyKeyRange(File source, KeyRange range) {
        return NativeMethods.copyKeyRange(
                handle(), source.getAbsolutePath(), range.begin(), range.end());
    }

    /** Flushes every memtable to SST files. */
    public void flush() {
        NativeMethods.flushStore(handle());
    }

    @Override
    void free(long handle) {
        NativeMethods.closeStore(handle);
    }
}
