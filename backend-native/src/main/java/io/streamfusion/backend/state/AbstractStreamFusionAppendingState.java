package io.streamfusion.backend.state;

import io.streamfusion.backend.StreamFusionKeyedStateBackend;
import io.streamfusion.backend.nativelib.NativeStateColumn;

import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.internal.InternalAppendingState;
import org.apache.flink.runtime.state.internal.InternalMergingState;
import org.apache.flink.util.FlinkRuntimeException;

import java.io.IOException;
import java.util.Collection;

/**
 * Reducing and aggregating state: one stored accumulator per key and namespace, folded with a
 * user function on every add (read, fold, write) and on namespace merges.
 *
 * @param <IN> type of added values
 * @param <SV> stored accumulator type
 * @param <OUT> type returned by {@code get()}
 */
abstract class AbstractStreamFusionAppendingState<K, N, IN, SV, OUT> extends AbstractStreamFusionState<K, N, SV>
        implements InternalAppendingState<K, N, IN, SV, OUT>, InternalMergingState<K, N, IN, SV, OUT> {

    AbstractStreamFusionAppendingState(
            StreamFusionKeyedStateBackend<K> backend,
            NativeStateColumn column,
            RegisteredKeyValueStateBackendMetaInfo<N, SV> metaInfo) {
        super(backend, column, metaInfo, null);
    }

    /** Combines two accumulators; used when merging namespaces. */
    abstract SV mergeAccumulators(SV a, SV b) throws Exception;

    @Override
    public SV getInternal() throws IOException {
        byte[] bytes = column.get(currentKeyBytes());
        return bytes == null ? null : deserializeValue(bytes);
    }

    @Override
    public void updateInternal(SV accumulator) {
        if (accumulator == null) {
            clear();
        } else {
            column.put(currentKeyBytes(), serializeValue(accumulator));
        }
    }

    @Override
    public void mergeNamespaces(N target, Collection<N> sources) {
        if (sources == null || sources.isEmpty()) {
            return;
        }
        try {
            SV merged = null;
            for (N source : sources) {
                if (source == null) {
                    continue;
                }
                setCurrentNamespace(source);
                byte[] sourceKey = currentKeyBytes();
                byte[] bytes = column.get(sourceKey);
                if (bytes != null) {
                    column.delete(sourceKey);
                    SV value = deserializeValue(bytes);
                    merged = merged == null ? value : mergeAccumulators(merged, value);
                }
            }
            if (merged != null) {
                setCurrentNamespace(target);
                byte[] targetKey = currentKeyBytes();
                byte[] existing = column.get(targetKey);
                if (existing != null) {
                    merged = mergeAccumulators(merged, deserializeValue(existing));
                }
                column.put(targetKey, serializeValue(merged));
            }
        } catch (Exception e) {
            throw new FlinkRuntimeException("Error while merging namespaces of state " + column.stateName(), e);
        }
    }
}
