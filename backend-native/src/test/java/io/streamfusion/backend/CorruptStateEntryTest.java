package io.streamfusion.backend;

import io.streamfusion.backend.nativelib.EntryBatchReader;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeStateException;
import io.streamfusion.backend.state.StateCorruptionException;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Stored values that their serializer cannot decode fail with {@link StateCorruptionException}
 * naming the state and key group, never with an {@code Error}, whatever length the damage claims;
 * and malformed native answers fail with a message.
 */
class CorruptStateEntryTest extends MockEnvironmentTestBase {

    private static final long KEY = 42L;

    /** A string whose length prefix claims about 2^31 characters, then nothing. */
    private static final byte[] HUGE_STRING = HexFormat.of().parseHex("ffffffff07");

    @TempDir File dir;

    private StreamFusionKeyedStateBackend<Long> backend;

    @BeforeEach
    void createBackend() throws Exception {
        backend = TestKeyedBackends.create(env, dir, LongSerializer.INSTANCE);
        backend.setCurrentKey(KEY);
    }

    @AfterEach
    void disposeBackend() {
        backend.dispose();
    }

    private <S extends org.apache.flink.api.common.state.State> S state(
            org.apache.flink.api.common.state.StateDescriptor<S, ?> descriptor) throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    /** Overwrites every stored value of {@code stateName} with {@code damage}. */
    private void damage(String stateName, byte[] damage) {
        NativeColumnFamily columnFamily = backend.nativeColumns().get(stateName);
        EntryBatchReader entries =
                new EntryBatchReader(columnFamily.scanPrefix(new byte[0], null, 1 << 20));
        while (entries.advance()) {
            columnFamily.put(entries.key(), damage);
        }
    }

    private void assertCorrupt(ThrowingCall read, String stateName) {
        int keyGroup = KeyGroupRangeAssignment.assignToKeyGroup(KEY, TestKeyedBackends.KEY_GROUPS);
        assertThatThrownBy(read::call)
                .isInstanceOf(StateCorruptionException.class)
                .hasMessageContaining(
                        "Corrupt entry in state '" + stateName + "', key group " + keyGroup)
                .hasMessageContaining("that its serializer cannot decode")
                .hasMessageContaining("restore the job from an earlier checkpoint");
    }

    @Test
    void aValueWithAHugeLengthIsCorruptionNotAnError() throws Exception {
        ValueState<String> value =
                state(new ValueStateDescriptor<>("value", StringSerializer.INSTANCE));
        value.update("fine");
        damage("value", HUGE_STRING);
        assertCorrupt(value::value, "value");
    }

    @Test
    void listAndMapValuesThatEndEarlyAreCorruption() throws Exception {
        ListState<String> list =
                state(new ListStateDescriptor<>("list", StringSerializer.INSTANCE));
        list.add("a");
        damage("list", HUGE_STRING);
        assertCorrupt(list::get, "list");

        MapState<String, String> map =
                state(
                        new MapStateDescriptor<>(
                                "map", StringSerializer.INSTANCE, StringSerializer.INSTANCE));
        map.put("k", "v");
        // Not null, then a string claiming 2^31 characters.
        damage("map", HexFormat.of().parseHex("00ffffffff07"));
        assertCorrupt(() -> map.get("k"), "map");
        assertCorrupt(() -> map.iterator().next().getValue(), "map");
    }

    @Test
    void malformedEntryBatchesNameTheProblem() {
        // One entry whose key length claims 16 bytes where 2 remain.
        byte[] batch = HexFormat.of().parseHex("00000000" + "00000010" + "abcd");
        assertThatThrownBy(() -> new EntryBatchReader(batch).advance())
                .isInstanceOf(NativeStateException.class)
                .hasMessage(
                        "A corrupt entry batch of 10 bytes: the key at byte 8 needs 16 bytes but"
                                + " only 2 remain");
        assertThatThrownBy(() -> new EntryBatchReader(new byte[3]).advance())
                .isInstanceOf(NativeStateException.class)
                .hasMessageContaining("the state index at byte 0 needs 4 bytes but only 3 remain");
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void call() throws Exception;
    }
}
