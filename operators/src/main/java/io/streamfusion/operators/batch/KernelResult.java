package io.streamfusion.operators.batch;

import org.apache.flink.table.data.binary.BinaryRowData;

import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * The result of one native kernel call, one entry per batch row: a decision, and the other row the
 * decision refers to (a replaced winner, a new latest candidate), given as a position in the same
 * batch or, when it came from state, as its bytes. Closing it releases the native buffers.
 */
public final class KernelResult implements AutoCloseable {

    private final StructVector result;
    private final TinyIntVector decisions;
    private final IntVector batchRows;
    private final BinaryColumnReader storedRows;

    KernelResult(StructVector result) {
        this.result = result;
        this.decisions = (TinyIntVector) result.getChildByOrdinal(0);
        this.batchRows = (IntVector) result.getChildByOrdinal(1);
        this.storedRows = new BinaryColumnReader((VarBinaryVector) result.getChildByOrdinal(2));
    }

    /** The decision for row {@code i}. */
    public byte decision(int i) {
        return decisions.get(i);
    }

    /**
     * The row that row {@code i}'s decision refers to, as a row of its own: a copy of the batch
     * row, or the stored bytes.
     */
    public BinaryRowData referencedRow(RowBatch batch, int i, int arity) {
        int fromBatch = batchRows.get(i);
        if (fromBatch >= 0) {
            return ((BinaryRowData) batch.row(fromBatch)).copy();
        }
        return storedRows.row(i, arity);
    }

    @Override
    public void close() {
        result.close();
    }
}
