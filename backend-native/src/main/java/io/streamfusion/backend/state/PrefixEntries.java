package io.streamfusion.backend.state;

import io.streamfusion.backend.nativelib.EntryBatchReader;
import io.streamfusion.backend.nativelib.NativeColumnFamily;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The raw entries of one column family under a key prefix, in key order, fetched from the native
 * side in batches of about {@code batchBytes} as the iteration goes: at most one batch is in
 * memory.
 */
final class PrefixEntries implements Iterator<PrefixEntries.Entry> {

    /** One stored entry. */
    record Entry(byte[] key, byte[] value) {}

    private final NativeColumnFamily columnFamily;
    private final byte[] prefix;
    private final int batchBytes;
    private final List<Entry> buffered = new ArrayList<>();
    private int position;
    private byte[] resumeAfter;
    private boolean exhausted;

    PrefixEntries(NativeColumnFamily columnFamily, byte[] prefix, int batchBytes) {
        this.columnFamily = columnFamily;
        this.prefix = prefix;
        this.batchBytes = batchBytes;
    }

    @Override
    public boolean hasNext() {
        if (position < buffered.size()) {
            return true;
        }
        if (exhausted) {
            return false;
        }
        buffered.clear();
        position = 0;
        byte[] batch = columnFamily.scanPrefix(prefix, resumeAfter, batchBytes);
        exhausted = batch.length < batchBytes;
        EntryBatchReader reader = new EntryBatchReader(batch);
        while (reader.advance()) {
            buffered.add(new Entry(reader.key(), reader.value()));
            resumeAfter = reader.key();
        }
        return !buffered.isEmpty();
    }

    @Override
    public Entry next() {
        if (!hasNext()) {
            throw new NoSuchElementException(
                    "No more entries under the prefix in " + columnFamily.stateName());
        }
        return buffered.get(position++);
    }
}
