package io.streamfusion.backend;

import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * With {@code cleanupFullSnapshot()}, a canonical savepoint leaves expired entries out, while a
 * native checkpoint keeps its RocksDB files as they are (expired values stay invisible to reads).
 */
class TtlSavepointCleanupTest extends MockEnvironmentTestBase {

    @TempDir File dir;
    private long now;
    private final TtlTimeProvider clock = () -> now;

    private static ValueStateDescriptor<Long> descriptor() {
        ValueStateDescriptor<Long> descriptor =
                new ValueStateDescriptor<>("expiring", LongSerializer.INSTANCE);
        descriptor.enableTimeToLive(
                StateTtlConfig.newBuilder(Duration.ofMillis(100)).cleanupFullSnapshot().build());
        return descriptor;
    }

    private StreamFusionKeyedStateBackend<Long> backend(String name, List<KeyedStateHandle> handles)
            throws Exception {
        return TestKeyedBackends.in(env, new File(dir, name))
                .restoring(handles)
                .ttlTime(clock)
                .build(LongSerializer.INSTANCE);
    }

    @Test
    void canonicalSavepointsDropExpiredEntriesAndCheckpointsKeepTheirFiles() throws Exception {
        KeyedStateHandle savepoint;
        KeyedStateHandle checkpoint;
        StreamFusionKeyedStateBackend<Long> backend = backend("source", List.of());
        try {
            ValueState<Long> state =
                    backend.getPartitionedState(
                            VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor());
            now = 0;
            for (long key = 0; key < 100; key++) {
                backend.setCurrentKey(key);
                state.update(key);
            }
            now = 60;
            for (long key = 0; key < 10; key++) {
                backend.setCurrentKey(key);
                state.update(key + 1000);
            }
            // Keys 10..99 expired at 100; keys 0..9 live until 160.
            now = 120;
            savepoint =
                    TestSnapshots.canonicalSavepoint(
                            backend, 1, TestSnapshots.fileStreams(new File(dir, "storage"), 1));
            checkpoint =
                    TestSnapshots.checkpoint(
                            backend, 2, TestSnapshots.fileStreams(new File(dir, "storage"), 2));
        } finally {
            backend.dispose();
        }
        StreamFusionKeyedStateBackend<Long> fromSavepoint =
                backend("from-savepoint", List.of(savepoint));
        try {
            assertEquals(
                    10,
                    fromSavepoint.numKeyValueStateEntries(),
                    "only unexpired entries are in the savepoint");
            ValueState<Long> state =
                    fromSavepoint.getPartitionedState(
                            VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor());
            fromSavepoint.setCurrentKey(3L);
            assertEquals(1003L, state.value());
        } finally {
            fromSavepoint.dispose();
        }
        StreamFusionKeyedStateBackend<Long> fromCheckpoint =
                backend("from-checkpoint", List.of(checkpoint));
        try {
            assertEquals(
                    100,
                    fromCheckpoint.numKeyValueStateEntries(),
                    "a native checkpoint copies files as they are");
            ValueState<Long> state =
                    fromCheckpoint.getPartitionedState(
                            VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor());
            fromCheckpoint.setCurrentKey(50L);
            assertNull(state.value(), "expired entries stay invisible");
        } finally {
            fromCheckpoint.dispose();
        }
    }
}
