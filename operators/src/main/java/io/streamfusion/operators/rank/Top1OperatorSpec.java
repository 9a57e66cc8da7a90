package io.streamfusion.operators.rank;

import io.streamfusion.api.columnar.SortField;

import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import java.io.Serializable;
import java.util.List;

/**
 * How the planner configured one {@code FastTop1Function}, as the columnar Top-1 ranker needs it.
 *
 * @param inputRowType the input rows' type, the winner state's value type as Flink registers it
 * @param sortFields the ORDER BY, as the planner's comparator orders
 * @param generateUpdateBefore whether a replaced winner is retracted with UPDATE_BEFORE
 * @param outputRankNumber whether the rank number (always 1) is appended to every output row
 * @param ttlConfig the winner state's TTL, as Flink enables it from {@code table.exec.state.ttl}
 */
public record Top1OperatorSpec(
        InternalTypeInfo<RowData> inputRowType,
        List<SortField> sortFields,
        boolean generateUpdateBefore,
        boolean outputRankNumber,
        StateTtlConfig ttlConfig)
        implements Serializable {

    /** Flink's name for the winner state of {@code FastTop1Function}. */
    public static final String STATE_NAME = "Top1-Rank-State";

    public Top1OperatorSpec {
        sortFields = List.copyOf(sortFields);
    }
}
