package io.streamfusion.api;

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
     * The candidate index named {@code name}, registered like a state of that name: it is in
     * every snapshot and follows its key groups on rescaling. In a canonical savepoint it is an
     * ordinary {@code MapState<byte[], byte[]>} (docs/architecture.md gives the entries).
     */
    <V> CandidateIndexState<V> getCandidateIndexState(String name, TypeSerializer<V> candidateSerializer)
            throws Exception;
}
