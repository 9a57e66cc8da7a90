package io.streamfusion.api;

import java.io.IOException;
import java.util.List;

/**
 * Batch access to one keyed {@code ValueState} in the default (void) namespace, for operators that
 * process whole batches of keys: each call crosses into the backend once, whatever the number of
 * keys. It reads and writes the same state that per-record access sees.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface BatchValueState<K, V> {

    /** The values of {@code keys}, in order, with null where a key has no value. */
    List<V> getAll(List<K> keys) throws IOException;

    /**
     * Sets {@code values.get(i)} for {@code keys.get(i)}, in one atomic write. No value may be
     * null.
     */
    void putAll(List<K> keys, List<V> values) throws IOException;

    /** Removes the values of {@code keys}, in one atomic write. */
    void removeAll(List<K> keys) throws IOException;
}
