package io.streamfusion.backend.cache;

import org.apache.flink.api.common.typeutils.base.LongSerializer;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The task threads of a slot share one value cache: each thread's states see their own values only,
 * whatever the others admit and evict meanwhile.
 */
class SharedValueCacheTest {

    private static final int THREADS = 4;
    private static final int KEYS = 40_000;

    private static byte[] key(long key) {
        return ByteBuffer.allocate(10).putShort((short) (key % 128)).putLong(key).array();
    }

    @Test
    void threadsSharingTheCacheReadOnlyTheirOwnStatesValues() throws Exception {
        // 16 MiB: four segments, and room for about half of the keys, so threads evict each other.
        DecodedValueCache cache = new DecodedValueCache(16 << 20);
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Long>> hits = new ArrayList<>();
            for (int thread = 0; thread < THREADS; thread++) {
                long owner = thread;
                hits.add(threads.submit(() -> readAndWrite(cache, owner)));
            }
            long total = 0;
            for (Future<Long> threadHits : hits) {
                total += threadHits.get();
            }
            assertTrue(total > 0, "the cache served reads");
            assertEquals(total, cache.stats().hitCount());
        } finally {
            threads.shutdownNow();
        }
        assertTrue(cache.stats().evictionCount() > 0, "the threads evicted each other");
        assertTrue(cache.weightedBytes() <= cache.capacityBytes());
        for (int owner = 0; owner < THREADS; owner++) {
            cache.invalidateOwner(owner);
        }
        assertEquals(0, cache.entries());
    }

    /** One task thread's reads and writes of its own state, checked against its own copy. */
    private static long readAndWrite(DecodedValueCache cache, long owner) throws Exception {
        StateValueCache<Long> state = new StateValueCache<>(cache, owner, LongSerializer.INSTANCE);
        long[] stored = new long[KEYS];
        SplittableRandom random = new SplittableRandom(owner);
        long hits = 0;
        for (int op = 0; op < 400_000; op++) {
            int key = random.nextInt(KEYS);
            if (random.nextInt(4) == 0) {
                stored[key] = owner << 32 | op;
                state.afterWrite(key(key), stored[key], new byte[8]);
                continue;
            }
            Object cached = state.lookup(key(key));
            if (cached == StateValueCache.NOT_CACHED) {
                state.admitRead(key(key), stored[key], new byte[8]);
            } else {
                assertEquals(stored[key], cached, "owner " + owner + " key " + key);
                hits++;
            }
        }
        return hits;
    }
}
