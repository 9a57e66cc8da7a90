package io.streamfusion.backend.columnar;

import io.streamfusion.api.columnar.Top1Ranker;
import io.streamfusion.api.columnar.Top1RankerSpec;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeTop1Ranker;

import org.apache.flink.api.common.state.ValueStateDescriptor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens native Top-1 rankers over a registered winner state, with the TTL semantics the state's
 * descriptor asks for. Only the TTL that Flink's SQL operators use is supported natively:
 * processing time, {@code OnCreateAndWrite}, {@code NeverReturnExpired}.
 */
public final class Top1RankerFactory {

    private static final Logger LOG = LoggerFactory.getLogger(Top1RankerFactory.class);

    private Top1RankerFactory() {}

    public static Top1Ranker open(
            NativeColumnFamily columnFamily,
            ValueStateDescriptor<?> winnerState,
            Top1RankerSpec spec,
            ColumnarKernelContext context,
            long batchSchemaAddress) {
        long ttlMillis =
                SqlOperatorTtl.millis(
                        winnerState.getTtlConfig(), winnerState.getName(), "Top-1 ranker");
        NativeTop1Ranker ranker =
                NativeTop1Ranker.open(
                        columnFamily,
                        spec,
                        ttlMillis,
                        context.keyGroupPrefixBytes(),
                        context.numberOfKeyGroups(),
                        context.keyGroupRange().getStartKeyGroup(),
                        context.keyGroupRange().getEndKeyGroup(),
                        batchSchemaAddress);
        long reserved = ranker.reservedBytes();
        long wanted = spec.cacheBytes() + spec.batchMemoryBytes();
        if (reserved < wanted) {
            LOG.warn(
                    "The Top-1 ranker of state '{}' got {} of the {} bytes it asked of the slot's"
                            + " memory budget ({} for its cache, {} for batches): it runs {}. Give the"
                            + " slot more managed memory or lower streamfusion.operators.cache-size.",
                    winnerState.getName(),
                    reserved,
                    wanted,
                    spec.cacheBytes(),
                    spec.batchMemoryBytes(),
                    reserved == 0
                            ? "without a cache, and its batches are not charged to the budget"
                            : "without a cache");
        }
        return new StreamFusionTop1Ranker(ranker, context.ttlClock());
    }
}
