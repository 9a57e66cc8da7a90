package io.streamfusion.backend;

import io.streamfusion.backend.cache.DecodedValueCache;

import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.SerializedCompositeKeyBuilder;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** A keyed backend with {@code Long} keys in a slot large enough for the decoded-value cache. */
abstract class SlotCacheTestBase {

    @TempDir File dir;
    MockEnvironment env;
    StreamFusionKeyedStateBackend<Long> backend;

    @BeforeEach
    void createBackend() throws Exception {
        // Enough managed memory for the default 64 MiB cache plus as much again for RocksDB.
        env = TestKeyedBackends.environment(256L << 20);
        backend = TestKeyedBackends.create(env, dir, LongSerializer.INSTANCE);
        assertTrue(cache() != null, "the cache is reserved from a 256 MiB slot");
    }

    @AfterEach
    void disposeBackend() throws Exception {
        backend.dispose();
        env.close();
    }

    DecodedValueCache cache() {
        return backend.slotCacheForTests();
    }

    /** A builder of the backend's stored keys, set to {@code key} and its key group. */
    SerializedCompositeKeyBuilder<Long> keyBuilder(long key) {
        SerializedCompositeKeyBuilder<Long> builder =
                new SerializedCompositeKeyBuilder<>(
                        LongSerializer.INSTANCE, backend.getKeyGroupPrefixBytes(), 16);
        builder.setKeyAndKeyGroup(
                key, KeyGroupRangeAssignment.assignToKeyGroup(key, backend.getNumberOfKeyGroups()));
        return builder;
    }
}
