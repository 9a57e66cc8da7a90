package io.streamfusion.bench;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
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

import java.util.SplittableRandom;

/**
 * ValueState get and update over uniformly random keys, in the manner of Flink's own
 * ValueStateBenchmark, at 1M keys by default.
 */
@State(Scope.Thread)
public class ValueStateBenchmark {

    @Param({"hashmap", "rocksdb", "streamfusion"})
    public String backend;

    @Param({"1000000"})
    public int keys;

    private BackendUnderTest underTest;
    private ValueState<Long> state;
    private final SplittableRandom random = new SplittableRandom(42);

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        underTest = BackendUnderTest.create(backend);
        state =
                underTest.keyed()
                        .getPartitionedState(
                                VoidNamespace.INSTANCE,
                                VoidNamespaceSerializer.INSTANCE,
                                new ValueStateDescriptor<>("value", LongSerializer.INSTANCE));
        for (long key = 0; key < keys; key++) {
            underTest.keyed().setCurrentKey(key);
            state.update(key);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        underTest.close();
    }

    @Benchmark
    public Long valueGet() throws Exception {
        underTest.keyed().setCurrentKey((long) random.nextInt(keys));
        return state.value();
    }

    @Benchmark
    public void valueUpdate() throws Exception {
        long key = random.nextInt(keys);
        underTest.keyed().setCurrentKey(key);
        state.update(key + 1);
    }
}
