package io.streamfusion.bench;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;

import java.util.List;

/**
 * ListState add, get and update over uniformly random keys, each list starting with a few elements,
 * in the manner of Flink's ListStateBenchmark.
 */
public class ListStateBenchmark extends KeyedStateBenchmarkBase {

    private static final List<Long> INITIAL = List.of(1L, 2L, 3L, 4L);

    private ListState<Long> state;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        createBackend();
        state = registerState(new ListStateDescriptor<>("list", LongSerializer.INSTANCE));
        for (long key = 0; key < keys; key++) {
            underTest.keyed().setCurrentKey(key);
            state.update(INITIAL);
        }
    }

    @Benchmark
    public void listAdd() throws Exception {
        randomKey();
        state.add(7L);
    }

    @Benchmark
    public Iterable<Long> listGet() throws Exception {
        randomKey();
        return state.get();
    }

    @Benchmark
    public void listUpdate() throws Exception {
        randomKey();
        state.update(INITIAL);
    }
}
