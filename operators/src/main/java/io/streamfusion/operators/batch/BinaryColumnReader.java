package io.streamfusion.operators.batch;

import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;

import org.apache.arrow.vector.VarBinaryVector;

/**
 * Reads the values of a binary column a kernel returned as Flink rows, each over its own copy of
 * the bytes: a row the operator emits may outlive the column, and must not keep a whole batch's
 * buffer alive (a chained operator with object reuse may hold it).
 */
public final class BinaryColumnReader {

    private final VarBinaryVector vector;

    public BinaryColumnReader(VarBinaryVector vector) {
        this.vector = vector;
    }

    /** Value {@code index} as a row of {@code arity} fields, or null if the value is null. */
    public BinaryRowData row(int index, int arity) {
        byte[] bytes = vector.get(index);
        if (bytes == null) {
            return null;
        }
        BinaryRowData row = new BinaryRowData(arity);
        row.pointTo(MemorySegmentFactory.wrap(bytes), 0, bytes.length);
        return row;
    }
}
