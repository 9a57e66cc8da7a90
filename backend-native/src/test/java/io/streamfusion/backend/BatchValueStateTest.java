package io.streamfusion.backend;

import io.streamfusion.api.BatchValueState;

import org.apache.flink.api.common.state.StateTtlConfig;
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
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Batch access sees and changes the same state as per-record access. */
class BatchValueStateTest {

    @TempDir File dir;
    private MockEnvironment env;
    private StreamFusionKeyedStateBackend<Long> backend;
    private final ValueStateDescriptor<String> descriptor =
            new ValueStateDescriptor<>("names", StringSerializer.INSTANCE);

    @BeforeEach
    void createBackend() throws Exception {
        env = TestKeyedBackends.environment();
        backend = TestKeyedBackends.create(env, dir, LongSerializer.INSTANCE);
    }

    @AfterEach
    void disposeBackend() throws Exception {
        backend.dispose();
        env.close();
    }

    private ValueState<String> perRecord() throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    @Test
    void batchWritesAreSeenPerRecordAndTheOtherWayRound() throws Exception {
        BatchValueState<Long, String> batch = backend.getBatchValueState(descriptor);
        batch.putAll(List.of(1L, 2L, 300L), List.of("one", "two", "three hundred"));

        ValueState<String> state = perRecord();
        backend.setCurrentKey(300L);
        assertEquals("three hundred", state.value());
        backend.setCurrentKey(4L);
        state.update("four");

        assertEquals(
                Arrays.asList("one", null, "four", "three hundred"),
                batch.getAll(List.of(1L, 3L, 4L, 300L)));
        // The backend's current key is not disturbed by batch access.
        assertEquals(4L, backend.getCurrentKey());
        assertEquals("four", state.value());

        batch.removeAll(List.of(1L, 4L));
        assertEquals(Arrays.asList(null, "two", null), batch.getAll(List.of(1L, 2L, 4L)));
        assertEquals(2, backend.numKeyValueStateEntries());
    }

    @Test
    void rejectsMismatchedOrNullValuesAndTtlStates() throws Exception {
        BatchValueState<Long, String> batch = backend.getBatchValueState(descriptor);
        assertThrows(IllegalArgumentException.class, () -> batch.putAll(List.of(1L), List.of()));
        assertThrows(
                IllegalArgumentException.class,
                () -> batch.putAll(List.of(1L), Arrays.asList((String) null)));
        assertEquals(0, backend.numKeyValueStateEntries());

        ValueStateDescriptor<Long> withTtl =
                new ValueStateDescriptor<>("ttl", LongSerializer.INSTANCE);
        withTtl.enableTimeToLive(StateTtlConfig.newBuilder(Duration.ofMinutes(1)).build());
        assertThrows(
                UnsupportedOperationException.class, () -> backend.getBatchValueState(withTtl));
    }

    @Test
    void useAfterDisposeThrowsInsteadOfCrashing() throws Exception {
        ValueState<String> state = perRecord();
        backend.setCurrentKey(1L);
        state.update("x");
        backend.dispose();
        assertThrows(IllegalStateException.class, state::value);
    }
}
