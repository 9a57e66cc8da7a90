package io.streamfusion.bench;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.Map;

/**
 * MapState get, put, contains and iterate over uniformly random keys with a few user keys each, in
 * the manner of Flink's MapStateBenchmark.
 */
public class MapStateBenchmark extends KeyedStateBenchmarkBase {

    private static final int USER_KEYS = 4;

    private MapState<Long, Long> state;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        createBackend();
        state =
                registerState(
                        new MapStateDescriptor<>(
                                "map", LongSerializer.INSTANCE, LongSerializer.INSTANCE));
        for (long key = 0; key < keys; key++) {
            underTest.keyed().setCurrentKey(key);
            for (long userKey = 0; userKey < USER_KEYS; userKey++) {
                state.put(userKey, key);
            }
        }
    }

    @Benchmark
    public Long mapGet() throws Exception {
        randomKey();
        return state.get((long) random.nextInt(USER_KEYS));
    }

    @Benchmark
    public void mapPut() throws Exception {
        randomKey();
        state.put((long) random.nextInt(USER_KEYS), 9L);
    }

    @Benchmark
    public boolean mapContains() throws Exception {
        randomKey();
        return state.contains((long) random.nextInt(USER_KEYS * 2));
    }

    @Benchmark
    public void mapIterate(Blackhole sink) throws Exception {
        randomKey();
        for (Map.Entry<Long, Long> entry : state.entries()) {
            sink.consume(entry.getValue());
        }
    }
}
