package io.streamfusion.backend.columnar;

import io.streamfusion.api.columnar.Top1Ranker;
import io.streamfusion.api.columnar.Top1RankerSpec;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeTop1Ranker;

import org.apache.flink.api.common.state.ValueStateDescriptor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

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
            @Nullable EmittedFlags emittedFlags,
            Top1RankerSpec spec,
            ColumnarKernelContext context,
            long batchSchemaAddress) {
        long ttlMillis =
                SqlOperatorTtl.millis(
                        winnerState.getTtlConfig(), winnerState.getName(), "Top-1 ranker");
        long emittedTtlMillis =
                emittedFlags == null
                        ? 0
                        : SqlOperatorTtl.millis(
                                emittedFlags.state().getTtlConfig(),
                                emittedFlags.state().getName(),
                                "Top-1 ranker");
        NativeTop1Ranker ranker =
                NativeTop1Ranker.open(
                        columnFamily,
                        spec,
                        ttlMillis,
                        emittedFlags == null ? null : emittedFlags.columnFamily(),
                        emittedTtlMillis,
                        context.keyGroupPrefixBytes(),
                        context.numberOfKeyGroups(),
                        context.keyGroupRange().getStartKeyGroup(),
                        context.keyGroupRange().getEndKeyGroup(),
                        batchSchemaAddress);
        KernelBudget.warnIfShort(
                LOG,
                "Top-1 ranker",
                winnerState.getName(),
                ranker.reservedBytes(),
                spec.cacheBytes(),
                spec.batchMemoryBytes());
        return new StreamFusionTop1Ranker(ranker, context.ttlClock());
    }
}
