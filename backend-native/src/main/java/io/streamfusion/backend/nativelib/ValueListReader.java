package io.streamfusion.backend.nativelib;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Decodes the answer of a native multi-get: one {@code [u32 length][value]} per key, with length
 * {@code 0xFFFFFFFF} for an absent key. The Rust twin is {@code batch::encode_optional_value}.
 */
public final class ValueListReader {

    private static final int ABSENT = -1;

    private final ByteBuffer buffer;

    public ValueListReader(byte[] values) {
        this.buffer = ByteBuffer.wrap(values);
    }

    public boolean hasNext() {
        return buffer.hasRemaining();
    }

    /** The next value, or null if that key was absent. */
    public byte[] next() {
        int length = buffer.getInt();
        if (length == ABSENT) {
            return null;
        }
        int start = buffer.position();
        buffer.position(start + length);
        return Arrays.copyOfRange(buffer.array(), start, start + length);
    }
}
