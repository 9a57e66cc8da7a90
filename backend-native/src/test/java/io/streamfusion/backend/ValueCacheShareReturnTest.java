package io.streamfusion.backend;

import io.streamfusion.backend.cache.DecodedValueCache;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A slot whose state is many times its decoded-value cache: read uniformly, the cache gives most of
 * its share to the block cache and reads stay exact, and it takes the share back once the reads fit
 * it again.
 */
class ValueCacheShareReturnTest {

    /** 24 MiB: a cache share of 3 MiB, about 15k of the values, and a block cache of 17.5 MiB. */
    private static final long SLOT_BYTES = 24L << 20;

    /** About 32 MB of keys and values: far more than the block cache. */
    private static final int KEYS = 400_000;

    @TempDir File dir;
    private MockEnvironment env;
    private StreamFusionKeyedStateBackend<Long> backend;
    private ValueState<String> state;
    private final SplittableRandom random = new SplittableRandom(11);

    @BeforeEach
    void loadState() throws Exception {
        env = TestKeyedBackends.environment(SLOT_BYTES);
        backend = TestKeyedBackends.create(env, dir, LongSerializer.INSTANCE);
        state =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>("v", StringSerializer.INSTANCE));
        for (long key = 0; key < KEYS; key++) {
            backend.setCurrentKey(key);
            state.update(value(key, 0));
        }
    }

    @AfterEach
    void dispose() throws Exception {
        backend.dispose();
        env.close();
    }

    private static String value(long key, int version) {
        return String.format("%050d-%d", key, version);
    }

    private DecodedValueCache cache() {
        return backend.slotCacheForTests();
    }

    /** Reads {@code reads} keys drawn from {@code [0, keys)}, checking each value. */
    private void readUniformly(int keys, int reads, int version) throws Exception {
        for (int read = 0; read < reads; read++) {
            long key = random.nextInt(keys);
            backend.setCurrentKey(key);
            assertEquals(value(key, key < 1_000 ? version : 0), state.value(), "key " + key);
        }
    }

    @Test
    void uniformReadsOfStateFarLargerThanTheCacheGiveItsShareToTheBlockCache() throws Exception {
        long share = cache().capacityBytes();
        readUniformly(KEYS, 600_000, 0);
        assertEquals(share - share / 8, cache().givenBytes(), "all but an eighth given");
        assertEquals(share / 8, cache().capacityBytes());

        // Writes while reads are sampled keep cached keys current.
        for (long key = 0; key < 1_000; key++) {
            backend.setCurrentKey(key);
            state.update(value(key, 1));
        }
        readUniformly(KEYS, 100_000, 1);
        for (int round = 0; round < 8; round++) {
            readUniformly(1_000, 1_000, 1);
        }

        // 5,000 keys fit the whole share: the sampled hits say so, and the share comes back.
        readUniformly(5_000, 300_000, 1);
        assertEquals(0, cache().givenBytes());
        assertEquals(share, cache().capacityBytes());
        long hits = cache().stats().hitCount();
        readUniformly(5_000, 10_000, 1);
        assertTrue(cache().stats().hitCount() - hits > 9_000, "the 5,000 keys are cached again");
    }
}
