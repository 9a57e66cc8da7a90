package io.streamfusion.api;

import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Implemented by keyed state backends that keep candidate indexes on disk. An operator checks
 * {@code getKeyedStateBackend() instanceof CandidateIndexBackend} and falls back to its own
 * structure otherwise, so it runs on any backend.
 *
 * @param <K> key type
 */
public interface CandidateIndexBackend<K> {

    /**
     * The candidate index named {@code name}, registered like a state of that name: it is in every
     * snapshot and follows its key groups on rescaling. In a canonical savepoint it is an ordinary
     * {@code MapState<byte[], byte[]>} (docs/architecture.md gives the entries).
     */
    default <V> CandidateIndexState<V> getCandidateIndexState(
            String name, TypeSerializer<V> candidateSerializer) throws Exception {
        return getCandidateIndexState(name, candidateSerializer, StateTtlConfig.DISABLED);
    }

    /**
     * The candidate index named {@code name} with a time-to-live. TTL applies to a key's whole
     * index, as it does to the {@code ValueState<List>} of Flink's legacy upsert materializer: once
     * the key's index was not written (with {@code OnReadAndWrite}: not accessed) for the TTL, no
     * operation returns its candidates, and the first one to touch it deletes them. Expired
     * candidates are never returned, whatever the configured state visibility.
     */
    <V> CandidateIndexState<V> getCandidateIndexState(
            String name, TypeSerializer<V> candidateSerializer, StateTtlConfig ttlConfig)
            throws Exception;
}
