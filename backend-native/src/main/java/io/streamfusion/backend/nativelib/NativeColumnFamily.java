package io.streamfusion.backend.nativelib;

import javax.annotation.Nullable;

import java.util.List;

/**
 * The RocksDB column family that holds one registered state. Keys and values are the bytes of
 * Flink's canonical layout; this class does no serialization. Each method is one JNI crossing.
 */
public final class NativeColumnFamily extends NativeHandle {

    private final String stateName;

    NativeColumnFamily(long handle, String stateName) {
        super(handle, "StreamFusion column family of state '" + stateName + "'");
        this.stateName = stateName;
    }

    public String stateName() {
        return stateName;
    }

    /** The stored value, or null if the key is absent. */
    public byte[] get(byte[] key) {
        return NativeMethods.get(handle(), key);
    }

    public void put(byte[] key, byte[] value) {
        NativeMethods.put(handle(), key, value);
    }

    public void delete(byte[] key) {
        NativeMethods.delete(handle(), key);
    }

    /**
     * Appends to the list stored under {@code key} without reading it: the native merge operator
     * joins values with Flink's list delimiter, as Flink's RocksDB backend does.
     */
    public void merge(byte[] key, byte[] value) {
        NativeMethods.merge(handle(), key, value);
    }

    /**
     * Entries whose keys start with {@code prefix}, in key order, after {@code resumeAfter} if it
     * is not null, encoded as an entry batch of at least {@code maxBytes} unless fewer remain. A
     * batch shorter than {@code maxBytes} holds every remaining entry.
     */
    public byte[] scanPrefix(byte[] prefix, byte[] resumeAfter, int maxBytes) {
        return NativeMethods.scanPrefix(handle(), prefix, resumeAfter, maxBytes);
    }

    /**
     * The greatest key under {@code prefix} that is below {@code before} (if not null), or null.
     */
    @Nullable
    public byte[] lastKeyWithPrefix(byte[] prefix, @Nullable byte[] before) {
        return NativeMethods.lastKeyWithPrefix(handle(), prefix, before);
    }

    /** Deletes every entry whose key starts with {@code prefix}; returns how many. */
    public long deletePrefix(byte[] prefix) {
        return NativeMethods.deletePrefix(handle(), prefix);
    }

    /**
     * Looks up every key of a {@link KeyListWriter key list} in one RocksDB multi-get. Read the
     * answer with {@link ValueListReader}; values come in the order of the keys.
     */
    public byte[] multiGet(byte[] keyList) {
        return NativeMethods.multiGet(handle(), keyList);
    }

    /** Deletes every key of a {@link KeyListWriter key list} in one atomic write. */
    public int deleteAll(byte[] keyList) {
        return NativeMethods.deleteAll(handle(), keyList);
    }

    /**
     * An integer RocksDB property of this column family, such as {@code
     * rocksdb.total-sst-files-size}, or -1 if RocksDB does not know the name.
     */
    public long intProperty(String name) {
        return NativeMethods.columnFamilyIntProperty(handle(), name);
    }

    /** Counts live entries with a full native scan; for tests and diagnostics. */
    public long countEntries() {
        return NativeMethods.countEntries(handle());
    }

    /**
     * From the next compaction on, drops the entries of this column family whose TTL has expired by
     * {@code clock}. {@code listScanner} is required for {@link
     * TtlCompactionFilterSpec.Layout#VARIABLE_ELEMENT_LIST} and ignored otherwise.
     */
    public void configureTtlCompactionFilter(
            TtlCompactionFilterSpec spec,
            NativeTtlClock clock,
            @Nullable NativeListElementScanner listScanner) {
        long periodicSeconds =
                spec.periodicCompaction() == null ? -1 : spec.periodicCompaction().getSeconds();
        NativeMethods.configureTtlCompactionFilter(
                handle(),
                spec.layout().code,
                spec.elementBytes(),
                spec.ttlMillis(),
                spec.queryTimeAfterEntries(),
                periodicSeconds,
                clock,
                spec.layout() == TtlCompactionFilterSpec.Layout.VARIABLE_ELEMENT_LIST
                        ? listScanner
                        : null);
    }

    /** Compacts the whole column family now, running its compaction filter over every entry. */
    public void compact() {
        NativeMethods.compactColumnFamily(handle());
    }

    static long[] handles(List<NativeColumnFamily> columnFamilies) {
        long[] handles = new long[columnFamilies.size()];
        for (int i = 0; i < handles.length; i++) {
            handles[i] = columnFamilies.get(i).handle();
        }
        return handles;
    }

    @Override
    void free(long handle) {
        NativeMethods.closeColumnFamily(handle);
    }
}
