package io.streamfusion.operators.rank;

import io.streamfusion.api.columnar.ColumnarKeyedStateBackend;
import io.streamfusion.api.columnar.Top1Ranker;
import io.streamfusion.api.columnar.Top1RankerSpec;
import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.batch.BatchingKeyedOperator;
import io.streamfusion.operators.batch.KernelResult;
import io.streamfusion.operators.batch.RowBatch;

import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.types.RowKind;

import org.apache.arrow.memory.BufferAllocator;

/**
 * StreamFusion's Top-1 ranker: {@code ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) = 1} on
 * append-only input, in place of Flink's {@code FastTop1Function}, with the same output record by
 * record: INSERT for a key's first row; UPDATE_BEFORE of the old winner (if the planner asks for
 * it) and UPDATE_AFTER of the new one when a row sorts strictly first; nothing for a row that loses
 * or ties; the rank number 1 appended when the query projects it.
 *
 * <p>Its state is Flink's: {@code Top1-Rank-State}, a {@code ValueState<RowData>} with the input
 * row serializer and the same TTL, so a savepoint moves between this operator and Flink's. Each
 * batch is one call into the backend's native ranker (see {@link Top1Ranker}); winners are written
 * when they change, so nothing is left to flush at a checkpoint.
 */
public final class Top1RankOperator extends BatchingKeyedOperator
        implements Triggerable<Object, VoidNamespace> {

    private static final long serialVersionUID = 1L;

    private final Top1OperatorSpec spec;

    private transient Top1Ranker ranker;
    private transient JoinedRowData rankedRow;

    public Top1RankOperator(
            StreamOperatorParameters<RowData> parameters,
            Top1OperatorSpec spec,
            OperatorConfig operatorConfig) {
        super(parameters, operatorConfig);
        this.spec = spec;
    }

    @Override
    protected void openKernel(BufferAllocator allocator, RowBatch batch) throws Exception {
        // Flink's KeyedProcessOperator registers this timer service whether or not its function
        // uses timers; registering it too keeps the two operators' state alike.
        getInternalTimerService("user-timers", VoidNamespaceSerializer.INSTANCE, this);
        ColumnarKeyedStateBackend backend = columnarBackend();
        ValueStateDescriptor<RowData> winners =
                new ValueStateDescriptor<>(Top1OperatorSpec.STATE_NAME, spec.inputRowType());
        if (spec.ttlConfig().isEnabled()) {
            winners.enableTimeToLive(spec.ttlConfig());
        }
        Top1RankerSpec rankerSpec =
                new Top1RankerSpec(
                        spec.inputRowType().toRowType().getFieldCount(),
                        spec.sortFields(),
                        spec.generateUpdateBefore(),
                        operatorConfig.cacheBytes(),
                        operatorConfig.batchMemoryBytes());
        ranker = withBatchSchema(schema -> backend.openTop1Ranker(winners, rankerSpec, schema));
        rankedRow = new JoinedRowData();
        getMetricGroup()
                .gauge(
                        "topn.cache.hitRate",
                        () -> {
                            long hits = ranker.cacheHits();
                            long requests = hits + ranker.cacheMisses();
                            return requests == 0 ? 1.0 : (double) hits / requests;
                        });
    }

    @Override
    protected void processBatch(RowBatch batch) throws Exception {
        try (KernelResult result = runKernel(batch, ranker::rank)) {
            int arity = spec.inputRowType().toRowType().getFieldCount();
            for (int i = 0; i < batch.size(); i++) {
                byte decision = result.decision(i);
                if (decision == Top1Ranker.REJECTED) {
                    continue;
                }
                RowData row = batch.row(i);
                if (decision == Top1Ranker.FIRST) {
                    emit(batch, i, output(row, RowKind.INSERT));
                    continue;
                }
                if (spec.generateUpdateBefore()) {
                    RowData replaced = result.referencedRow(batch, i, arity);
                    emit(batch, i, output(replaced, RowKind.UPDATE_BEFORE));
                }
                emit(batch, i, output(row, RowKind.UPDATE_AFTER));
            }
        }
    }

    /** The row as Flink's Top-1 function emits it: itself, or joined with its rank number. */
    private RowData output(RowData row, RowKind kind) {
        if (!spec.outputRankNumber()) {
            row.setRowKind(kind);
            return row;
        }
        rankedRow.replace(row, GenericRowData.of(1L));
        rankedRow.setRowKind(kind);
        return rankedRow;
    }

    @Override
    protected void closeKernel() {
        if (ranker != null) {
            ranker.close();
        }
    }

    @Override
    public void onEventTime(InternalTimer<Object, VoidNamespace> timer) {}

    @Override
    public void onProcessingTime(InternalTimer<Object, VoidNamespace> timer) {}
}
