package io.streamfusion.backend.nativelib;

/**
 * Decodes an entry batch: {@code [u32 state index][u32 key length][key][u32 value length] [value]}
 * repeated, big-endian. The Rust twin is native/src/batch.rs.
 */
public final class EntryBatchReader {

    private final LengthPrefixedBuffer buffer;
    private int stateIndex;
    private byte[] key;
    private byte[] value;

    public EntryBatchReader(byte[] batch) {
        this.buffer = new LengthPrefixedBuffer(batch, "entry batch");
    }

    /**
     * Moves to the next entry; false when the batch is exhausted.
     *
     * @throws NativeStateException if the batch is cut off or a length runs past its end
     */
    public boolean advance() {
        if (!buffer.hasRemaining()) {
            return false;
        }
        stateIndex = buffer.takeInt("state index");
        key = buffer.take(buffer.takeInt("key length"), "key");
        value = buffer.take(buffer.takeInt("value length"), "value");
        return true;
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
