package io.streamfusion.operators.batch;

import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;

import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

import java.util.List;

/**
 * The rows a keyed operator gathered, as an Arrow batch of two binary columns, {@code key} (the
 * {@code BinaryRowData} bytes of each row's key) and {@code row} (the row's own bytes), plus what
 * the JVM keeps per row to emit results: the row objects and their record timestamps. The vectors
 * are reused from batch to batch, so a steady stream allocates no Arrow memory.
 */
public final class RowBatch implements AutoCloseable {

    private final BufferAllocator allocator;
    private final StructVector struct;
    private final BinaryColumnAppender keys;
    private final BinaryColumnAppender rows;
    private final RowData[] rowObjects;
    private final BinaryRowData[] keyObjects;
    private final long[] timestamps;
    private final boolean[] hasTimestamp;
    private final long maxDataBytes;
    private int size;
    private long dataBytes;

    /**
     * @param capacity the most rows a batch holds
     * @param maxDataBytes the most key and row bytes a batch holds
     */
    public RowBatch(BufferAllocator allocator, int capacity, long maxDataBytes) {
        this.allocator = allocator;
        this.struct = StructVector.empty("batch", allocator);
        this.keys =
                new BinaryColumnAppender(struct.addOrGet("key", notNull(), VarBinaryVector.class));
        this.rows =
                new BinaryColumnAppender(struct.addOrGet("row", notNull(), VarBinaryVector.class));
        this.rowObjects = new RowData[capacity];
        this.keyObjects = new BinaryRowData[capacity];
        this.timestamps = new long[capacity];
        this.hasTimestamp = new boolean[capacity];
        this.maxDataBytes = maxDataBytes;
    }

    private static FieldType notNull() {
        return new FieldType(false, ArrowType.Binary.INSTANCE, null);
    }

    /** The batch's Arrow fields, for the schema handed over once. */
    public static List<Field> fields() {
        return List.of(new Field("key", notNull(), null), new Field("row", notNull(), null));
    }

    /** Exports the schema of the batches into {@code schema}, which then owns it. */
    public void exportSchema(ArrowSchema schema) {
        Data.exportField(allocator, struct.getField(), null, schema);
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Whether another row fits in the batch's row capacity, whatever its bytes. */
    public boolean hasRoom() {
        return size < rowObjects.length;
    }

    /** Whether another row of {@code bytes} key and row bytes fits. */
    public boolean fits(int bytes) {
        return size < rowObjects.length && (size == 0 || dataBytes + bytes <= maxDataBytes);
    }

    /**
     * Adds a row's bytes, the row as the operator keeps it (the same row, or the one received), its
     * key, and its record's timestamp.
     */
    public void add(BinaryRowData row, RowData kept, BinaryRowData key, StreamRecord<?> record) {
        keys.append(key);
        rows.append(row);
        rowObjects[size] = kept;
        keyObjects[size] = key;
        hasTimestamp[size] = record.hasTimestamp();
        timestamps[size] = record.getTimestamp();
        dataBytes += key.getSizeInBytes() + row.getSizeInBytes();
        size++;
    }

    /** The row at {@code index}, as the operator kept it. */
    public RowData row(int index) {
        return rowObjects[index];
    }

    /** The key of the row at {@code index}. */
    public BinaryRowData key(int index) {
        return keyObjects[index];
    }

    public boolean hasTimestamp(int index) {
        return hasTimestamp[index];
    }

    public long timestamp(int index) {
        return timestamps[index];
    }

    /**
     * Exports the batch into {@code array}; the consumer that imports it must release it before the
     * batch is {@link #clear() cleared}.
     */
    public void exportTo(ArrowArray array) {
        keys.complete();
        rows.complete();
        if (size > 0) {
            // Grows the struct's validity buffer to the batch, then marks every row present.
            struct.setIndexDefined(size - 1);
            BinaryColumnAppender.setValid(struct.getValidityBuffer(), size);
        }
        struct.setValueCount(size);
        Data.exportVector(allocator, struct, null, array);
    }

    /** Empties the batch, keeping its buffers for the next one. */
    public void clear() {
        java.util.Arrays.fill(rowObjects, 0, size, null);
        java.util.Arrays.fill(keyObjects, 0, size, null);
        struct.reset();
        keys.clear();
        rows.clear();
        size = 0;
        dataBytes = 0;
    }

    @Override
    public void close() {
        java.util.Arrays.fill(rowObjects, null);
        java.util.Arrays.fill(keyObjects, null);
        struct.close();
    }
}
