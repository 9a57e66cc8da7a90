package io.streamfusion.operators.rank;

import io.streamfusion.api.columnar.Top1Ranker;
import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.batch.RowBatch;

import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
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
 * batch is one call into the backend's native ranker (see {@link Top1Ranker}).
 */
public final class Top1RankOperator extends Top1KernelOperator {

    private static final long serialVersionUID = 1L;

    private final boolean outputRankNumber;

    private transient JoinedRowData rankedRow;

    public Top1RankOperator(
            StreamOperatorParameters<RowData> parameters,
            Top1OperatorSpec spec,
            OperatorConfig operatorConfig) {
        super(parameters, spec.kernel(), operatorConfig);
        this.outputRankNumber = spec.outputRankNumber();
    }

    @Override
    protected void openKernel(BufferAllocator allocator, RowBatch batch) throws Exception {
        super.openKernel(allocator, batch);
        rankedRow = new JoinedRowData();
        Top1Ranker ranker = ranker();
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
    protected RowKind firstRowKind() {
        return RowKind.INSERT;
    }

    /** The row as Flink's Top-1 function emits it: itself, or joined with its rank number. */
    @Override
    protected RowData output(RowData row, RowKind kind) {
        if (!outputRankNumber) {
            row.setRowKind(kind);
            return row;
        }
        rankedRow.replace(row, GenericRowData.of(1L));
        rankedRow.setRowKind(kind);
        return rankedRow;
    }
}
