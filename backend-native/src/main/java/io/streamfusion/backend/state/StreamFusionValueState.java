package io.streamfusion.backend.state;

import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.internal.InternalValueState;

import java.io.IOException;

/**
 * {@code ValueState}: one native entry per key and namespace, holding the serialized value. With
 * the decoded-value cache, a read of a cached key crosses no JNI and deserializes nothing; writes
 * go to RocksDB first and then into the cache (write-through, clean only).
 */
public final class StreamFusionValueState<K, N, V> extends AbstractStreamFusionState<K, N, V>
        implements InternalValueState<K, N, V> {

    public StreamFusionValueState(
            KeyedStateContext<K> context,
            NativeColumnFamily columnFamily,
            RegisteredKeyValueStateBackendMetaInfo<N, V> metaInfo,
            V defaultValue) {
        super(context, columnFamily, metaInfo, defaultValue, true);
    }

    @Override
    public V value() throws IOException {
        V value = readValue(currentKeyBytes());
        return value == null ? defaultValue() : value;
    }

    @Override
    public void update(V value) throws IOException {
        if (value == null) {
            clear();
            return;
        }
        writeValue(currentKeyBytes(), value);
    }
}
