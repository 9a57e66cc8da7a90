package io.streamfusion.api;

import javax.annotation.Nullable;

/**
 * An ordered multiset of candidates for the current key, kept on disk: what a sink upsert
 * materializer or a ranker needs. Candidates keep their append order; equal candidates (equal
 * serialized bytes) may occur many times. Memory per key is constant however many candidates there
 * are: no operation loads them all.
 *
 * @param <V> candidate type
 */
public interface CandidateIndexState<V> {

    /** Adds a candidate after all others and returns its sequence number. */
    long append(V candidate) throws Exception;

    /**
     * Removes the oldest candidate equal to {@code candidate} (as Flink's SinkUpsertMaterializer
     * removes the first match), found through an index from value hash to sequence numbers.
     *
     * @return whether an equal candidate was there
     */
    boolean retract(V candidate) throws Exception;

    /** The most recently appended candidate that was not retracted, or null if none is left. */
    @Nullable
    V latest() throws Exception;

    /** How many candidates are left. */
    long count() throws Exception;

    /** Every candidate left, oldest first, read from disk in batches as the iteration goes. */
    Iterable<V> candidates() throws Exception;

    /** Removes every candidate of the current key. */
    void clear() throws Exception;
}
