package io.streamfusion.operators.rank;

import io.streamfusion.api.columnar.SortField;
import io.streamfusion.api.columnar.Top1Replacement;

import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import java.io.Serializable;
import java.util.List;

/**
 * How a Flink operator that keeps one row per key (a Top-1 or a deduplication) was configured, as
 * the native Top-1 ranker runs it.
 *
 * @param stateName the name of Flink's {@code ValueState<RowData>} that holds each key's row
 * @param inputRowType the input rows' type, the state's value type as Flink registers it
 * @param sortFields the ORDER BY, as the planner's comparator orders; none for arrival order
 * @param replacement when a row takes its key's place
 * @param generateUpdateBefore whether a replaced row is retracted with UPDATE_BEFORE
 * @param ttlConfig the state's TTL, as Flink enables it from {@code table.exec.state.ttl}
 */
public record Top1KernelSpec(
        String stateName,
        InternalTypeInfo<RowData> inputRowType,
        List<SortField> sortFields,
        Top1Replacement replacement,
        boolean generateUpdateBefore,
        StateTtlConfig ttlConfig)
        implements Serializable {

    public Top1KernelSpec {
        sortFields = List.copyOf(sortFields);
    }

    /** The state as Flink's operator registers it, TTL included. */
    ValueStateDescriptor<RowData> stateDescriptor() {
        ValueStateDescriptor<RowData> descriptor =
                new ValueStateDescriptor<>(stateName, inputRowType);
        if (ttlConfig.isEnabled()) {
            descriptor.enableTimeToLive(ttlConfig);
        }
        return descriptor;
    }

    int rowArity() {
        return inputRowType.toRowType().getFieldCount();
    }
}
