package io.streamfusion.backend.nativelib;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Decodes an entry batch: {@code [u32 state index][u32 key length][key][u32 value length] [value]}
 * repeated, big-endian. The Rust twin is native/src/batch.rs.
 */
public final class EntryBatchReader {

    private final ByteBuffer buffer;
    private int stateIndex;
    private byte[] key;
    private byte[] value;

    public EntryBatchReader(byte[] batch) {
        this.buffer = ByteBuffer.wrap(batch);
    }

    /** Moves to the next entry; false when the batch is exhausted. */
    public boolean advance() {
        if (!buffer.hasRemaining()) {
            return false;
        }
        stateIndex = buffer.getInt();
        key = take(buffer.getInt());
        value = take(buffer.getInt());
        return true;
    }

    private byte[] take(int length) {
        int start = buffer.position();
        buffer.position(start + length);
        return Arrays.copyOfRange(buffer.array(), start, start + length);
    }

    public int stateIndex() {
        return stateIndex;
    }

    public byte[] key() {
        return key;
    }

    public byte[] value() {
        return value;
    }
}
