package io.streamfusion.operators.deduplicate;

import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.batch.MiniBatchBundle;
import io.streamfusion.operators.rank.Top1KernelOperator;

import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import javax.annotation.Nullable;

/**
 * StreamFusion's deduplication ({@code ROW_NUMBER() OVER (PARTITION BY ... ORDER BY time) = 1} on
 * insert-only input), in place of Flink's keep-last and keep-first deduplications on processing
 * time and its row-time deduplication, with and without mini-batch (see {@link
 * DeduplicateSubstitution}), with the same output record by record: a key's first row, then for
 * each row that replaces the kept one UPDATE_BEFORE of the kept row (if the planner asks for it)
 * and UPDATE_AFTER of the new one.
 *
 * <p>Its state is Flink's {@code deduplicate-state}, a {@code ValueState<RowData>} with the input
 * row serializer (for keep-first on processing time a {@code ValueState<Boolean>}) and the same
 * TTL, so a savepoint moves between this operator and Flink's. It is the native Top-1 ranker: on
 * processing time with no sort field, where every later row ties (and wins for keep-last, loses for
 * keep-first); on row time ordered by the row time. With mini-batch it keeps Flink's bundle (see
 * {@link MiniBatchBundle}): Flink's rows of each key per bundle, in Flink's order, emitted without
 * record timestamps.
 */
public final class DeduplicateOperator extends Top1KernelOperator {

    private static final long serialVersionUID = 1L;

    /** Flink's name for the kept row of every deduplication function. */
    public static final String STATE_NAME = "deduplicate-state";

    private final RowKind firstRowKind;
    @Nullable private final MiniBatchBundle.Spec miniBatch;

    public DeduplicateOperator(
            StreamOperatorParameters<RowData> parameters,
            DeduplicateOperatorSpec spec,
            OperatorConfig operatorConfig) {
        super(parameters, spec.kernel(), operatorConfig);
        this.firstRowKind = spec.firstRowKind();
        this.miniBatch = spec.miniBatch();
    }

    @Nullable
    @Override
    protected MiniBatchBundle.Spec miniBatchBundle() {
        return miniBatch;
    }

    @Override
    protected RowKind firstRowKind() {
        return firstRowKind;
    }

    @Override
    protected RowData output(RowData row, RowKind kind) {
        row.setRowKind(kind);
        return row;
    }
}
