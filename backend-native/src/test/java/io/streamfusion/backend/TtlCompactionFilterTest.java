package io.streamfusion.backend;

import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.backend.nativelib.EntryBatchReader;
import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.state.AggregatingState;
import org.apache.flink.api.common.state.AggregatingStateDescriptor;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReducingState;
import org.apache.flink.api.common.state.ReducingStateDescriptor;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The native TTL compaction filter physically removes expired entries of every state kind, counted
 * natively after a compaction; lists lose only their expired elements. Keys 0..99 are written at
 * time 0, keys 0..9 again at time 150; at time 200 (TTL 100) only keys 0..9 live.
 */
class TtlCompactionFilterTest extends MockEnvironmentTestBase {

    private static final StateTtlConfig TTL =
            StateTtlConfig.newBuilder(Duration.ofMillis(100)).build();
    private static final long KEYS = 100;
    private static final long REWRITTEN = 10;

    @TempDir File dir;
    private long now;
    private final TtlTimeProvider clock = () -> now;

    /** Writes one entry (or element) for the current key. */
    @FunctionalInterface
    private interface Writer {
        void write(long key) throws Exception;
    }

    private StreamFusionKeyedStateBackend<Long> backend(boolean filterEnabled) throws Exception {
        Configuration config = new Configuration();
        config.set(StreamFusionOptions.TTL_COMPACTION_FILTER_ENABLED, filterEnabled);
        return TestKeyedBackends.in(env, dir)
                .ttlTime(clock)
                .config(config)
                .build(LongSerializer.INSTANCE);
    }

    private static <S extends org.apache.flink.api.common.state.State> S state(
            StreamFusionKeyedStateBackend<Long> backend, StateDescriptor<S, ?> descriptor)
            throws Exception {
        descriptor.enableTimeToLive(TTL);
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    /** Writes, expires, compacts; returns the values left in the state's column family. */
    private List<byte[]> writeExpireAndCompact(
            StreamFusionKeyedStateBackend<Long> backend, String name, Writer writer)
            throws Exception {
        now = 0;
        for (long key = 0; key < KEYS; key++) {
            backend.setCurrentKey(key);
            writer.write(key);
        }
        now = 150;
        for (long key = 0; key < REWRITTEN; key++) {
            backend.setCurrentKey(key);
            writer.write(key);
        }
        NativeColumnFamily columnFamily = backend.nativeColumns().get(name);
        assertTrue(
                columnFamily.countEntries() >= KEYS,
                "every entry is on disk before the compaction");
        now = 200;
        columnFamily.compact();
        List<byte[]> values = new ArrayList<>();
        EntryBatchReader entries =
                new EntryBatchReader(columnFamily.scanPrefix(new byte[0], null, 64 << 20));
        while (entries.advance()) {
            values.add(entries.value());
        }
        return values;
    }

    @Test
    void valueStateEntriesAreRemoved() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend = backend(true);
        try {
            ValueState<Long> state =
                    state(backend, new ValueStateDescriptor<>("value", LongSerializer.INSTANCE));
            assertEquals(REWRITTEN, writeExpireAndCompact(backend, "value", state::update).size());
            backend.setCurrentKey(3L);
            assertEquals(3L, state.value());
        } finally {
            backend.dispose();
        }
    }

    @Test
    void mapStateEntriesAreRemoved() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend = backend(true);
        try {
            MapState<String, Long> state =
                    state(
                            backend,
                            new MapStateDescriptor<>(
                                    "map", StringSerializer.INSTANCE, LongSerializer.INSTANCE));
            assertEquals(
                    REWRITTEN,
                    writeExpireAndCompact(backend, "map", key -> state.put("k", key)).size());
        } finally {
            backend.dispose();
        }
    }

    @Test
    void reducingAndAggregatingStateEntriesAreRemoved() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend = backend(true);
        try {
            ReducingState<Long> reducing =
                    state(
                            backend,
                            new ReducingStateDescriptor<>(
                                    "reducing", Long::sum, LongSerializer.INSTANCE));
            assertEquals(
                    REWRITTEN, writeExpireAndCompact(backend, "reducing", reducing::add).size());
            AggregatingState<Long, Long> aggregating =
                    state(
                            backend,
                            new AggregatingStateDescriptor<>(
                                    "aggregating", new Sum(), LongSerializer.INSTANCE));
            assertEquals(
                    REWRITTEN,
                    writeExpireAndCompact(backend, "aggregating", aggregating::add).size());
        } finally {
            backend.dispose();
        }
    }

    @Test
    void fixedLengthListsLoseTheirExpiredElements() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend = backend(true);
        try {
            ListState<Long> state =
                    state(backend, new ListStateDescriptor<>("fixed", LongSerializer.INSTANCE));
            List<byte[]> left = writeExpireAndCompact(backend, "fixed", state::add);
            assertEquals(REWRITTEN, left.size());
            // One TtlValue<Long> each: an 8-byte timestamp and an 8-byte long, no delimiter.
            left.forEach(value -> assertEquals(16, value.length));
            backend.setCurrentKey(4L);
            assertEquals(List.of(4L), iterate(state.get()));
        } finally {
            backend.dispose();
        }
    }

    @Test
    void variableLengthListsLoseTheirExpiredElementsThroughTheJvm() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend = backend(true);
        try {
            ListState<String> state =
                    state(
                            backend,
                            new ListStateDescriptor<>("variable", StringSerializer.INSTANCE));
            List<byte[]> left =
                    writeExpireAndCompact(backend, "variable", key -> state.add("v" + key));
            assertEquals(REWRITTEN, left.size());
            // One element each: the timestamp, then "v<key>" (one length byte and two chars).
            left.forEach(value -> assertEquals(8 + 1 + 2, value.length));
            backend.setCurrentKey(7L);
            assertEquals(List.of("v7"), iterate(state.get()));
        } finally {
            backend.dispose();
        }
    }

    @Test
    void switchedOffTheFilterKeepsEverything() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend = backend(false);
        try {
            ValueState<Long> state =
                    state(backend, new ValueStateDescriptor<>("value", LongSerializer.INSTANCE));
            assertEquals(KEYS, writeExpireAndCompact(backend, "value", state::update).size());
        } finally {
            backend.dispose();
        }
    }

    @Test
    void aStateCanOptOutOfBackgroundCleanup() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend = backend(true);
        try {
            ValueStateDescriptor<Long> descriptor =
                    new ValueStateDescriptor<>("value", LongSerializer.INSTANCE);
            descriptor.enableTimeToLive(
                    StateTtlConfig.newBuilder(Duration.ofMillis(100))
                            .disableCleanupInBackground()
                            .build());
            ValueState<Long> state =
                    backend.getPartitionedState(
                            VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
            assertEquals(KEYS, writeExpireAndCompact(backend, "value", state::update).size());
        } finally {
            backend.dispose();
        }
    }

    private static <T> List<T> iterate(Iterable<T> values) {
        List<T> out = new ArrayList<>();
        values.forEach(out::add);
        return out;
    }

    private static final class Sum implements AggregateFunction<Long, Long, Long> {
        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Long value, Long accumulator) {
            return value + accumulator;
        }

        @Override
        public Long getResult(Long accumulator) {
            return accumulator;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }
    }
}
