package io.streamfusion.bench;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;

/**
 * ValueState get and update over uniformly random keys, in the manner of Flink's own
 * ValueStateBenchmark, at 1M keys by default.
 */
public class ValueStateBenchmark extends KeyedStateBenchmarkBase {

    private ValueState<Long> state;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        createBackend();
        state = registerState(new ValueStateDescriptor<>("value", LongSerializer.INSTANCE));
        for (long key = 0; key < keys; key++) {
            underTest.keyed().setCurrentKey(key);
            state.update(key);
        }
    }

    @Benchmark
    public Long valueGet() throws Exception {
        randomKey();
        return state.value();
    }

    @Benchmark
    public void valueUpdate() throws Exception {
        long key = random.nextInt(keys);
        underTest.keyed().setCurrentKey(key);
        state.update(key + 1);
    }
}
