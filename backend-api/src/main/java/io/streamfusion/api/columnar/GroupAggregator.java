package io.streamfusion.api.columnar;

/**
 * Aggregates per key as Flink's {@code GroupAggFunction} does, one Arrow batch per call, with the
 * accumulators in Flink's own {@code accState}: the key group of each key, the distinct keys, one
 * multi-get of the accumulators no cache holds, every row in order, and one write batch: of the
 * accumulators the write-back cache evicted, the deletes, and the changed accumulators it had no
 * room for ({@link #flush} writes the rest). TTL expiry and timestamps follow the backend's TTL
 * clock.
 *
 * <p>Batches have {@link Top1Ranker#BATCH_SCHEMA}'s layout; each row's RowKind byte says whether it
 * accumulates or retracts. A result is a struct array with one entry per row: {@code decision}
 * (int8: {@link #NOTHING}, {@link #INSERT}, {@link #UPDATE} or {@link #DELETE}), {@code previous}
 * and {@code current} (binary, nullable: the {@code BinaryRowData} bytes of the old and new
 * aggregate values, where the decision emits them).
 */
public interface GroupAggregator extends AutoCloseable {

    /** Nothing is emitted for the row. */
    byte NOTHING = 0;

    /** The key's first row: INSERT of {@code current}. */
    byte INSERT = 1;

    /**
     * The value changed: UPDATE_BEFORE of {@code previous} (when the spec asks for it), then
     * UPDATE_AFTER of {@code current}.
     */
    byte UPDATE = 2;

    /** The key's rows were all retracted: DELETE of {@code previous}. */
    byte DELETE = 3;

    /**
     * Aggregates one batch.
     *
     * @param batchArrayAddress an exported {@code ArrowArray} of a batch; the aggregator takes it
     *     over and releases it exactly once, also when the call fails
     * @param resultArrayAddress an empty {@code ArrowArray} the result is exported into
     * @param resultSchemaAddress an empty {@code ArrowSchema} the result's schema is exported into
     */
    void aggregate(long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress);

    /**
     * Writes the accumulators that only the aggregator's cache holds (its cache is write-back): the
     * operator calls it before a checkpoint barrier, so that the snapshot has them.
     */
    void flush();

    /** Lookups the cache answered since the aggregator opened; safe from any thread. */
    long cacheHits();

    /** Lookups that went to the state since the aggregator opened; safe from any thread. */
    long cacheMisses();

    /** Bytes of the slot budget this aggregator reserved (cache and batches). */
    long reservedBytes();

    /** Releases the aggregator's native memory and its reservation; a second call does nothing. */
    @Override
    void close();
}
