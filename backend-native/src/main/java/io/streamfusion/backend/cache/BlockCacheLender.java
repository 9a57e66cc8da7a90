package io.streamfusion.backend.cache;

/**
 * The slot's RocksDB block cache, seen by a {@link DecodedValueCache} that may borrow the part of
 * it RocksDB leaves idle. The block cache shrinks by what it lends, so the slot stays within its
 * budget.
 */
public interface BlockCacheLender {

    /** The block cache's capacity, idle bytes and current loan, from one read. */
    BlockCacheRoom room();

    /**
     * Lends {@code bytes} in place of the current loan (0 returns it all); returns what was lent.
     */
    long lend(long bytes);

    /**
     * Grows the block cache by {@code bytes} of the decoded-value cache's own share in place of
     * what it gave before (0 takes it all back); returns what was accepted.
     */
    long accept(long bytes);
}
