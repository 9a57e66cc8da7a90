package io.streamfusion.bench;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

import java.util.Map;
import java.util.SplittableRandom;

/**
 * MapState get, put, contains and iterate over uniformly random keys with a few user keys
 * each, in the manner of Flink's MapStateBenchmark.
 */
@State(Scope.Thread)
public class MapStateBenchmark {

    private static final int USER_KEYS = 4;

    @Param({"hashmap", "rocksdb", "streamfusion"})
    public String backend;

    @Param({"1000000"})
    public int keys;

    private BackendUnderTest underTest;
    private MapState<Long, Long> state;
    private final SplittableRandom random = new SplittableRandom(42);

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        underTest = BackendUnderTest.create(backend);
        state =
                underTest.keyed()
                        .getPartitionedState(
                                VoidNamespace.INSTANCE,
                                VoidNamespaceSerializer.INSTANCE,
                                new MapStateDescriptor<>("map", LongSerializer.INSTANCE, LongSerializer.INSTANCE));
        for (long key = 0; key < keys; key++) {
            underTest.keyed().setCurrentKey(key);
            for (long userKey = 0; userKey < USER_KEYS; userKey++) {
                state.put(userKey, key);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        underTest.close();
    }

    private void randomKey() {
        underTest.keyed().setCurrentKey((long) random.nextInt(keys));
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
