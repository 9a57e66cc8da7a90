package io.streamfusion.backend.state;

import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.api.common.state.AggregatingStateDescriptor;
import org.apache.flink.api.common.state.ReducingStateDescriptor;
import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;

import java.util.List;
import java.util.Map;

/** Creates the StreamFusion state object for a state descriptor's kind. */
public final class StateKinds {

    private StateKinds() {}

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <K, N, SV> State create(
            KeyedStateContext<K> context,
            StateDescriptor<?, SV> descriptor,
            NativeColumnFamily columnFamily,
            RegisteredKeyValueStateBackendMetaInfo<N, SV> metaInfo) {
        switch (descriptor.getType()) {
            case VALUE:
                return new StreamFusionValueState<>(
                        context, columnFamily, metaInfo, descriptor.getDefaultValue());
            case LIST:
                return new StreamFusionListState<>(
                        context,
                        columnFamily,
                        (RegisteredKeyValueStateBackendMetaInfo<N, List<Object>>)
                                (Object) metaInfo);
            case MAP:
                return new StreamFusionMapState<>(
                        context,
                        columnFamily,
                        (RegisteredKeyValueStateBackendMetaInfo<N, Map<Object, Object>>)
                                (Object) metaInfo);
            case REDUCING:
                return new StreamFusionReducingState<>(
                        context,
                        columnFamily,
                        metaInfo,
                        ((ReducingStateDescriptor<SV>) descriptor).getReduceFunction());
            case AGGREGATING:
                return new StreamFusionAggregatingState<>(
                        context,
                        columnFamily,
                        metaInfo,
                        ((AggregatingStateDescriptor) descriptor).getAggregateFunction());
            default:
                throw new UnsupportedOperationException(
                        "StreamFusion does not support state kind "
                                + descriptor.getType()
                                + " (state '"
                                + descriptor.getName()
                                + "')");
        }
    }
}
