package io.streamfusion.operators.aggregate;

import io.streamfusion.api.columnar.AggregateCall;
import io.streamfusion.api.columnar.GroupAggregatorSpec;
import io.streamfusion.operators.batch.MiniBatchBundle;

import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.generated.GeneratedAggsHandleFunction;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalType;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.List;

/**
 * How a Flink {@code GroupAggFunction} was configured, as {@link GroupAggregateOperator} runs it.
 *
 * @param inputArity the number of fields of the rows the kernel receives (with mini-batch, the
 *     merged accumulator rows)
 * @param calls the aggregate calls in the planner's order (see {@link AggregateCallProbe})
 * @param valueArity how many of the leading calls are in the output
 * @param accTypes the accumulator row's field types, as Flink registers {@code accState}
 * @param countStarField Flink's {@code RecordCounter} index, or -1 for insert-only input
 * @param miniBatch for a two-phase aggregation's global half, its bundle of merged local
 *     accumulators; null for {@code GroupAggFunction}
 * @param generateUpdateBefore whether a changed value is retracted with UPDATE_BEFORE
 * @param ttlConfig the state's TTL, as Flink enables it from {@code table.exec.state.ttl}
 */
public record GroupAggregateOperatorSpec(
        int inputArity,
        List<AggregateCall> calls,
        int valueArity,
        LogicalType[] accTypes,
        int countStarField,
        boolean generateUpdateBefore,
        StateTtlConfig ttlConfig,
        @Nullable MiniBatchMerge miniBatch)
        implements Serializable {

    /**
     * Flink's {@code MiniBatchGlobalGroupAggFunction} bundle: per key, the local accumulators of a
     * bundle merged by the planner's local handler, then merged into the state when it ends.
     *
     * @param localMerge the generated handler that merges the local accumulators in the bundle
     */
    public record MiniBatchMerge(
            MiniBatchBundle.Spec bundle, GeneratedAggsHandleFunction localMerge)
            implements Serializable {}

    /** Flink's name for the accumulators of every group aggregate function. */
    public static final String STATE_NAME = "accState";

    public GroupAggregateOperatorSpec {
        calls = List.copyOf(calls);
        accTypes = accTypes.clone();
    }

    /** The state as {@code GroupAggFunction.open} registers it, TTL included. */
    ValueStateDescriptor<RowData> stateDescriptor() {
        ValueStateDescriptor<RowData> descriptor =
                new ValueStateDescriptor<>(STATE_NAME, InternalTypeInfo.ofFields(accTypes));
        if (ttlConfig.isEnabled()) {
            descriptor.enableTimeToLive(ttlConfig);
        }
        return descriptor;
    }

    GroupAggregatorSpec aggregatorSpec(long cacheBytes, long batchMemoryBytes) {
        return new GroupAggregatorSpec(
                inputArity,
                calls,
                valueArity,
                countStarField,
                miniBatch == null ? -1 : 0,
                generateUpdateBefore,
                cacheBytes,
                batchMemoryBytes);
    }
}
