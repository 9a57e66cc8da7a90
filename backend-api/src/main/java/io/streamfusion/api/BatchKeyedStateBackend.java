package io.streamfusion.api;

import org.apache.flink.api.common.state.ValueStateDescriptor;

/**
 * Implemented by keyed state backends that offer batch access beyond Flink's per-record API. An
 * operator checks {@code getKeyedStateBackend() instanceof BatchKeyedStateBackend} and falls back
 * to per-record access otherwise, so it runs on any backend.
 *
 * @param <K> key type
 */
public interface BatchKeyedStateBackend<K> {

    /**
     * Batch access to the value state of {@code descriptor}, registering it like {@code getState}
     * would. States with TTL are not supported: use per-record access for those.
     */
    <V> BatchValueState<K, V> getBatchValueState(ValueStateDescriptor<V> descriptor)
            throws Exception;
}
