package io.streamfusion.bench;

import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.TearDown;

import java.util.SplittableRandom;

/**
 * What every per-record state benchmark shares: the backend under test (each of {@link
 * BackendUnderTest#ALL} in the same run), the key count, and uniformly random key selection.
 */
@org.openjdk.jmh.annotations.State(Scope.Thread)
public abstract class KeyedStateBenchmarkBase {

    @Param({"hashmap", "rocksdb", "streamfusion"})
    public String backend;

    @Param({"1000000"})
    public int keys;

    protected BackendUnderTest underTest;
    protected final SplittableRandom random = new SplittableRandom(42);

    /** Creates the backend; subclasses call it first in their trial setup. */
    protected final void createBackend() throws Exception {
        underTest = BackendUnderTest.create(backend);
    }

    /** Registers a state in the void namespace, as a keyed operator does. */
    protected final <S extends State> S registerState(StateDescriptor<S, ?> descriptor)
            throws Exception {
        return underTest
                .keyed()
                .getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    /** Makes a uniformly random key of {@code [0, keys)} current. */
    protected final void randomKey() {
        underTest.keyed().setCurrentKey((long) random.nextInt(keys));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        underTest.close();
    }
}
