package io.streamfusion.backend.nativelib;

import java.util.Arrays;

/**
 * The keys {@code k} with {@code begin <= k < end} in unsigned byte order, as RocksDB sorts them.
 */
public record KeyRange(byte[] begin, byte[] end) {

    public KeyRange {
        if (Arrays.compareUnsigned(begin, end) > 0) {
            throw new IllegalArgumentException(
                    "A key range must not begin after its end: "
                            + Arrays.toString(begin)
                            + " > "
                            + Arrays.toString(end));
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyRange other
                && Arrays.equals(begin, other.begin)
                && Arrays.equals(end, other.end);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(begin) + Arrays.hashCode(end);
    }

    @Override
    public String toString() {
        return "[" + Arrays.toString(begin) + ", " + Arrays.toString(end) + ")";
    }
}
