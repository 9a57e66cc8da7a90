package io.streamfusion.bench;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * ValueState get and update at 1M keys, in the manner of Flink's own ValueStateBenchmark, over
 * uniform and Zipf-skewed keys (the case for the decoded-value cache).
 */
public class ValueStateBenchmark extends KeyedStateBenchmarkBase {

    @Param({"uniform", "zipf"})
    public String distribution;

    private ValueState<Long> state;
    private KeySequence sequence;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        createBackend();
        state = registerState(new ValueStateDescriptor<>("value", LongSerializer.INSTANCE));
        for (long key = 0; key < keys; key++) {
            underTest.keyed().setCurrentKey(key);
            state.update(key);
        }
        sequence = new KeySequence(distribution, keys, 42);
    }

    @Benchmark
    public Long valueGet() throws Exception {
        underTest.keyed().setCurrentKey(sequence.next());
        return state.value();
    }

    @Benchmark
    public void valueUpdate() throws Exception {
        long key = sequence.next();
        underTest.keyed().setCurrentKey(key);
        state.update(key + 1);
    }
}
