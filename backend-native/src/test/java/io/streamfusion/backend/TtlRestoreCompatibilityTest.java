package io.streamfusion.backend;

import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.util.ExceptionUtils;
import org.apache.flink.util.StateMigrationException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Restoring TTL state from a native checkpoint: the values survive a changed time to live, and an
 * incompatible value serializer under TTL is refused with Flink's StateMigrationException instead
 * of reading the old bytes wrongly.
 */
class TtlRestoreCompatibilityTest extends MockEnvironmentTestBase {

    @TempDir File dir;

    private static <T> ValueStateDescriptor<T> withTtl(
            ValueStateDescriptor<T> descriptor, Duration ttl) {
        descriptor.enableTimeToLive(StateTtlConfig.newBuilder(ttl).build());
        return descriptor;
    }

    private KeyedStateHandle checkpointWithTtlState() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend =
                TestKeyedBackends.create(env, new File(dir, "source"), LongSerializer.INSTANCE);
        try {
            ValueState<Long> state =
                    backend.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            withTtl(
                                    new ValueStateDescriptor<>("guarded", LongSerializer.INSTANCE),
                                    Duration.ofDays(1)));
            backend.setCurrentKey(1L);
            state.update(41L);
            return TestSnapshots.checkpoint(
                    backend, 1, TestSnapshots.fileStreams(new File(dir, "storage"), 1));
        } finally {
            backend.dispose();
        }
    }

    @Test
    void aLongerTimeToLiveKeepsTheValues() throws Exception {
        StreamFusionKeyedStateBackend<Long> restored =
                TestKeyedBackends.restore(
                        env,
                        new File(dir, "restored"),
                        LongSerializer.INSTANCE,
                        List.of(checkpointWithTtlState()));
        try {
            ValueState<Long> state =
                    restored.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            withTtl(
                                    new ValueStateDescriptor<>("guarded", LongSerializer.INSTANCE),
                                    Duration.ofDays(2)));
            restored.setCurrentKey(1L);
            assertEquals(41L, state.value());
        } finally {
            restored.dispose();
        }
    }

    @Test
    void anIncompatibleSerializerUnderTtlIsRefused() throws Exception {
        StreamFusionKeyedStateBackend<Long> restored =
                TestKeyedBackends.restore(
                        env,
                        new File(dir, "restored"),
                        LongSerializer.INSTANCE,
                        List.of(checkpointWithTtlState()));
        try {
            Exception e =
                    assertThrows(
                            Exception.class,
                            () ->
                                    restored.getPartitionedState(
                                            VoidNamespace.INSTANCE,
                                            VoidNamespaceSerializer.INSTANCE,
                                            withTtl(
                                                    new ValueStateDescriptor<>(
                                                            "guarded", StringSerializer.INSTANCE),
                                                    Duration.ofDays(1))));
            assertTrue(
                    ExceptionUtils.findThrowable(e, StateMigrationException.class).isPresent(),
                    String.valueOf(e));
        } finally {
            restored.dispose();
        }
    }
}
