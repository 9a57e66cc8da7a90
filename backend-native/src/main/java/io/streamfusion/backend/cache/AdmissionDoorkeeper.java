package io.streamfusion.backend.cache;

import java.util.Arrays;

/**
 * Decides whether a value read after a miss enters a full {@link DecodedValueCache}: only a key
 * that already missed since the doorkeeper was last cleared does (TinyLFU's doorkeeper).
 *
 * <p>Why: once the cache is full, every admission evicts an entry, and under spread-out access
 * (uniform keys over more state than the cache holds) nearly every admitted key is evicted before
 * its next read. Each of those admissions costs an insertion, an eviction and, with G1, the
 * concurrent refinement of the old-generation pointers it rewrites; the hit rate is the same either
 * way (capacity over keys). A key read again soon, the kind a cache exists for, misses twice at
 * most and then stays.
 *
 * <p>A bit per hash slot, cleared after a quarter of the cache's estimated entry count has been
 * marked, so a key must come back within that many first misses to be admitted. The bits are read
 * and written without synchronisation: a lost update only changes which key is admitted, never what
 * a read returns.
 */
final class AdmissionDoorkeeper {

    /** Assumed bytes per entry when sizing from the cache's capacity. */
    private static final int ESTIMATED_ENTRY_BYTES = 128;

    /** Bits per mark before a clear: about 3% false positives at the fullest. */
    private static final int BITS_PER_MARK = 32;

    private final long[] bits;
    private final int mask;
    private final int marksBeforeClear;
    private int marks;

    AdmissionDoorkeeper(long cacheCapacityBytes) {
        long entries = Math.max(64, cacheCapacityBytes / ESTIMATED_ENTRY_BYTES);
        this.marksBeforeClear = (int) Math.min(1 << 24, Math.max(16, entries / 4));
        int slots = Integer.highestOneBit(marksBeforeClear * BITS_PER_MARK - 1) << 1;
        this.bits = new long[Math.max(1, slots >>> 6)];
        this.mask = bits.length * 64 - 1;
    }

    /**
     * True if the key with this hash missed before since the last clear; otherwise remembers it and
     * returns false.
     */
    boolean admit(int hash) {
        int slot = spread(hash) & mask;
        long bit = 1L << slot;
        int word = slot >>> 6;
        if ((bits[word] & bit) != 0) {
            return true;
        }
        bits[word] |= bit;
        if (++marks >= marksBeforeClear) {
            Arrays.fill(bits, 0L);
            marks = 0;
        }
        return false;
    }

    /** Murmur3's finaliser: the cache key's hash is a polynomial over few bytes. */
    private static int spread(int hash) {
        int h = hash;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
