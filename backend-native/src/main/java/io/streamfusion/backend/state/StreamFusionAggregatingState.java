package io.streamfusion.backend.state;

import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.internal.InternalAggregatingState;

import java.io.IOException;

/**
 * {@code AggregatingState}: the stored value is the accumulator of an {@link AggregateFunction}.
 */
public final class StreamFusionAggregatingState<K, N, IN, ACC, OUT>
        extends AbstractStreamFusionAppendingState<K, N, IN, ACC, OUT>
        implements InternalAggregatingState<K, N, IN, ACC, OUT> {

    private final AggregateFunction<IN, ACC, OUT> aggregateFunction;

    public StreamFusionAggregatingState(
            KeyedStateContext<K> context,
            NativeColumnFamily columnFamily,
            RegisteredKeyValueStateBackendMetaInfo<N, ACC> metaInfo,
            AggregateFunction<IN, ACC, OUT> aggregateFunction) {
        super(context, columnFamily, metaInfo);
        this.aggregateFunction = aggregateFunction;
    }

    @Override
    ACC mergeAccumulators(ACC a, ACC b) {
        return aggregateFunction.merge(a, b);
    }

    @Override
    public OUT get() throws IOException {
        ACC accumulator = getInternal();
        return accumulator == null ? null : aggregateFunction.getResult(accumulator);
    }

    @Override
    public void add(IN value) throws IOException {
        byte[] key = currentKeyBytes();
        ACC accumulator = readValue(key);
        // readValue hands out a private copy of a mutable accumulator, so the function may
        // change it in place.
        writeValue(
                key,
                aggregateFunction.add(
                        value,
                        accumulator == null ? aggregateFunction.createAccumulator() : accumulator));
    }
}
