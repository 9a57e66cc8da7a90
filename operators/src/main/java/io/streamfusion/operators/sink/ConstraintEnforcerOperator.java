package io.streamfusion.operators.sink;

import io.streamfusion.api.columnar.SinkConstraints;
import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.batch.BatchingOperator;
import io.streamfusion.operators.batch.RowBatch;
import io.streamfusion.operators.substitution.ColumnarRuntime;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Replaces Flink's {@code ConstraintEnforcer} in front of a sink: NOT NULL checks and CHAR/VARCHAR
 * and BINARY/VARBINARY trimming and padding over whole batches in the native enforcer, one call per
 * batch. Rows come out in their order, unchanged rows as they arrived, changed rows as new {@code
 * BinaryRowData}, all without a record timestamp, as Flink's operator emits them. A violation under
 * ERROR emits the rows before it and throws Flink's {@code EnforcerException} with Flink's message.
 *
 * <p>One row shape is judged by Flink's own executor instead: a row that is not binary with a NULL
 * in a length-constrained field. Flink reads that NULL as {@code null} and fails the job with a
 * {@code NullPointerException}, where a binary row's NULL reads as empty and gets padded; the batch
 * so far is processed first, so the order stays.
 */
public final class ConstraintEnforcerOperator extends BatchingOperator {

    private static final long serialVersionUID = 1L;

    private final SinkConstraintsOperatorSpec spec;
    private final int arity;
    private transient SinkConstraints constraints;
    private transient BinaryRowData rewrittenRow;

    ConstraintEnforcerOperator(
            StreamOperatorParameters<RowData> parameters,
            SinkConstraintsOperatorSpec spec,
            OperatorConfig config) {
        super(parameters, config);
        this.spec = spec;
        this.arity = spec.constraints().rowArity();
    }

    @Override
    protected void openKernel(BufferAllocator allocator, RowBatch batch) throws Exception {
        rewrittenRow = new BinaryRowData(arity);
        constraints =
                withBatchSchema(
                        schema ->
                                ColumnarRuntime.backendOf(getContainingTask())
                                        .openSinkConstraints(spec.constraints(), schema));
    }

    /** Unchanged rows leave as they arrived, as from Flink's operator. */
    @Override
    protected boolean keepsReceivedRows() {
        return true;
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        RowData row = element.getValue();
        if (!(row instanceof BinaryRowData) && hasNullThatFlinkCannotRead(row)) {
            flush();
            RowData enforced = spec.flinkExecutor().enforce(row);
            if (enforced != null) {
                emitWithoutTimestamp(enforced);
            }
            return;
        }
        super.processElement(element);
    }

    private boolean hasNullThatFlinkCannotRead(RowData row) {
        for (int position = 0; position < arity; position++) {
            if (row.isNullAt(position) && spec.lengthConstrained(position)) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected void processBatch(RowBatch batch) throws Exception {
        try (StructVector result = runKernelRaw(batch, constraints::enforce)) {
            TinyIntVector outcomes = (TinyIntVector) result.getChildByOrdinal(0);
            VarBinaryVector rewritten = (VarBinaryVector) result.getChildByOrdinal(1);
            // Rewritten rows are emitted from the result's own memory, one reused row object, as
            // Flink's operators reuse theirs: every output copies or serializes a record before
            // collect returns.
            MemorySegment rewrittenBytes =
                    MemorySegmentFactory.wrapOffHeapMemory(
                            rewritten
                                    .getDataBuffer()
                                    .nioBuffer(0, (int) rewritten.getDataBuffer().capacity()));
            int covered = result.getValueCount();
            for (int i = 0; i < covered; i++) {
                byte outcome = outcomes.get(i);
                switch (outcome) {
                    case SinkConstraints.EMIT:
                        emitWithoutTimestamp(batch.row(i));
                        break;
                    case SinkConstraints.REWRITTEN:
                        int start = rewritten.getStartOffset(i);
                        rewrittenRow.pointTo(
                                rewrittenBytes, start, rewritten.getEndOffset(i) - start);
                        emitWithoutTimestamp(rewrittenRow);
                        break;
                    case SinkConstraints.DROPPED:
                        break;
                    default:
                        throw spec.violation(
                                outcome,
                                ((IntVector) result.getChildByOrdinal(2)).get(i),
                                ((IntVector) result.getChildByOrdinal(3)).get(i));
                }
            }
            if (covered != batch.size()) {
                throw new IllegalStateException(
                        "The native enforcer covered " + covered + " of " + batch.size() + " rows");
            }
        }
    }

    @Override
    protected void closeKernel() {
        if (constraints != null) {
            constraints.close();
        }
    }
}
