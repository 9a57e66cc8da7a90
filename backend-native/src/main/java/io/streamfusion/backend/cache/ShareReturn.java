package io.streamfusion.backend.cache;

/**
 * How much of its own share a full {@link DecodedValueCache} gives to the slot's block cache while
 * few reads hit it: half of what it holds at each check, down to an eighth of its share, while its
 * hit rate, scaled to its whole share, stays under {@value #GIVE_BELOW_HIT_RATE} and RocksDB fills
 * its block cache (less than a sixteenth idle, as {@link IdleMemoryLoan} gives back); and back,
 * twice what it holds at each check, once that scaled rate reaches {@value #TAKE_BACK_AT_HIT_RATE},
 * or at once when RocksDB leaves a quarter of its block cache idle.
 *
 * <p>Why: the share is an eighth of the slot's budget. When the state is many times larger than
 * that share and read uniformly, the share holds a few percent of the keys, so nearly every read
 * pays a lookup and an admission for nothing, while the block cache, which serves every read of
 * every state kind, runs full. At 5M keys in a 136 MiB slot (docs/architecture.md, "What giving the
 * share back bought") the cache hit about 3% of value reads, and value reads ran 16% faster without
 * it. The eighth it keeps goes on measuring: for keys read uniformly, the hit rate grows with the
 * cache's size, so the rate it sees times its share over its size is what its whole share would
 * hit. A skewed workload hits more at a small size than that scaling says, so it takes its share
 * back early rather than late. Taking back by doubling keeps a cache whose hot keys fit in a small
 * size from swinging between the two.
 */
final class ShareReturn {

    /** Below this hit rate at its whole share, the cache gives part of its share. */
    static final double GIVE_BELOW_HIT_RATE = 0.20;

    /** At this hit rate at its whole share, the cache takes part of its share back. */
    static final double TAKE_BACK_AT_HIT_RATE = 0.25;

    /** The smallest part of its share the cache keeps, to go on measuring its hits. */
    static final int KEPT_SHARE_DIVISOR = 8;

    /** Fewer reads than this since the last check say nothing of the hit rate. */
    static final long MIN_READS = 1024;

    private ShareReturn() {}

    /**
     * The hit rate of {@code hits} in {@code reads} of a cache holding {@code heldBytes}, scaled to
     * its share of {@code ownBytes}: for keys read uniformly, the hit rate grows with the size.
     */
    static double hitRateAtWholeShare(long ownBytes, long heldBytes, long hits, long reads) {
        return (double) hits / reads * ownBytes / heldBytes;
    }

    /** The least a cache of {@code ownBytes} keeps of its share. */
    private static long leastKept(long ownBytes) {
        return ownBytes / KEPT_SHARE_DIVISOR;
    }

    /**
     * The bytes of {@code ownBytes} to give the block cache now, in place of {@code givenBytes}.
     *
     * @param hits reads that hit the cache since the last check
     * @param misses reads that missed it since the last check
     * @param evicting whether the cache evicted since the last check: a cache with room left has
     *     not seen its keys yet, whatever its hit rate
     * @param room the block cache now
     */
    static long wanted(
            long ownBytes,
            long givenBytes,
            long hits,
            long misses,
            boolean evicting,
            BlockCacheRoom room) {
        if (room.idleBytes() > room.capacity() / 4) {
            return 0;
        }
        long reads = hits + misses;
        if (reads < MIN_READS) {
            return givenBytes;
        }
        long held = ownBytes - givenBytes;
        double atWholeShare = hitRateAtWholeShare(ownBytes, held, hits, reads);
        if (atWholeShare >= TAKE_BACK_AT_HIT_RATE) {
            return Math.max(0, ownBytes - 2 * held);
        }
        boolean blockCacheFull = room.idleBytes() < room.capacity() / 16;
        if (evicting && blockCacheFull && atWholeShare < GIVE_BELOW_HIT_RATE) {
            return ownBytes - Math.max(leastKept(ownBytes), held / 2);
        }
        return givenBytes;
    }
}
