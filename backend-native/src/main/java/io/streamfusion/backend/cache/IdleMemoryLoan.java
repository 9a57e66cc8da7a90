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

    private final BlockCacheLender lender;
    private long lent;

    IdleMemoryLoan(BlockCacheLender lender) {
        this.lender = lender;
    }

    /**
     * The loan as the block cache has it now, which an operator's reservation may have made smaller
     * since it was last lent.
     */
    long refresh() {
        lent = lender.lentBytes();
        return lent;
    }

    /**
     * The loan the block cache can spare now; {@code cacheEvicting} says whether the decoded-value
     * cache evicted since the last check, the only case in which more helps it.
     */
    long wanted(boolean cacheEvicting) {
        long capacity = lender.blockCacheCapacity();
        long idle = lender.idleBlockCacheBytes();
        if (cacheEvicting && idle > capacity / 4) {
            return lent + idle / 2;
        }
        if (idle < capacity / 16 && lent > 0) {
            return lent / 2 < SMALLEST_LOAN_BYTES ? 0 : lent / 2;
        }
        return lent;
    }

    /** Asks for a loan of {@code bytes} in place of the current one; returns what was lent. */
    long lend(long bytes) {
        if (bytes != lent) {
            lent = lender.lend(bytes);
        }
        return lent;
    }

    long lentBytes() {
        return lent;
    }
}
