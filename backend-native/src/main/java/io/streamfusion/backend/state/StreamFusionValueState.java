package io.streamfusion.backend.state;

import io.streamfusion.backend.StreamFusionKeyedStateBackend;
import io.streamfusion.backend.nativelib.NativeStateColumn;

import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.internal.InternalValueState;

import java.io.IOException;

/** {@code ValueState}: one native entry per key and namespace, holding the serialized value. */
public final class StreamFusionValueState<K, N, V> extends AbstractStreamFusionState<K, N, V>
        implements InternalValueState<K, N, V> {

    public StreamFusionValueState(
            StreamFusionKeyedStateBackend<K> backend,
            NativeStateColumn column,
            RegisteredKeyValueStateBackendMetaInfo<N, V> metaInfo,
            V defaultValue) {
        super(backend, column, metaInfo, defaultValue);
    }

    @Override
    public V value() throws IOException {
        byte[] bytes = column.get(currentKeyBytes());
        return bytes == null ? defaultValue() : deserializeValue(bytes);
    }

    @Override
    public void update(V value) throws IOException {
        if (value == null) {
            clear();
            return;
        }
        column.put(currentKeyBytes(), serializeValue(value));
    }
}
