package io.streamfusion.backend.nativelib;

import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Encodes entries into the batch format read by native/src/batch.rs, so that many writes cross
 * JNI in one call. Reused between batches: {@link #clear()} keeps the buffer.
 */
public final class EntryBatchWriter {

    private final DataOutputSerializer out;
    private int entries;

    public EntryBatchWriter(int initialBytes) {
        this.out = new DataOutputSerializer(initialBytes);
    }

    public void add(int stateIndex, byte[] key, byte[] value) {
        try {
            out.writeInt(stateIndex);
            out.writeInt(key.length);
            out.write(key);
            out.writeInt(value.length);
            out.write(value);
            entries++;
        } catch (IOException e) {
            // DataOutputSerializer grows in memory and never fails for I/O reasons.
            throw new UncheckedIOException(e);
        }
    }

    public int entries() {
        return entries;
    }

    public int sizeInBytes() {
        return out.length();
    }

    public byte[] toByteArray() {
        return out.getCopyOfBuffer();
    }

    public void clear() {
        out.clear();
        entries = 0;
    }
}
