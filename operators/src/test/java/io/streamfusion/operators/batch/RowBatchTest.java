package io.streamfusion.operators.batch;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;

import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.complex.StructVector;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A batch holds the rows' and keys' bytes as Arrow binary columns, within its bounds, and leaks
 * nothing.
 */
class RowBatchTest {

    private static BinaryRowData row(long value) {
        return TestRows.longRow(value);
    }

    private static byte[] bytes(BinaryRowData row) {
        return TestRows.bytes(row);
    }

    /** Exports the batch through the C Data Interface and imports it, as a kernel sees it. */
    private static StructVector exportAndImport(BufferAllocator allocator, RowBatch batch) {
        try (ArrowArray array = ArrowArray.allocateNew(allocator);
                org.apache.arrow.c.ArrowSchema schema =
                        org.apache.arrow.c.ArrowSchema.allocateNew(allocator)) {
            batch.exportTo(array);
            batch.exportSchema(schema);
            return (StructVector) Data.importVector(allocator, array, schema, null);
        }
    }

    @Test
    void exportsKeysAndRowsAndKeepsTimestamps() {
        try (BufferAllocator allocator = BatchAllocators.forOperator("test", 1 << 20);
                RowBatch batch = new RowBatch(allocator, 8, 1 << 19)) {
            for (int round = 0; round < 2; round++) {
                batch.add(row(10), row(10), row(1), new StreamRecord<>(row(10), 77));
                batch.add(row(20), row(20), row(2), new StreamRecord<RowData>(row(20)));
                assertEquals(2, batch.size());
                assertTrue(
                        batch.hasTimestamp(0)
                                && batch.timestamp(0) == 77
                                && !batch.hasTimestamp(1));
                try (StructVector imported = exportAndImport(allocator, batch)) {
                    VarBinaryVector keys = (VarBinaryVector) imported.getChild("key");
                    VarBinaryVector rows = (VarBinaryVector) imported.getChild("row");
                    assertArrayEquals(bytes(row(1)), keys.get(0));
                    assertArrayEquals(bytes(row(20)), rows.get(1));
                }
                batch.clear();
                assertTrue(batch.isEmpty());
            }
        }
        assertEquals(0, BatchAllocators.allocatedBytes(), "every buffer released");
    }

    @Test
    void aBatchIsFullAtItsRowsOrItsBytes() {
        try (BufferAllocator allocator = BatchAllocators.forOperator("test", 1 << 20);
                RowBatch batch = new RowBatch(allocator, 2, 40)) {
            assertTrue(batch.fits(1_000), "an empty batch takes any row");
            batch.add(row(1), row(1), row(1), new StreamRecord<RowData>(row(1)));
            assertFalse(batch.fits(17), "32 bytes held, 40 at most");
            assertTrue(batch.fits(8));
            batch.add(row(2), row(2), row(2), new StreamRecord<RowData>(row(2)));
            assertFalse(batch.fits(0), "two rows at most");
        }
    }

    /** A row with a string of {@code length} characters, so that rows differ in size. */
    private static BinaryRowData stringRow(int length) {
        BinaryRowData row = new BinaryRowData(1);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        writer.writeString(0, StringData.fromString("x".repeat(length)));
        writer.complete();
        return row;
    }

    /** The same bytes as {@code row}, split over two memory segments of equal size. */
    private static BinaryRowData splitOverTwoSegments(BinaryRowData row) {
        byte[] bytes = bytes(row);
        int segmentSize = (bytes.length + 1) / 2;
        BinaryRowData split = new BinaryRowData(row.getArity());
        split.pointTo(
                new MemorySegment[] {
                    MemorySegmentFactory.wrap(Arrays.copyOfRange(bytes, 0, segmentSize)),
                    MemorySegmentFactory.wrap(
                            Arrays.copyOf(
                                    Arrays.copyOfRange(bytes, segmentSize, bytes.length),
                                    segmentSize))
                },
                0,
                bytes.length);
        return split;
    }

    @Test
    void batchesThatOutgrowTheirBuffersExportEveryValueIntactAndPresent() {
        int rowsPerBatch = 9_000;
        try (BufferAllocator allocator = BatchAllocators.forOperator("test", 64 << 20);
                RowBatch batch = new RowBatch(allocator, rowsPerBatch, 32 << 20)) {
            for (int round = 0; round < 3; round++) {
                // Fewer rows in the second round: nothing of the first may show through.
                int count = round == 1 ? 1_001 : rowsPerBatch;
                for (int i = 0; i < count; i++) {
                    BinaryRowData row = stringRow((i * 7 + round) % 300);
                    BinaryRowData key = i % 97 == 0 ? splitOverTwoSegments(row(i)) : row(i);
                    batch.add(row, row, key, new StreamRecord<RowData>(row));
                }
                try (StructVector imported = exportAndImport(allocator, batch)) {
                    VarBinaryVector keys = (VarBinaryVector) imported.getChild("key");
                    VarBinaryVector rows = (VarBinaryVector) imported.getChild("row");
                    assertEquals(count, imported.getValueCount());
                    assertEquals(0, imported.getNullCount());
                    assertEquals(0, keys.getNullCount());
                    assertEquals(0, rows.getNullCount());
                    for (int i = 0; i < count; i++) {
                        assertArrayEquals(bytes(row(i)), keys.get(i), "key " + i);
                        assertArrayEquals(
                                bytes(stringRow((i * 7 + round) % 300)), rows.get(i), "row " + i);
                    }
                }
                batch.clear();
            }
        }
        assertEquals(0, BatchAllocators.allocatedBytes(), "every buffer released");
    }
}
