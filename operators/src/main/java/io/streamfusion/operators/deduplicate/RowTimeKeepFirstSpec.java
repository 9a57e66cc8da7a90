package io.streamfusion.operators.deduplicate;

import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import java.io.Serializable;

/**
 * How the planner configured one {@code RowTimeDeduplicateKeepFirstRowFunction}, as {@link
 * RowTimeKeepFirstOperator} runs it.
 *
 * @param rowType the input rows' type, which the waiting rows are kept as
 * @param rowtimeIndex the position of the row time, a compact timestamp read as a long
 * @param emittedTtl the TTL of the emitted flags, from {@code table.exec.state.ttl}
 */
record RowTimeKeepFirstSpec(
        InternalTypeInfo<RowData> rowType, int rowtimeIndex, StateTtlConfig emittedTtl)
        implements Serializable {

    /** Flink's name for a key's earliest row, waiting for its timer; it has no TTL. */
    static final String WAITING_STATE = "waiting-to-emit-on-timer";

    /** Flink's name for the flag of a key whose row was emitted. */
    static final String EMITTED_STATE = "already-emitted-state-boolean";

    int rowArity() {
        return rowType.toRowType().getFieldCount();
    }

    ValueStateDescriptor<RowData> waitingState() {
        return new ValueStateDescriptor<>(WAITING_STATE, rowType);
    }

    ValueStateDescriptor<Boolean> emittedState() {
        ValueStateDescriptor<Boolean> descriptor =
                new ValueStateDescriptor<>(EMITTED_STATE, Types.BOOLEAN);
        if (emittedTtl.isEnabled()) {
            descriptor.enableTimeToLive(emittedTtl);
        }
        return descriptor;
    }
}
