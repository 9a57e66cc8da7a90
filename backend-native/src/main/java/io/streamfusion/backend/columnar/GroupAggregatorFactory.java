package io.streamfusion.backend.columnar;

import io.streamfusion.api.columnar.ElementTableState;
import io.streamfusion.api.columnar.GroupAggregator;
import io.streamfusion.api.columnar.GroupAggregatorSpec;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeGroupAggregator;

import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Opens native group aggregators over a registered accumulator state, with the TTL of Flink's SQL
 * operators (see {@link SqlOperatorTtl}).
 */
public final class GroupAggregatorFactory {

    private static final Logger LOG = LoggerFactory.getLogger(GroupAggregatorFactory.class);

    private GroupAggregatorFactory() {}

    /**
     * Opens an aggregator over {@code accState} in {@code columnFamily} and the element tables
     * {@code tableStates} in {@code tables}.
     *
     * @throws IllegalArgumentException if a table's TTL is not the accumulators'
     */
    public static GroupAggregator open(
            NativeColumnFamily columnFamily,
            List<NativeGroupAggregator.ElementTable> tables,
            ValueStateDescriptor<?> accState,
            List<ElementTableState> tableStates,
            GroupAggregatorSpec spec,
            ColumnarKernelContext context,
            long batchSchemaAddress) {
        long ttlMillis =
                SqlOperatorTtl.millis(accState.getTtlConfig(), accState.getName(), "aggregator");
        for (ElementTableState table : tableStates) {
            for (StateDescriptor<?, ?> state :
                    new StateDescriptor<?, ?>[] {table.map(), table.nulls()}) {
                if (state != null
                        && SqlOperatorTtl.millis(
                                        state.getTtlConfig(), state.getName(), "aggregator")
                                != ttlMillis) {
                    throw new IllegalArgumentException(
                            "State '"
                                    + state.getName()
                                    + "' has another TTL than '"
                                    + accState.getName()
                                    + "'; the native aggregator keeps one TTL, as Flink's"
                                    + " aggregations do");
                }
            }
        }
        NativeGroupAggregator aggregator =
                NativeGroupAggregator.open(
                        columnFamily,
                        tables,
                        spec,
                        ttlMillis,
                        context.keyGroupPrefixBytes(),
                        context.numberOfKeyGroups(),
                        context.keyGroupRange().getStartKeyGroup(),
                        context.keyGroupRange().getEndKeyGroup(),
                        batchSchemaAddress);
        KernelBudget.warnIfShort(
                LOG,
                "group aggregator",
                accState.getName(),
                aggregator.reservedBytes(),
                spec.cacheBytes(),
                spec.batchMemoryBytes());
        return new StreamFusionGroupAggregator(aggregator, context.ttlClock());
    }
}
