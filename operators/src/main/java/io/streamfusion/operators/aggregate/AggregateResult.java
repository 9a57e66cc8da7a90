package io.streamfusion.operators.aggregate;

import io.streamfusion.operators.batch.BinaryColumnReader;

import org.apache.flink.table.data.binary.BinaryRowData;

import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * The result of one group aggregator call, one entry per batch row: a decision and the old and new
 * aggregate values it emits (see {@code GroupAggregator}). Closing it releases the native buffers.
 */
final class AggregateResult implements AutoCloseable {

    private final StructVector result;
    private final TinyIntVector decisions;
    private final BinaryColumnReader previous;
    private final BinaryColumnReader current;

    AggregateResult(StructVector result) {
        this.result = result;
        this.decisions = (TinyIntVector) result.getChildByOrdinal(0);
        this.previous = new BinaryColumnReader((VarBinaryVector) result.getChildByOrdinal(1));
        this.current = new BinaryColumnReader((VarBinaryVector) result.getChildByOrdinal(2));
    }

    byte decision(int i) {
        return decisions.get(i);
    }

    /** Row {@code i}'s old value, a row of {@code arity} fields. */
    BinaryRowData previous(int i, int arity) {
        return previous.row(i, arity);
    }

    /** Row {@code i}'s new value, a row of {@code arity} fields. */
    BinaryRowData current(int i, int arity) {
        return current.row(i, arity);
    }

    @Override
    public void close() {
        result.close();
    }
}
