package io.streamfusion.backend.nativelib;

import javax.annotation.Nullable;

import java.time.Duration;

/**
 * What the native TTL compaction filter of one state column family does: where timestamps are in
 * its values, the time to live, how often it reads the clock, and RocksDB's periodic compaction.
 *
 * @param elementBytes for {@link Layout#FIXED_ELEMENT_LIST}, the bytes of one element plus its
 *     delimiter; otherwise ignored
 * @param periodicCompaction null leaves RocksDB's setting as it is; zero switches it off
 */
public record TtlCompactionFilterSpec(
        Layout layout,
        int elementBytes,
        long ttlMillis,
        long queryTimeAfterEntries,
        @Nullable Duration periodicCompaction) {

    /**
     * Where the last-access timestamps are. The codes are the native side's (native/src/abi.rs),
     * checked when the library loads.
     */
    public enum Layout {
        VALUE(1),
        MAP(2),
        FIXED_ELEMENT_LIST(3),
        VARIABLE_ELEMENT_LIST(4);

        /** The code that switches the filter off. */
        static final int NONE = 0;

        final int code;

        Layout(int code) {
            this.code = code;
        }
    }

    public TtlCompactionFilterSpec {
        if (layout == Layout.FIXED_ELEMENT_LIST && elementBytes <= 0) {
            throw new IllegalArgumentException(
                    "A fixed-length list element has a positive length, not " + elementBytes);
        }
        if (ttlMillis <= 0 || queryTimeAfterEntries <= 0) {
            throw new IllegalArgumentException(
                    "TTL and query interval must be positive: "
                            + ttlMillis
                            + ", "
                            + queryTimeAfterEntries);
        }
    }
}
