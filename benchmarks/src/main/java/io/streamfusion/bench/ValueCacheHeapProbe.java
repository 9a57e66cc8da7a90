package io.streamfusion.bench;

import io.streamfusion.api.StreamFusionOptions;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Compares the heap the decoded-value cache holds with what it weighs itself at (the {@code
 * valueCacheBytes} gauge). For a {@code ValueState<Long>} (10-byte keys) and a {@code
 * MapState<Long, Long>} with one user key each (18-byte keys), it loads the keys, measures the heap
 * after full collections, reads every key twice with a cache large enough for all of them (the
 * first read admits the value, the second hits), and measures the heap again.
 *
 * <p>Usage: {@code ValueCacheHeapProbe [keys]}, default 1,000,000; run with {@code -Xmx4g}.
 */
public final class ValueCacheHeapProbe {

    private ValueCacheHeapProbe() {}

    public static void main(String[] args) throws Exception {
        int keys = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        probe("value", keys);
        probe("map", keys);
    }

    private static void probe(String kind, int keys) throws Exception {
        Configuration options = new Configuration();
        options.set(StreamFusionOptions.FIXED_MEMORY_PER_SLOT, MemorySize.parse("2g"));
        options.set(StreamFusionOptions.CACHE_SIZE, MemorySize.parse("1g"));
        CapturedGauges metrics = new CapturedGauges();
        try (BackendUnderTest underTest =
                BackendUnderTest.create("streamfusion", options, metrics)) {
            Reader reader = "map".equals(kind) ? mapReader(underTest) : valueReader(underTest);
            for (long key = 0; key < keys; key++) {
                underTest.keyed().setCurrentKey(key);
                reader.write(key);
            }
            long before = heapAfterCollections();
            long checksum = 0;
            for (int pass = 0; pass < 2; pass++) {
                for (long key = 0; key < keys; key++) {
                    underTest.keyed().setCurrentKey(key);
                    checksum += reader.read();
                }
            }
            long held = heapAfterCollections() - before;
            long weighed = metrics.value("valueCacheBytes");
            System.out.printf(
                    Locale.ROOT,
                    "%s state, %,d keys: cache weighed %,d bytes (%.1f per key), heap grew"
                            + " %,d bytes (%.1f per key); hits %,d, misses %,d (checksum %d)%n",
                    kind,
                    keys,
                    weighed,
                    weighed / (double) keys,
                    held,
                    held / (double) keys,
                    metrics.value("valueCacheHits"),
                    metrics.value("valueCacheMisses"),
                    checksum);
        }
    }

    /** Writes and reads one state at the current key. */
    private interface Reader {
        void write(long key) throws Exception;

        long read() throws Exception;
    }

    private static Reader valueReader(BackendUnderTest underTest) throws Exception {
        ValueState<Long> state =
                register(underTest, new ValueStateDescriptor<>("value", LongSerializer.INSTANCE));
        return new Reader() {
            @Override
            public void write(long key) throws Exception {
                state.update(key);
            }

            @Override
            public long read() throws Exception {
                return state.value();
            }
        };
    }

    private static Reader mapReader(BackendUnderTest underTest) throws Exception {
        MapState<Long, Long> state =
                register(
                        underTest,
                        new MapStateDescriptor<>(
                                "map", LongSerializer.INSTANCE, LongSerializer.INSTANCE));
        return new Reader() {
            @Override
            public void write(long key) throws Exception {
                state.put(1L, key);
            }

            @Override
            public long read() throws Exception {
                return state.get(1L);
            }
        };
    }

    private static <S extends State> S register(
            BackendUnderTest underTest, StateDescriptor<S, ?> descriptor) throws Exception {
        return underTest
                .keyed()
                .getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    private static long heapAfterCollections() throws InterruptedException {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }

    /** A metric group that keeps the gauges registered in it or any of its subgroups. */
    private static final class CapturedGauges extends UnregisteredMetricsGroup {

        private final Map<String, Gauge<?>> gauges = new HashMap<>();

        @Override
        public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
            gauges.put(name, gauge);
            return gauge;
        }

        @Override
        public MetricGroup addGroup(String name) {
            return this;
        }

        long value(String name) {
            return ((Number) gauges.get(name).getValue()).longValue();
        }
    }
}
