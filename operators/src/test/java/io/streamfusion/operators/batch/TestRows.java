package io.streamfusion.operators.batch;

import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;

import java.util.Arrays;

/** Rows for the batch tests. */
final class TestRows {

    private TestRows() {}

    /** A one-field {@code BIGINT} row, as Flink's writers build it. */
    static BinaryRowData longRow(long value) {
        BinaryRowData row = new BinaryRowData(1);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        writer.writeLong(0, value);
        writer.complete();
        return row;
    }

    /** The bytes of a row held in one heap segment. */
    static byte[] bytes(BinaryRowData row) {
        return Arrays.copyOfRange(
                row.getSegments()[0].getArray(),
                row.getOffset(),
                row.getOffset() + row.getSizeInBytes());
    }
}
