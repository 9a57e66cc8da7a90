package io.streamfusion.backend.nativelib;

/**
 * Finds element boundaries in a stored list whose elements have no fixed length, for the native TTL
 * compaction filter. Called from RocksDB's background threads, possibly several at once.
 */
@FunctionalInterface
public interface NativeListElementScanner {

    /**
     * The offset of the first element of {@code list} (Flink's delimited list format) whose TTL has
     * not expired at {@code nowMillis}, or {@code list.length} if all have.
     */
    int firstUnexpiredOffset(byte[] list, long ttlMillis, long nowMillis);
}
