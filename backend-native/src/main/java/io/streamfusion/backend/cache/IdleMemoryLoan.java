package io.streamfusion.backend.cache;

/**
 * How much of the slot's block cache a full {@link DecodedValueCache} borrows: half of what RocksDB
 * leaves idle, while more than a quarter of the block cache is idle, and half of the loan back
 * whenever less than a sixteenth is.
 *
 * <p>Why: the cache's default share is an eighth of the slot's budget, sized for state larger than
 * the budget, where RocksDB's blocks need the rest. When the state is small, most of the block
 * cache stays empty while the decoded-value cache evicts: in a join of two aggregations at
 * parallelism 2 the cache held 118k of its slot's 128k values and missed 15% of its reads (see
 * docs/architecture.md, "What lending idle block cache bought"). The two thresholds keep a loan
 * from being taken back at once: after lending half of an idle quarter, an eighth of the smaller
 * block cache is still idle. An operator's reservation takes back what it needs of a loan, and the
 * cache shrinks to the smaller loan at its next check.
 */
final class IdleMemoryLoan {

    /** A loan smaller than this is returned whole rather than halved again. */
    static final long SMALLEST_LOAN_BYTES = 1 << 20;

    private IdleMemoryLoan() {}

    /**
     * The loan the block cache can spare in {@code room}; {@code cacheEvicting} says whether the
     * decoded-value cache evicted since the last check, the only case in which more helps it.
     */
    static long wanted(BlockCacheRoom room, boolean cacheEvicting) {
        long lent = room.lentBytes();
        long idle = room.idleBytes();
        if (cacheEvicting && idle > room.capacity() / 4) {
            return lent + idle / 2;
        }
        if (idle < room.capacity() / 16 && lent > 0) {
            return lent / 2 < SMALLEST_LOAN_BYTES ? 0 : lent / 2;
        }
        return lent;
    }
}
