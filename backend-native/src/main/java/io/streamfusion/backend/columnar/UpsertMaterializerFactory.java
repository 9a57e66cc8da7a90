package io.streamfusion.backend.columnar;

import io.streamfusion.api.columnar.FlinkUpsertState;
import io.streamfusion.api.columnar.UpsertMaterializer;
import io.streamfusion.api.columnar.UpsertMaterializerSpec;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeUpsertMaterializer;

import org.apache.flink.api.common.state.StateTtlConfig;

import javax.annotation.Nullable;

/**
 * Opens native upsert materializers over a registered candidate index, with the TTL of Flink's SQL
 * operators (see {@link SqlOperatorTtl}).
 */
public final class UpsertMaterializerFactory {

    private UpsertMaterializerFactory() {}

    /**
     * Opens a materializer.
     *
     * @param flinkList the column family of {@code flinkState}, or null without one
     */
    public static UpsertMaterializer open(
            NativeColumnFamily candidates,
            StateTtlConfig ttlConfig,
            @Nullable NativeColumnFamily flinkList,
            @Nullable FlinkUpsertState flinkState,
            UpsertMaterializerSpec spec,
            ColumnarKernelContext context,
            long batchSchemaAddress) {
        long ttlMillis =
                SqlOperatorTtl.millis(ttlConfig, candidates.stateName(), "upsert materializer");
        NativeUpsertMaterializer materializer =
                NativeUpsertMaterializer.open(
                        candidates,
                        flinkList,
                        flinkState == null ? FlinkUpsertState.Layout.ROW_LIST : flinkState.layout(),
                        spec,
                        ttlMillis,
                        context.keyGroupPrefixBytes(),
                        context.numberOfKeyGroups(),
                        context.keyGroupRange().getStartKeyGroup(),
                        context.keyGroupRange().getEndKeyGroup(),
                        batchSchemaAddress);
        return new StreamFusionUpsertMaterializer(materializer, context.ttlClock());
    }
}
