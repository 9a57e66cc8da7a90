package io.streamfusion.backend.state;

import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.internal.InternalReducingState;

import java.io.IOException;

/** {@code ReducingState}: the stored value is the reduction of everything added. */
public final class StreamFusionReducingState<K, N, V>
        extends AbstractStreamFusionAppendingState<K, N, V, V, V>
        implements InternalReducingState<K, N, V> {

    private final ReduceFunction<V> reduceFunction;

    public StreamFusionReducingState(
            KeyedStateContext<K> context,
            NativeColumnFamily columnFamily,
            RegisteredKeyValueStateBackendMetaInfo<N, V> metaInfo,
            ReduceFunction<V> reduceFunction) {
        super(context, columnFamily, metaInfo);
        this.reduceFunction = reduceFunction;
    }

    @Override
    V mergeAccumulators(V a, V b) throws Exception {
        return reduceFunction.reduce(a, b);
    }

    @Override
    public V get() throws IOException {
        return getInternal();
    }

    @Override
    public void add(V value) throws Exception {
        byte[] key = currentKeyBytes();
        V current = readValue(key);
        writeValue(key, current == null ? value : reduceFunction.reduce(current, value));
    }
}
