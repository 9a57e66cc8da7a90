package io.streamfusion.backend.cache;

import org.apache.flink.api.common.typeutils.base.LongSerializer;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A decoded-value cache borrows the block cache RocksDB leaves idle, and gives it back. */
class IdleMemoryLoanTest {

    private static final long MIB = 1 << 20;

    private FakeBlockCacheLender lender;
    private DecodedValueCache cache;
    private StateValueCache<Long> view;

    /** A cache of 1 MiB of its own, borrowing from {@code from} (if not null). */
    private void cacheBorrowingFrom(FakeBlockCacheLender from) {
        lender = from;
        cache = new DecodedValueCache(MIB, from);
        view = new StateValueCache<>(cache, 1, LongSerializer.INSTANCE);
    }

    private static byte[] key(long key) {
        return ByteBuffer.allocate(9).put((byte) 1).putLong(key).array();
    }

    /** Admits keys 0 to {@code keys} (each weighs about 113 bytes), reading each once first. */
    private static void readAll(StateValueCache<Long> view, long keys) throws Exception {
        for (long key = 0; key < keys; key++) {
            if (view.get(key(key)) == null) {
                view.admitRead(key(key), key, new byte[8]);
            }
        }
    }

    private static long cached(StateValueCache<Long> view, long keys) throws Exception {
        long cached = 0;
        for (long key = 0; key < keys; key++) {
            cached += view.get(key(key)) == null ? 0 : 1;
        }
        return cached;
    }

    @Test
    void aFullCacheBorrowsHalfOfTheIdleBlockCacheAndKeepsMoreValues() throws Exception {
        cacheBorrowingFrom(new FakeBlockCacheLender(64 * MIB, 4 * MIB, 64 * MIB));
        long keys = 50_000;
        readAll(view, keys);
        assertTrue(cache.stats().evictionCount() > 0, "5.6 MB of values fill 1 MiB");
        long before = cached(view, keys);

        cache.rebalance();
        assertEquals(30 * MIB, lender.lent, "half of the 60 MiB idle");
        assertEquals(31 * MIB, cache.capacityBytes());
        assertEquals(30 * MIB, cache.borrowedBytes());
        readAll(view, keys);
        readAll(view, keys);
        assertEquals(keys, cached(view, keys), "every value fits now; it held " + before);
        assertTrue(cache.weightedBytes() > MIB);
    }

    @Test
    void aCacheShrinksToWhatAnOperatorsReservationLeftOfItsLoan() throws Exception {
        cacheBorrowingFrom(new FakeBlockCacheLender(64 * MIB, 0, 64 * MIB));
        readAll(view, 50_000);
        cache.rebalance();
        readAll(view, 100_000);
        assertEquals(33 * MIB, cache.capacityBytes());

        lender.lent = 4 * MIB; // a reservation took 28 MiB of the loan back
        lender.lendable = 4 * MIB;
        cache.rebalance();
        assertEquals(5 * MIB, cache.capacityBytes());
        assertTrue(cache.weightedBytes() <= 5 * MIB, "evicted down to the smaller loan");
    }

    @Test
    void aCacheThatDoesNotEvictBorrowsNothing() throws Exception {
        cacheBorrowingFrom(new FakeBlockCacheLender(64 * MIB, 0, 64 * MIB));
        readAll(view, 1_000);
        cache.rebalance();
        assertEquals(0, lender.lent);
        assertEquals(MIB, cache.capacityBytes());
    }

    @Test
    void theLoanGoesBackHalfAtATimeWhenRocksDbFillsItsCache() throws Exception {
        cacheBorrowingFrom(new FakeBlockCacheLender(64 * MIB, 0, 64 * MIB));
        readAll(view, 50_000);
        cache.rebalance();
        assertEquals(32 * MIB, lender.lent);
        readAll(view, 100_000);
        long heldBefore = cache.weightedBytes();
        assertTrue(heldBefore > 8 * MIB, "the grown cache fills: " + heldBefore);

        lender.used = lender.blockCacheCapacity() - MIB; // RocksDB's blocks fill its cache
        cache.rebalance();
        assertEquals(16 * MIB, lender.lent);
        assertEquals(17 * MIB, cache.capacityBytes());
        assertTrue(cache.weightedBytes() <= cache.capacityBytes(), "evicted before returning");
        for (int check = 0; check < 8; check++) {
            lender.used = lender.blockCacheCapacity();
            cache.rebalance();
        }
        assertEquals(0, lender.lent, "below 1 MiB the rest goes back at once");
        assertEquals(MIB, cache.capacityBytes());
        assertTrue(cache.weightedBytes() <= MIB);
    }

    @Test
    void aLoanIsWhatTheLenderGrants() throws Exception {
        cacheBorrowingFrom(new FakeBlockCacheLender(64 * MIB, 0, 10 * MIB));
        readAll(view, 50_000);
        cache.rebalance();
        assertEquals(11 * MIB, cache.capacityBytes());
    }

    @Test
    void keysCountedCheckTheLoan() throws Exception {
        cacheBorrowingFrom(new FakeBlockCacheLender(64 * MIB, 0, 64 * MIB));
        readAll(view, 20_000);
        for (int key = 1; key < DecodedValueCache.CHECK_INTERVAL_KEYS; key++) {
            cache.countKey();
        }
        assertEquals(0, cache.borrowedBytes(), "one key short of a check");
        cache.countKey();
        assertTrue(cache.borrowedBytes() > 0, "the check found the cache evicting");

        lender.used = lender.blockCacheCapacity();
        for (int key = 0; key < DecodedValueCache.CHECK_INTERVAL_KEYS; key++) {
            cache.countKey();
        }
        assertTrue(
                cache.borrowedBytes() < 32 * MIB,
                "without a single read, the next check gives memory back");
    }

    @Test
    void aCacheWithoutLenderKeepsItsSize() throws Exception {
        cacheBorrowingFrom(null);
        readAll(view, 50_000);
        for (int key = 0; key < DecodedValueCache.CHECK_INTERVAL_KEYS; key++) {
            cache.countKey();
        }
        cache.rebalance();
        assertEquals(MIB, cache.capacityBytes());
        assertEquals(0, cache.borrowedBytes());
    }
}
