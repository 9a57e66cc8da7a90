package io.streamfusion.operators.rank;

import io.streamfusion.api.columnar.ColumnarKeyedStateBackend;
import io.streamfusion.api.columnar.Top1Ranker;
import io.streamfusion.api.columnar.Top1RankerSpec;
import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.batch.BatchingOperator;
import io.streamfusion.operators.batch.KernelResult;
import io.streamfusion.operators.batch.RowBatch;

import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import org.apache.arrow.memory.BufferAllocator;

/**
 * A columnar operator that keeps one row per key in Flink's {@code ValueState<RowData>} with the
 * native Top-1 ranker, one call per batch, and emits what Flink's operator emits: a first row, or
 * UPDATE_BEFORE of the replaced row (if the planner asks for it) and UPDATE_AFTER of the new one.
 * Subclasses say what a first row is emitted as and how an output row looks.
 *
 * <p>The ranker's cache is write-back: the winners only it holds are written before every
 * checkpoint barrier ({@link #flushKernel}).
 */
public abstract class Top1KernelOperator extends BatchingOperator {

    private static final long serialVersionUID = 1L;

    private final Top1KernelSpec kernelSpec;

    private transient Top1Ranker ranker;

    protected Top1KernelOperator(
            StreamOperatorParameters<RowData> parameters,
            Top1KernelSpec kernelSpec,
            OperatorConfig operatorConfig) {
        super(parameters, operatorConfig);
        this.kernelSpec = kernelSpec;
    }

    @Override
    protected void openKernel(BufferAllocator allocator, RowBatch batch) throws Exception {
        registerUserTimers();
        ColumnarKeyedStateBackend backend = columnarBackend();
        Top1RankerSpec rankerSpec =
                new Top1RankerSpec(
                        kernelSpec.rowArity(),
                        kernelSpec.sortFields(),
                        kernelSpec.replacement(),
                        kernelSpec.keepsRows(),
                        kernelSpec.generateUpdateBefore(),
                        kernelSpec.restampsSeenKeys(),
                        operatorConfig.cacheBytes(),
                        operatorConfig.batchMemoryBytes());
        ranker =
                withBatchSchema(
                        schema ->
                                backend.openTop1Ranker(
                                        kernelSpec.stateDescriptor(), rankerSpec, schema));
    }

    /** The ranker {@link #openKernel} opened. */
    protected final Top1Ranker ranker() {
        return ranker;
    }

    /** The row kind a key's first row is emitted with. */
    protected abstract RowKind firstRowKind();

    /** The row as Flink's operator emits it with {@code kind}. */
    protected abstract RowData output(RowData row, RowKind kind);

    @Override
    protected final void processBatch(RowBatch batch) throws Exception {
        try (KernelResult result = runKernel(batch, ranker::rank)) {
            for (int i = 0; i < batch.size(); i++) {
                byte decision = result.decision(i);
                if (decision == Top1Ranker.REJECTED) {
                    continue;
                }
                RowData row = batch.row(i);
                if (decision == Top1Ranker.FIRST) {
                    emit(batch, i, output(row, firstRowKind()));
                    continue;
                }
                if (kernelSpec.generateUpdateBefore()) {
                    RowData replaced = result.referencedRow(batch, i, kernelSpec.rowArity());
                    emit(batch, i, output(replaced, RowKind.UPDATE_BEFORE));
                }
                emit(batch, i, output(row, RowKind.UPDATE_AFTER));
            }
        }
    }

    @Override
    protected void flushKernel() throws Exception {
        ranker.flush();
    }

    @Override
    protected void closeKernel() {
        if (ranker != null) {
            ranker.close();
        }
    }
}
