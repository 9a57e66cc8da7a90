package io.streamfusion.backend.nativelib;

/**
 * The job's TTL clock as the native compaction filter reads it, from RocksDB's background threads,
 * once every configured number of entries. Must be thread-safe and must not block.
 */
@FunctionalInterface
public interface NativeTtlClock {

    /** Milliseconds, in the state's TTL time characteristic. */
    long currentTimestamp();
}
