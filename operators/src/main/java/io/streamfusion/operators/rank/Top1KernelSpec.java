package io.streamfusion.operators.rank;

import io.streamfusion.api.columnar.SortField;
import io.streamfusion.api.columnar.Top1Replacement;

import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import java.io.Serializable;
import java.util.List;

/**
 * How a Flink operator that keeps one row per key (a Top-1 or a deduplication) was configured, as
 * the native Top-1 ranker runs it.
 *
 * @param stateName the name of Flink's {@code ValueState} that holds each key's row (or flag)
 * @param stateType the state's value type as Flink registers it: the input rows' type, or {@code
 *     Types.BOOLEAN} where Flink keeps only a seen flag
 * @param rowArity the number of fields of the input rows
 * @param sortFields the ORDER BY, as the planner's comparator orders; none for arrival order
 * @param replacement when a row takes its key's place
 * @param generateUpdateBefore whether a replaced row is retracted with UPDATE_BEFORE
 * @param ttlConfig the state's TTL, as Flink enables it from {@code table.exec.state.ttl}
 * @param restampsSeenKeys whether every key a batch holds has its row written again, restarting its
 *     TTL, as Flink's row-time mini-batch deduplication does at the end of each bundle
 */
public record Top1KernelSpec(
        String stateName,
        TypeInformation<?> stateType,
        int rowArity,
        List<SortField> sortFields,
        Top1Replacement replacement,
        boolean generateUpdateBefore,
        StateTtlConfig ttlConfig,
        boolean restampsSeenKeys)
        implements Serializable {

    public Top1KernelSpec {
        sortFields = List.copyOf(sortFields);
    }

    /** A spec whose state holds the kept rows, typed as the input rows. */
    public static Top1KernelSpec keepingRows(
            String stateName,
            InternalTypeInfo<RowData> inputRowType,
            List<SortField> sortFields,
            Top1Replacement replacement,
            boolean generateUpdateBefore,
            StateTtlConfig ttlConfig) {
        return new Top1KernelSpec(
                stateName,
                inputRowType,
                inputRowType.toRowType().getFieldCount(),
                sortFields,
                replacement,
                generateUpdateBefore,
                ttlConfig,
                false);
    }

    /** This spec, with every key a batch holds written again (see {@code restampsSeenKeys}). */
    public Top1KernelSpec restampingSeenKeys() {
        return new Top1KernelSpec(
                stateName,
                stateType,
                rowArity,
                sortFields,
                replacement,
                generateUpdateBefore,
                ttlConfig,
                true);
    }

    /** Whether the state holds the kept rows; otherwise it holds Flink's seen flags. */
    public boolean keepsRows() {
        return stateType instanceof InternalTypeInfo;
    }

    /** The state as Flink's operator registers it, TTL included. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    ValueStateDescriptor<?> stateDescriptor() {
        ValueStateDescriptor<?> descriptor = new ValueStateDescriptor(stateName, stateType);
        if (ttlConfig.isEnabled()) {
            descriptor.enableTimeToLive(ttlConfig);
        }
        return descriptor;
    }
}
