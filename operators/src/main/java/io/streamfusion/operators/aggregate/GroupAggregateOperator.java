package io.streamfusion.operators.aggregate;

import io.streamfusion.api.columnar.GroupAggregator;
import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.batch.BatchingOperator;
import io.streamfusion.operators.batch.MiniBatchBundle;
import io.streamfusion.operators.batch.RowBatch;

import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.table.runtime.generated.AggsHandleFunction;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.types.RowKind;

import org.apache.arrow.memory.BufferAllocator;

import javax.annotation.Nullable;

/**
 * StreamFusion's {@code GROUP BY}, in place of Flink's {@code GroupAggFunction} and of the global
 * half of its two-phase mini-batch aggregation, {@code MiniBatchGlobalGroupAggFunction} (see {@link
 * GroupAggregateSubstitution}), with the same output record by record: per input row (with
 * mini-batch: per key and bundle, in Flink's bundle order, without record timestamps), INSERT of a
 * key's first value, UPDATE_BEFORE (if the planner asks for it) and UPDATE_AFTER of a changed
 * value, nothing for an unchanged one when the state has no TTL, and DELETE when a key's last row
 * is retracted; each output row is the key joined with the values, as Flink's {@code
 * JoinedRowData}, with the input record's timestamp.
 *
 * <p>Its state is Flink's {@code accState} with the same serializer and TTL, so a savepoint moves
 * between this operator and Flink's. The native group aggregator runs each batch in one call. Its
 * cache is write-back: changed accumulators reach the state when the cache evicts them, and all of
 * them before every checkpoint barrier ({@link #flushKernel}).
 */
public final class GroupAggregateOperator extends BatchingOperator {

    private static final long serialVersionUID = 1L;

    private final GroupAggregateOperatorSpec spec;

    private transient GroupAggregator aggregator;
    @Nullable private transient AccumulatorMerger merger;
    private transient JoinedRowData output;

    public GroupAggregateOperator(
            StreamOperatorParameters<RowData> parameters,
            GroupAggregateOperatorSpec spec,
            OperatorConfig operatorConfig) {
        super(parameters, operatorConfig);
        this.spec = spec;
    }

    @Nullable
    @Override
    protected MiniBatchBundle.Spec miniBatchBundle() {
        return spec.miniBatch() == null ? null : spec.miniBatch().bundle();
    }

    @Nullable
    @Override
    protected MiniBatchBundle.Merger bundleMerger() throws Exception {
        if (spec.miniBatch().runs()) {
            return null;
        }
        AggsHandleFunction localMerge =
                spec.miniBatch().localMerge().newInstance(getUserCodeClassloader());
        localMerge.open(NoDataViewStore.INSTANCE);
        merger = new AccumulatorMerger(localMerge, new RowDataSerializer(spec.accTypes()));
        return merger;
    }

    /** A one-phase bundle's key is aggregated as one run, which one batch must hold. */
    @Override
    protected boolean keepsKeyRunsTogether() {
        return spec.miniBatch() != null && spec.miniBatch().runs();
    }

    @Override
    protected void openKernel(BufferAllocator allocator, RowBatch batch) throws Exception {
        registerUserTimers();
        output = new JoinedRowData();
        aggregator =
                withBatchSchema(
                        schema ->
                                columnarBackend()
                                        .openGroupAggregator(
                                                spec.stateDescriptor(),
                                                spec.elementTableStates(),
                                                spec.aggregatorSpec(
                                                        operatorConfig.cacheBytes(),
                                                        operatorConfig.batchMemoryBytes()),
                                                schema));
    }

    @Override
    protected void processBatch(RowBatch batch) throws Exception {
        int arity = spec.valueArity();
        try (AggregateResult result =
                new AggregateResult(runKernelRaw(batch, aggregator::aggregate))) {
            for (int i = 0; i < batch.size(); i++) {
                switch (result.decision(i)) {
                    case GroupAggregator.INSERT:
                        emit(batch, i, RowKind.INSERT, result.current(i, arity));
                        break;
                    case GroupAggregator.UPDATE:
                        if (spec.generateUpdateBefore()) {
                            emit(batch, i, RowKind.UPDATE_BEFORE, result.previous(i, arity));
                        }
                        emit(batch, i, RowKind.UPDATE_AFTER, result.current(i, arity));
                        break;
                    case GroupAggregator.DELETE:
                        emit(batch, i, RowKind.DELETE, result.previous(i, arity));
                        break;
                    default:
                        break;
                }
            }
        }
    }

    private void emit(RowBatch batch, int i, RowKind kind, RowData value) {
        output.replace(batch.key(i), value).setRowKind(kind);
        emit(batch, i, output);
    }

    @Override
    protected void flushKernel() {
        aggregator.flush();
    }

    @Override
    protected void closeKernel() throws Exception {
        try {
            if (merger != null) {
                merger.close();
            }
        } finally {
            if (aggregator != null) {
                aggregator.close();
            }
        }
    }
}
