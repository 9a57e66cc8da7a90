package io.streamfusion.backend.columnar;

import io.streamfusion.api.columnar.GroupAggregator;
import io.streamfusion.api.columnar.GroupAggregatorSpec;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeGroupAggregator;

import org.apache.flink.api.common.state.ValueStateDescriptor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens native group aggregators over a registered accumulator state, with the TTL of Flink's SQL
 * operators (see {@link SqlOperatorTtl}).
 */
public final class GroupAggregatorFactory {

    private static final Logger LOG = LoggerFactory.getLogger(GroupAggregatorFactory.class);

    private GroupAggregatorFactory() {}

    public static GroupAggregator open(
            NativeColumnFamily columnFamily,
            ValueStateDescriptor<?> accState,
            GroupAggregatorSpec spec,
            ColumnarKernelContext context,
            long batchSchemaAddress) {
        long ttlMillis =
                SqlOperatorTtl.millis(accState.getTtlConfig(), accState.getName(), "aggregator");
        NativeGroupAggregator aggregator =
                NativeGroupAggregator.open(
                        columnFamily,
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
