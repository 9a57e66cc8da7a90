package io.streamfusion.backend.state;

import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.internal.InternalAppendingState;
import org.apache.flink.runtime.state.internal.InternalMergingState;
import org.apache.flink.util.FlinkRuntimeException;

import java.io.IOException;
import java.util.Collection;

/**
 * Reducing and aggregating state: one stored accumulator per key and namespace, folded with a user
 * function on every add (read, fold, write) and on namespace merges. Accumulators of an immutable
 * type go through the decoded-value cache, so an add on a hot key reads without JNI; a mutable
 * accumulator is rewritten on every add and would only be evicted again, so it is not cached.
 *
 * @param <IN> type of added values
 * @param <SV> stored accumulator type
 * @param <OUT> type returned by {@code get()}
 */
abstract class AbstractStreamFusionAppendingState<K, N, IN, SV, OUT>
        extends AbstractStreamFusionState<K, N, SV>
        implements InternalAppendingState<K, N, IN, SV, OUT>,
                InternalMergingState<K, N, IN, SV, OUT> {

    AbstractStreamFusionAppendingState(
            KeyedStateContext<K> context,
            NativeColumnFamily columnFamily,
            RegisteredKeyValueStateBackendMetaInfo<N, SV> metaInfo) {
        super(
                context,
                columnFamily,
                metaInfo,
                null,
                metaInfo.getStateSerializer().isImmutableType());
    }

    /** Combines two accumulators; used when merging namespaces. */
    abstract SV mergeAccumulators(SV a, SV b) throws Exception;

    @Override
    public SV getInternal() throws IOException {
        return readValue(currentKeyBytes());
    }

    @Override
    public void updateInternal(SV accumulator) {
        if (accumulator == null) {
            clear();
        } else {
            writeValue(currentKeyBytes(), accumulator);
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
                SV value = readValue(sourceKey);
                if (value != null) {
                    deleteValue(sourceKey);
                    merged = merged == null ? value : mergeAccumulators(merged, value);
                }
            }
            if (merged != null) {
                setCurrentNamespace(target);
                byte[] targetKey = currentKeyBytes();
                SV existing = readValue(targetKey);
                if (existing != null) {
                    merged = mergeAccumulators(merged, existing);
                }
                writeValue(targetKey, merged);
            }
        } catch (Exception e) {
            throw new FlinkRuntimeException(
                    "Error while merging namespaces of state " + columnFamily.stateName(), e);
        }
    }
}
