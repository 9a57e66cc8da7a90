package io.streamfusion.api.columnar;

/**
 * Materializes an upsert stream for a sink whose primary key differs from its input's upsert key,
 * as Flink's {@code SinkUpsertMaterializer} does, one Arrow batch per call and over a candidate
 * index instead of one list value per key: the distinct keys, one multi-get of their counters, one
 * of the hash entries the rows fall under, the rows in order, and one write batch. The lists of
 * keys with few candidates stay in a write-back cache, whose changes reach the state when it evicts
 * them or at {@link #flush}.
 *
 * <p>A batch has {@link #BATCH_SCHEMA}'s binary children {@code key} (the sink key's {@code
 * BinaryRowData} bytes) and {@code row} (the row's, its row kind in the first byte). A result has
 * one entry per row: {@code decision} (int8, one of the constants below), {@code latest_row}
 * (int32: for {@link #LATEST}, the batch position of the row to emit when it came from the same
 * batch, else -1) and {@code latest_bytes} (binary: for {@link #LATEST}, the row to emit when it
 * came from state, else null).
 */
public interface UpsertMaterializer extends AutoCloseable {

    /** A retraction of a row that was not the last: nothing is emitted. */
    byte NOTHING = 0;

    /** An addition to an empty list: the row is emitted as INSERT. */
    byte INSERT = 1;

    /** An addition to a list with rows: the row is emitted as UPDATE_AFTER. */
    byte UPDATE_AFTER = 2;

    /** A retraction of the only row: the incoming row is emitted as DELETE. */
    byte DELETE = 3;

    /** A retraction of the last row: the new last row is emitted as UPDATE_AFTER. */
    byte LATEST = 4;

    /** A retraction that matched no row: nothing is emitted; Flink logs that state was lost. */
    byte NOT_FOUND = 5;

    /** The children of a batch, in order. */
    String[] BATCH_SCHEMA = {"key", "row"};

    /**
     * Materializes one batch.
     *
     * @param batchArrayAddress an exported {@code ArrowArray} of a batch; the materializer takes it
     *     over and releases it exactly once, also when the call fails
     * @param resultArrayAddress an empty {@code ArrowArray} the result is exported into
     * @param resultSchemaAddress an empty {@code ArrowSchema} the result's schema is exported into
     */
    void materialize(long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress);

    /**
     * Writes the candidate lists the cache holds unwritten to the state: before a checkpoint
     * barrier, after the last batch before it.
     */
    void flush();

    /**
     * Releases the materializer's native memory and its reservation; a second call does nothing.
     */
    @Override
    void close();
}
