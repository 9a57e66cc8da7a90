package io.streamfusion.backend.state;

import io.streamfusion.backend.StreamFusionKeyedStateBackend;
import io.streamfusion.backend.cache.StateValueCache;
import io.streamfusion.backend.nativelib.NativeStateColumn;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.internal.InternalValueState;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * {@code ValueState}: one native entry per key and namespace, holding the serialized value.
 * With the decoded-value cache, a read of a cached key crosses no JNI and deserializes
 * nothing; writes go to RocksDB first and then into the cache (write-through, clean only).
 */
public final class StreamFusionValueState<K, N, V> extends AbstractStreamFusionState<K, N, V>
        implements InternalValueState<K, N, V> {

    @Nullable private final StateValueCache<V> cache;

    public StreamFusionValueState(
            StreamFusionKeyedStateBackend<K> backend,
            NativeStateColumn column,
            RegisteredKeyValueStateBackendMetaInfo<N, V> metaInfo,
            V defaultValue) {
        super(backend, column, metaInfo, defaultValue);
        this.cache = backend.valueCacheFor(metaInfo.getName(), metaInfo.getStateSerializer());
    }

    @Override
    protected void onValueSerializerChanged(TypeSerializer<V> newValueSerializer) {
        if (cache != null) {
            cache.useSerializer(newValueSerializer);
        }
    }

    /** This state's cache view, for batch access that must keep it consistent; may be null. */
    @Nullable
    public StateValueCache<V> cache() {
        return cache;
    }

    @Override
    public V value() throws IOException {
        byte[] key = currentKeyBytes();
        if (cache != null) {
            V cached = cache.get(key);
            if (cached != null) {
                return cached;
            }
        }
        byte[] bytes = column.get(key);
        if (bytes == null) {
            return defaultValue();
        }
        V value = deserializeValue(bytes);
        if (cache == null) {
            return value;
        }
        cache.admitRead(key, value, bytes.length);
        return cache.copyForCaller(value);
    }

    @Override
    public void update(V value) throws IOException {
        if (value == null) {
            clear();
            return;
        }
        byte[] key = currentKeyBytes();
        byte[] bytes = serializeValue(value);
        column.put(key, bytes);
        if (cache != null) {
            cache.afterWrite(key, value, bytes.length);
        }
    }

    @Override
    public void clear() {
        byte[] key = currentKeyBytes();
        column.delete(key);
        if (cache != null) {
            cache.invalidate(key);
        }
    }
}
