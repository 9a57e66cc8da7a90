package io.streamfusion.operators.batch;

import org.apache.flink.table.data.binary.BinaryRowData;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** A kernel's binary column reads back as rows over copies of their bytes, nulls as null. */
class BinaryColumnReaderTest {

    private static byte[] bytes(BinaryRowData row) {
        return TestRows.bytes(row);
    }

    @Test
    void readsValuesAndNullsAsRowsOfTheirOwn() {
        try (BufferAllocator allocator = new RootAllocator();
                VarBinaryVector column = new VarBinaryVector("rows", allocator)) {
            column.setSafe(0, bytes(TestRows.longRow(5)));
            column.setNull(1);
            column.setSafe(2, bytes(TestRows.longRow(-9)));
            column.setValueCount(3);
            BinaryColumnReader reader = new BinaryColumnReader(column);

            BinaryRowData first = reader.row(0, 1);
            assertEquals(5L, first.getLong(0));
            assertNull(reader.row(1, 1));
            assertArrayEquals(bytes(TestRows.longRow(-9)), bytes(reader.row(2, 1)));
            column.setSafe(0, bytes(TestRows.longRow(6)));
            assertEquals(5L, first.getLong(0), "a row read keeps its own bytes");
        }
    }
}
