package io.streamfusion.bench;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
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

import java.util.List;
import java.util.SplittableRandom;

/**
 * ListState add, get and update over uniformly random keys, each list starting with a few
 * elements, in the manner of Flink's ListStateBenchmark.
 */
@State(Scope.Thread)
public class ListStateBenchmark {

    private static final List<Long> INITIAL = List.of(1L, 2L, 3L, 4L);

    @Param({"hashmap", "rocksdb", "streamfusion"})
    public String backend;

    @Param({"1000000"})
    public int keys;

    private BackendUnderTest underTest;
    private ListState<Long> state;
    private final SplittableRandom random = new SplittableRandom(42);

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        underTest = BackendUnderTest.create(backend);
        state =
                underTest.keyed()
                        .getPartitionedState(
                                VoidNamespace.INSTANCE,
                                VoidNamespaceSerializer.INSTANCE,
                                new ListStateDescriptor<>("list", LongSerializer.INSTANCE));
        for (long key = 0; key < keys; key++) {
            underTest.keyed().setCurrentKey(key);
            state.update(INITIAL);
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
