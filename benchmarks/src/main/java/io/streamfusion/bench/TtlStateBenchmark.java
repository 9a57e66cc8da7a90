package io.streamfusion.bench;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.time.Duration;

/**
 * Value, list and map state with TTL at 1M keys, in the manner of Flink's TtlValueStateBenchmark
 * and its list and map twins: Flink's default TTL config (update on create and write, never return
 * expired, cleanup in background) with a TTL no entry reaches during the run, so every access pays
 * the TTL wrapping and, on RocksDB and StreamFusion, carries the compaction filter. Each trial
 * loads only the state its benchmark uses.
 */
public class TtlStateBenchmark extends KeyedStateBenchmarkBase {

    private static final StateTtlConfig TTL =
            StateTtlConfig.newBuilder(Duration.ofHours(1)).build();

    private ValueState<Long> value;
    private ListState<Long> list;
    private MapState<Long, Long> map;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        createBackend();
        String benchmark = params.getBenchmark();
        if (benchmark.contains("ttlValue")) {
            value =
                    registerState(
                            withTtl(new ValueStateDescriptor<>("value", LongSerializer.INSTANCE)));
        } else if (benchmark.contains("ttlList")) {
            list =
                    registerState(
                            withTtl(new ListStateDescriptor<>("list", LongSerializer.INSTANCE)));
        } else {
            map =
                    registerState(
                            withTtl(
                                    new MapStateDescriptor<>(
                                            "map",
                                            LongSerializer.INSTANCE,
                                            LongSerializer.INSTANCE)));
        }
        for (long key = 0; key < keys; key++) {
            underTest.keyed().setCurrentKey(key);
            if (value != null) {
                value.update(key);
            } else if (list != null) {
                list.add(key);
            } else {
                map.put(key % 8, key);
            }
        }
    }

    private static <D extends StateDescriptor<?, ?>> D withTtl(D descriptor) {
        descriptor.enableTimeToLive(TTL);
        return descriptor;
    }

    @Benchmark
    public Long ttlValueGet() throws Exception {
        randomKey();
        return value.value();
    }

    @Benchmark
    public void ttlValueUpdate() throws Exception {
        randomKey();
        value.update(42L);
    }

    @Benchmark
    public void ttlListAdd() throws Exception {
        randomKey();
        list.add(42L);
    }

    @Benchmark
    public Iterable<Long> ttlListGet() throws Exception {
        randomKey();
        return list.get();
    }

    @Benchmark
    public void ttlMapPut() throws Exception {
        randomKey();
        map.put(3L, 42L);
    }

    @Benchmark
    public Long ttlMapGet() throws Exception {
        randomKey();
        return map.get(3L);
    }
}
