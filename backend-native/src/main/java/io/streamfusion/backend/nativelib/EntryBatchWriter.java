package io.streamfusion.backend.nativelib;

import org.apache.flink.core.memory.DataOutputSerializer;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Encodes entries into the batch format read by native/src/batch.rs, so that many writes cross JNI
 * in one call. Reused between batches: {@link #clear()} keeps the buffer.
 */
public final class EntryBatchWriter {

    private final DataOutputSerializer out;
    private int entries;

    public EntryBatchWriter(int initialBytes) {
        this.out = new DataOutputSerializer(initialBytes);
    }

    public void add(int stateIndex, byte[] key, byte[] value) {
        write(stateIndex, key, value);
    }

    /** Adds a delete of {@code key}, which takes effect in the same atomic write as the puts. */
    public void addDelete(int stateIndex, byte[] key) {
        write(stateIndex, key, null);
    }

    /** A null value is written as the length -1, the native side's mark for "no value". */
    private void write(int stateIndex, byte[] key, @Nullable byte[] value) {
        try {
            out.writeInt(stateIndex);
            out.writeInt(key.length);
            out.write(key);
            if (value == null) {
                out.writeInt(-1);
            } else {
                out.writeInt(value.length);
                out.write(value);
            }
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
