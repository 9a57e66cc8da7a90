package io.streamfusion.backend.cache;

import org.apache.flink.api.common.typeutils.base.LongSerializer;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A decoded-value cache that few reads hit gives part of its own share to a full block cache, and
 * takes it back once its reads would hit.
 */
class ShareReturnTest {

    private static final long MIB = 1 << 20;

    /** The cache's own share: about 74k values of 113 bytes. */
    private static final long SHARE = 8 * MIB;

    private final SplittableRandom random = new SplittableRandom(7);
    private FakeBlockCacheLender lender;
    private DecodedValueCache cache;
    private StateValueCache<Long> view;

    /** A cache of {@link #SHARE} beside a block cache of 64 MiB with {@code used} bytes used. */
    private void cacheBeside(long used) {
        lender = new FakeBlockCacheLender(64 * MIB, used, 64 * MIB);
        cache = new DecodedValueCache(SHARE, lender);
        lender.watched = cache;
        view = new StateValueCache<>(cache, 1, LongSerializer.INSTANCE);
    }

    private static byte[] key(long key) {
        return ByteBuffer.allocate(9).put((byte) 1).putLong(key).array();
    }

    /** Reads {@code key}, admitting it on a miss as a state read from RocksDB would. */
    private void read(long key) throws Exception {
        if (view.get(key(key)) == null) {
            view.admitRead(key(key), key, new byte[8]);
        }
    }

    /** Reads {@code reads} uniformly random keys of {@code [0, keys)}. */
    private void readUniformly(long keys, int reads) throws Exception {
        for (int read = 0; read < reads; read++) {
            read(random.nextLong(keys));
        }
    }

    /** Reads like {@link #readUniformly}, then checks the share. */
    private void readThenCheck(long keys, int reads) throws Exception {
        readUniformly(keys, reads);
        cache.rebalance();
    }

    /** Reads far more keys than fit, beside a full block cache, until the cache keeps an eighth. */
    private void keepAnEighthBesideAFullBlockCache() throws Exception {
        cacheBeside(64 * MIB);
        for (int check = 0; check < 4; check++) {
            readThenCheck(2_000_000, 100_000);
            lender.used = lender.blockCacheCapacity();
        }
        assertEquals(SHARE / 8, cache.capacityBytes());
    }

    @Test
    void aCacheThatFewReadsHitGivesHalfItsShareAtEachCheckDownToAnEighth() throws Exception {
        cacheBeside(64 * MIB);
        readThenCheck(2_000_000, 200_000); // fills the cache; holds under 4% of the keys
        assertEquals(SHARE / 2, cache.givenBytes());
        assertEquals(SHARE / 2, lender.accepted);
        assertEquals(SHARE / 2, lender.capacityOfWatchedAtAccept, "shrunk before giving");
        assertEquals(SHARE / 2, cache.capacityBytes());
        assertTrue(cache.weightedBytes() <= SHARE / 2);
        assertEquals(64 * MIB + SHARE / 2, lender.blockCacheCapacity());
        lender.used = lender.blockCacheCapacity();

        for (int check = 0; check < 4; check++) {
            readThenCheck(2_000_000, 50_000);
            lender.used = lender.blockCacheCapacity();
        }
        assertEquals(SHARE - SHARE / 8, cache.givenBytes(), "it keeps an eighth to measure");
        assertEquals(SHARE / 8, cache.capacityBytes());
        assertEquals(0, cache.borrowedBytes());
    }

    @Test
    void itTakesItsShareBackTwiceWhatItHoldsAtEachCheckOnceItsReadsWouldHit() throws Exception {
        keepAnEighthBesideAFullBlockCache();

        // 40k keys fit the whole share: an eighth of it hits about a quarter of their reads.
        readThenCheck(40_000, 100_000);
        assertEquals(SHARE / 4, cache.capacityBytes());
        assertEquals(SHARE - SHARE / 4, lender.accepted);
        assertEquals(SHARE / 8, lender.capacityOfWatchedAtAccept, "the block cache shrank first");
        readThenCheck(40_000, 100_000);
        readThenCheck(40_000, 100_000);
        assertEquals(0, cache.givenBytes());
        assertEquals(SHARE, cache.capacityBytes());
        assertEquals(64 * MIB, lender.blockCacheCapacity());
        for (long key = 0; key < 40_000; key++) {
            read(key);
        }
        long hitsBefore = cache.stats().hitCount();
        readUniformly(40_000, 10_000);
        assertEquals(10_000, cache.stats().hitCount() - hitsBefore, "every key cached again");
    }

    @Test
    void keepingAnEighthOneReadInEightConsultsTheCacheAndWritesKeepItCurrent() throws Exception {
        keepAnEighthBesideAFullBlockCache();
        assertEquals(10_000, consultedOf(80_000));

        long fresh = 10_000_000; // keys no read has seen

        for (long key = fresh; key < fresh + 64; key++) {
            read(key); // admitted when sampled: sampled reads turn the few entries over
        }
        long cached = 0;
        for (long key = fresh; key < fresh + 64; key++) {
            for (int read = 0; read < ReadSampling.SAMPLED_READ_INTERVAL; read++) {
                Long value = view.get(key(key));
                if (value != null) {
                    assertEquals(key, value);
                    cached++;
                }
            }
        }
        assertEquals(8, cached, "one read of each key in eight consulted the cache");
        for (long key = fresh; key < fresh + 64; key++) {
            view.afterWrite(key(key), key + 1, new byte[8]);
        }
        for (long key = fresh; key < fresh + 64; key++) {
            for (int read = 0; read < ReadSampling.SAMPLED_READ_INTERVAL; read++) {
                Long value = view.get(key(key));
                if (value != null) {
                    assertEquals(key + 1, value, "written while its reads were sampled");
                }
            }
        }
    }

    @Test
    void nothingIsGivenWhileTheBlockCacheHasRoom() throws Exception {
        cacheBeside(58 * MIB); // 6 MiB idle: more than a sixteenth, less than a quarter
        readThenCheck(2_000_000, 200_000);
        assertEquals(0, cache.givenBytes());
        assertEquals(0, cache.borrowedBytes(), "nor borrowed: under a quarter idle");
        assertEquals(SHARE, cache.capacityBytes());
    }

    @Test
    void readsAreSampledWhileFewHitEvenWhenTheBlockCacheHasRoom() throws Exception {
        cacheBeside(58 * MIB);
        readThenCheck(2_000_000, 200_000);
        assertEquals(SHARE, cache.capacityBytes(), "the block cache has room: nothing given");
        assertEquals(10_000, consultedOf(80_000), "one read in eight consults the cache");

        // 40k keys fit the whole share: the sampled reads admit them, and their hits say so.
        readThenCheck(40_000, 400_000);
        readThenCheck(40_000, 400_000);
        assertEquals(80_000, consultedOf(80_000), "every read consults the cache again");
    }

    /** How many of {@code reads} uniform reads over 2M keys consulted the cache. */
    private long consultedOf(int reads) throws Exception {
        ValueCacheStats before = cache.stats();
        readUniformly(2_000_000, reads);
        ValueCacheStats after = cache.stats().minus(before);
        return after.hitCount() + after.missCount();
    }

    @Test
    void aQuarterOfTheBlockCacheIdleTakesEverythingBackAtOnce() throws Exception {
        cacheBeside(64 * MIB);
        readThenCheck(2_000_000, 200_000);
        readThenCheck(2_000_000, 50_000);
        assertEquals(SHARE - SHARE / 4, cache.givenBytes());

        lender.used = 0; // RocksDB's blocks were dropped, a state deleted, say
        readThenCheck(2_000_000, 50_000);
        assertEquals(0, cache.givenBytes());
        assertEquals(SHARE, cache.capacityBytes());
        assertEquals(10_000, consultedOf(10_000), "a cache that grew gets every read");
        readThenCheck(2_000_000, 200_000);
        assertTrue(cache.borrowedBytes() > 0, "then it borrows the idle block cache as before");
    }

    @Test
    void aCacheWithRoomLeftOrTooFewReadsKeepsItsShare() throws Exception {
        cacheBeside(64 * MIB);
        readThenCheck(2_000_000, 50_000); // 50k values do not fill 8 MiB
        assertEquals(0, cache.givenBytes(), "not evicting: its keys are still arriving");
        readThenCheck(2_000_000, 100_000);
        assertEquals(SHARE / 2, cache.givenBytes());
        readThenCheck(2_000_000, (int) ShareReturn.MIN_READS - 1);
        assertEquals(SHARE / 2, cache.givenBytes(), "too few reads to judge");
    }

    @Test
    void theHitRateIsScaledToTheWholeShare() {
        BlockCacheRoom full = new BlockCacheRoom(64 * MIB, 0, 0);
        // Holding a quarter of its share, 5.5% hits would be 22% at the whole share: kept.
        assertEquals(
                SHARE * 3 / 4, ShareReturn.wanted(SHARE, SHARE * 3 / 4, 550, 9_450, true, full));
        // 4% would be 16%: halved.
        assertEquals(
                SHARE * 7 / 8, ShareReturn.wanted(SHARE, SHARE * 3 / 4, 400, 9_600, true, full));
        // 7% would be 28%: doubled.
        assertEquals(SHARE / 2, ShareReturn.wanted(SHARE, SHARE * 3 / 4, 700, 9_300, true, full));
        // At its whole share, 5% gives half, but only once the cache evicts.
        assertEquals(SHARE / 2, ShareReturn.wanted(SHARE, 0, 500, 9_500, true, full));
        assertEquals(0, ShareReturn.wanted(SHARE, 0, 500, 9_500, false, full));
    }
}
