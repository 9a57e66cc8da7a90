package io.streamfusion.backend.nativelib;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The big-endian {@code u32} and length-prefixed fields of the library's answers, read with every
 * length checked against the bytes that remain, so a malformed answer fails with a message rather
 * than a bare {@code BufferUnderflowException} or an allocation of a damaged length.
 */
final class LengthPrefixedBuffer {

    private final ByteBuffer buffer;
    private final String what;

    /**
     * @param what names the answer in error messages, such as "entry batch"
     */
    LengthPrefixedBuffer(byte[] bytes, String what) {
        this.buffer = ByteBuffer.wrap(bytes);
        this.what = what;
    }

    boolean hasRemaining() {
        return buffer.hasRemaining();
    }

    int takeInt(String field) {
        need(Integer.BYTES, field);
        return buffer.getInt();
    }

    byte[] take(int length, String field) {
        need(length, field);
        int start = buffer.position();
        buffer.position(start + length);
        return Arrays.copyOfRange(buffer.array(), start, start + length);
    }

    private void need(int length, String field) {
        if (length < 0 || length > buffer.remaining()) {
            throw new NativeStateException(
                    "A corrupt "
                            + what
                            + " of "
                            + buffer.capacity()
                            + " bytes: the "
                            + field
                            + " at byte "
                            + buffer.position()
                            + " needs "
                            + length
                            + " bytes but only "
                            + buffer.remaining()
                            + " remain");
        }
    }
}
