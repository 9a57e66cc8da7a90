package io.streamfusion.api.columnar;

import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;

import javax.annotation.Nullable;

import java.util.List;

/**
 * Implemented by keyed state backends that run columnar kernels next to their state: an operator
 * hands over a whole Arrow batch in one call, and the backend reads and writes the state of every
 * key in the batch with one multi-get and one write batch.
 */
public interface ColumnarKeyedStateBackend {

    /**
     * Opens a Top-1 ranker over {@code winnerState}, registered as {@code getState} would register
     * it (TTL included), so snapshots, savepoints and per-record access see the same state. The
     * state's values must be {@code RowData} written by Flink's {@code RowDataSerializer} (or, when
     * {@link Top1RankerSpec#keepsRows()} is false, {@code Boolean}s written by its {@code
     * BooleanSerializer}), under keys that are {@code RowData} too.
     *
     * @param batchSchemaAddress the address of an Arrow C Data Interface {@code ArrowSchema}
     *     holding {@link Top1Ranker#BATCH_SCHEMA}'s layout; the ranker checks it and releases it
     */
    default Top1Ranker openTop1Ranker(
            ValueStateDescriptor<?> winnerState, Top1RankerSpec spec, long batchSchemaAddress)
            throws Exception {
        return openTop1Ranker(winnerState, null, spec, batchSchemaAddress);
    }

    /**
     * Opens a Top-1 ranker as above; with {@code emittedFlags}, its winners wait for their timers
     * (see {@link Top1Ranker#takeWinners}) and the keys whose winner was emitted are flagged in
     * that state, registered as {@code getState} would register it. Its values must be {@code
     * Boolean}s written by Flink's {@code BooleanSerializer}.
     */
    Top1Ranker openTop1Ranker(
            ValueStateDescriptor<?> winnerState,
            @Nullable ValueStateDescriptor<Boolean> emittedFlags,
            Top1RankerSpec spec,
            long batchSchemaAddress)
            throws Exception;

    /**
     * Opens a group aggregator over {@code accState} and the element tables its calls keep, each
     * registered as {@code getState} and {@code getMapState} would register it (TTL included; the
     * tables' TTL must be {@code accState}'s). The accumulators must be {@code RowData} written by
     * Flink's {@code RowDataSerializer}, the accumulator rows of {@code spec}'s calls, under keys
     * that are {@code RowData} too; the tables' values {@code Long}s.
     *
     * @param elementTables the tables {@link AggregateCall#elementTable()} indexes
     * @param batchSchemaAddress the address of an Arrow C Data Interface {@code ArrowSchema}
     *     holding {@link Top1Ranker#BATCH_SCHEMA}'s layout; checked and released
     */
    GroupAggregator openGroupAggregator(
            ValueStateDescriptor<?> accState,
            List<ElementTableState> elementTables,
            GroupAggregatorSpec spec,
            long batchSchemaAddress)
            throws Exception;

    /**
     * Opens an upsert materializer over the candidate index {@code indexName}, registered as a
     * candidate index with {@code ttlConfig}. Keys and rows must be {@code RowData}.
     *
     * @param flinkState Flink's own materializer state to convert keys from, or null for none
     * @param batchSchemaAddress the address of an Arrow C Data Interface {@code ArrowSchema}
     *     holding {@link UpsertMaterializer#BATCH_SCHEMA}'s layout; checked and released
     */
    UpsertMaterializer openUpsertMaterializer(
            String indexName,
            StateTtlConfig ttlConfig,
            @Nullable FlinkUpsertState flinkState,
            UpsertMaterializerSpec spec,
            long batchSchemaAddress)
            throws Exception;

    /**
     * The value serializer (as restored from its snapshot) of the key/value state {@code name} this
     * backend restored, whether or not the job registered it since; null if it restored no such
     * state. Lets an operator tell which operator wrote a state before it registers it.
     */
    @Nullable
    TypeSerializer<?> restoredStateSerializer(String name);
}
