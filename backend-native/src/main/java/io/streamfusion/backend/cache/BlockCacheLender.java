package io.streamfusion.backend.cache;

/**
 * The slot's RocksDB block cache, seen by a {@link DecodedValueCache} that may borrow the part of
 * it RocksDB leaves idle. The block cache shrinks by what it lends, so the slot stays within its
 * budget.
 */
public interface BlockCacheLender {

    /** The block cache's capacity now, after reservations and the current loan. */
    long blockCacheCapacity();

    /**
     * Bytes of the block cache that RocksDB does not use and would not use even with every memtable
     * full.
     */
    long idleBlockCacheBytes();

    /**
     * Bytes lent now: less than last lent when an operator's reservation took part of the loan
     * back.
     */
    long lentBytes();

    /**
     * Lends {@code bytes} in place of the current loan (0 returns it all); returns what was lent.
     */
    long lend(long bytes);
}
