package io.streamfusion.operators.aggregate;

import io.streamfusion.api.columnar.AggregateCall;
import io.streamfusion.api.columnar.ElementTableState;
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
 * @param elementTables the {@code MapView}s the calls keep, as Flink's handler registers them, in
 *     the order of the calls' {@link AggregateCall#elementTable()}
 * @param countStarField Flink's {@code RecordCounter} index, or -1 for insert-only input
 * @param miniBatch with mini-batch, Flink's bundle: of merged local accumulators for a two-phase
 *     aggregation's global half, of every input row for a one-phase aggregation; null for {@code
 *     GroupAggFunction}
 * @param generateUpdateBefore whether a changed value is retracted with UPDATE_BEFORE
 * @param ttlConfig the state's TTL, as Flink enables it from {@code table.exec.state.ttl}
 */
public record GroupAggregateOperatorSpec(
        int inputArity,
        List<AggregateCall> calls,
        int valueArity,
        LogicalType[] accTypes,
        List<ElementTableSpec> elementTables,
        int countStarField,
        boolean generateUpdateBefore,
        StateTtlConfig ttlConfig,
        @Nullable MiniBatch miniBatch)
        implements Serializable {

    /**
     * The bundle of Flink's mini-batch aggregation. {@code MiniBatchGlobalGroupAggFunction}: per
     * key, the local accumulators of a bundle merged by the planner's local handler, then merged
     * into the state when it ends. {@code MiniBatchGroupAggFunction}: per key, every input row of
     * the bundle, aggregated into the state as one run when it ends.
     *
     * @param localMerge the generated handler that merges the local accumulators in the bundle, or
     *     null for a one-phase aggregation
     */
    public record MiniBatch(
            MiniBatchBundle.Spec bundle, @Nullable GeneratedAggsHandleFunction localMerge)
            implements Serializable {

        /** Whether the bundle holds every row of a key, to be aggregated as one run. */
        boolean runs() {
            return localMerge == null;
        }
    }

    /** Flink's name for the accumulators of every group aggregate function. */
    public static final String STATE_NAME = "accState";

    public GroupAggregateOperatorSpec {
        calls = List.copyOf(calls);
        accTypes = accTypes.clone();
        elementTables = List.copyOf(elementTables);
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

    /** The element tables' states as Flink's {@code PerKeyStateDataViewStore} registers them. */
    List<ElementTableState> elementTableStates() {
        return elementTables.stream().map(table -> table.state(ttlConfig)).toList();
    }

    GroupAggregatorSpec aggregatorSpec(long cacheBytes, long batchMemoryBytes) {
        return new GroupAggregatorSpec(
                inputArity,
                calls,
                valueArity,
                countStarField,
                miniBatch == null || miniBatch.runs() ? -1 : 0,
                miniBatch != null && miniBatch.runs(),
                generateUpdateBefore,
                cacheBytes,
                batchMemoryBytes);
    }
}
