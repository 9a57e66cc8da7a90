package io.streamfusion.backend.nativelib;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The statistics block a native kernel writes after each batch: cache hits, cache misses and
 * reserved bytes, as native-order longs in a direct buffer. Metric threads read them here, never
 * calling into the library.
 */
final class NativeKernelStats {

    private final ByteBuffer buffer =
            ByteBuffer.allocateDirect(3 * Long.BYTES).order(ByteOrder.nativeOrder());

    /** The buffer the native kernel writes into. */
    ByteBuffer buffer() {
        return buffer;
    }

    long cacheHits() {
        return buffer.getLong(0);
    }

    long cacheMisses() {
        return buffer.getLong(Long.BYTES);
    }

    long reservedBytes() {
        return buffer.getLong(2 * Long.BYTES);
    }
}
