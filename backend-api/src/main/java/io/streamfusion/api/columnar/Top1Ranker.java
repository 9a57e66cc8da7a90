package io.streamfusion.api.columnar;

/**
 * Keeps one row per key, as Flink's {@code FastTop1Function} and its deduplications do, one Arrow
 * batch per call: the key group of each key, the distinct keys, one multi-get of the winners no
 * cache holds, and the comparisons in row order. Its cache is write-back: a new winner is written
 * when the cache evicts it or at {@link #flush}. Rejected rows write nothing. TTL expiry and
 * timestamps follow the backend's TTL clock.
 *
 * <p>Batches and results cross through the Arrow C Data Interface. A batch is a struct array with
 * the children {@code key} (binary: the {@code BinaryRowData} bytes of the row's partition key) and
 * {@code row} (binary: the {@code BinaryRowData} bytes of the row). A result is a struct array with
 * one entry per row: {@code decision} (int8: {@link #REJECTED}, {@link #FIRST} or {@link
 * #REPLACED}), {@code replaced_row} (int32: the batch position of the replaced winner when it came
 * from the same batch, else -1) and {@code replaced_bytes} (binary, null unless the replaced winner
 * came from state and the spec asks for replaced winners).
 *
 * <p>A ranker opened with emitted flags keeps its winners until their event-time timers fire, as
 * Flink's row-time keep-first deduplication with insert-only output does: it rejects the rows of a
 * key whose winner was emitted (until that key's flag expires), and {@link #takeWinners} takes the
 * winners of fired timers out of the state and flags their keys.
 */
public interface Top1Ranker extends AutoCloseable {

    /**
     * The row does not take its key's place (see {@link Top1Replacement}): nothing is emitted,
     * nothing written.
     */
    byte REJECTED = 0;

    /** The row is its key's first: Flink emits INSERT. */
    byte FIRST = 1;

    /**
     * The row takes its key's place: Flink emits UPDATE_BEFORE of the old winner, then
     * UPDATE_AFTER.
     */
    byte REPLACED = 2;

    /** The children of a batch, in order. */
    String[] BATCH_SCHEMA = {"key", "row"};

    /**
     * Ranks one batch.
     *
     * @param batchArrayAddress an exported {@code ArrowArray} of a batch; the ranker takes it over
     *     and releases it exactly once, also when the call fails
     * @param resultArrayAddress an empty {@code ArrowArray} the result is exported into
     * @param resultSchemaAddress an empty {@code ArrowSchema} the result's schema is exported into
     */
    void rank(long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress);

    /**
     * Takes the winners of the keys of one batch of fired timers (a batch like a ranked one, whose
     * rows are ignored) out of the state and the cache, and flags those keys as emitted, in one
     * write batch. The result is a struct array with one entry per row: {@code winner} (binary: the
     * key's winner at the key's first row in the batch; null at its later rows, or if the key has
     * no winner). Only a ranker opened with emitted flags takes winners.
     *
     * @param batchArrayAddress an exported {@code ArrowArray} of the batch; taken over and released
     *     exactly once, also when the call fails
     * @param resultArrayAddress an empty {@code ArrowArray} the result is exported into
     * @param resultSchemaAddress an empty {@code ArrowSchema} the result's schema is exported into
     */
    void takeWinners(long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress);

    /**
     * Writes the winners that only the ranker's cache holds: the operator calls it before a
     * checkpoint barrier, so that the snapshot has them.
     */
    void flush();

    /**
     * Lookups the ranker's cache answered since it was opened, as of its last batch. Safe to call
     * from any thread, also after {@link #close()}: metric reporters call it.
     */
    long cacheHits();

    /**
     * Lookups that went to the state since it was opened; safe from any thread, like {@link
     * #cacheHits()}.
     */
    long cacheMisses();

    /** Bytes of the slot budget this ranker reserved (cache and batches). */
    long reservedBytes();

    /** Releases the ranker's native memory and its reservation; a second call does nothing. */
    @Override
    void close();
}
