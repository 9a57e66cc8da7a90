package io.streamfusion.backend.nativelib;

/**
 * Decodes the answer of a native multi-get: one {@code [u32 length][value]} per key, with length
 * {@code 0xFFFFFFFF} for an absent key. The Rust twin is {@code batch::encode_optional_value}.
 */
public final class ValueListReader {

    private static final int ABSENT = -1;

    private final LengthPrefixedBuffer buffer;

    public ValueListReader(byte[] values) {
        this.buffer = new LengthPrefixedBuffer(values, "multi-get answer");
    }

    public boolean hasNext() {
        return buffer.hasRemaining();
    }

    /**
     * The next value, or null if that key was absent.
     *
     * @throws NativeStateException if the answer is cut off or a length runs past its end
     */
    public byte[] next() {
        int length = buffer.takeInt("value length");
        return length == ABSENT ? null : buffer.take(length, "value");
    }
}
