package io.streamfusion.backend.cache;

/**
 * What the {@link DecodedValueCache}'s objects take on the JVM heap, for weighing its entries and
 * table against the cache's capacity. The sizes are those of a 64-bit HotSpot JVM with compressed
 * references and class pointers, the default below 32 GiB of heap; larger heaps take more per
 * reference, which the weights then understate.
 */
final class HeapBytes {

    /** A reference to an object. */
    static final int REFERENCE = 4;

    /** An object's header. */
    static final int OBJECT_HEADER = 12;

    /** An array's header: an object header and the length. */
    static final int ARRAY_HEADER = 16;

    /**
     * A {@link CachedValue}: the header, two references, two ints and a boolean, rounded to eight.
     */
    static final int CACHED_VALUE = 32;

    private HeapBytes() {}

    /** An array of {@code length} elements of {@code elementBytes} each, rounded to eight. */
    static long array(long length, int elementBytes) {
        return align(ARRAY_HEADER + length * elementBytes);
    }

    /** A byte array of {@code length}. */
    static long bytes(int length) {
        return array(length, 1);
    }

    /** {@code bytes} rounded up to the JVM's eight-byte object alignment. */
    static long align(long bytes) {
        return (bytes + 7) & ~7L;
    }
}
