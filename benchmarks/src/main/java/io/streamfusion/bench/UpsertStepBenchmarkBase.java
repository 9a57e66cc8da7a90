package io.streamfusion.bench;

import org.openjdk.jmh.annotations.Param;

/**
 * What the upsert-materializer step benchmarks share: a steady number of candidates per key, and
 * per key the sequence of the next candidate to append and of the oldest one to retract, so every
 * structure sees the same rows in the same order.
 */
public abstract class UpsertStepBenchmarkBase extends KeyedStateBenchmarkBase {

    @Param({"10", "1000", "10000"})
    public int candidatesPerKey;

    private long[] appended;
    private long[] oldest;

    /** Creates the backend and the per-key sequences; subclasses call it first in their setup. */
    protected final void createBackendAndSequences() throws Exception {
        appended = new long[keys];
        oldest = new long[keys];
        createBackend();
    }

    /** Makes a random key current and returns it. */
    protected final int nextKey() {
        int key = random.nextInt(keys);
        underTest.keyed().setCurrentKey((long) key);
        return key;
    }

    /** The sequence of the next candidate of {@code key} to append. */
    protected final long nextAppended(int key) {
        return appended[key]++;
    }

    /** The sequence of the oldest candidate of {@code key} left, which the step retracts. */
    protected final long nextRetracted(int key) {
        return oldest[key]++;
    }
}
