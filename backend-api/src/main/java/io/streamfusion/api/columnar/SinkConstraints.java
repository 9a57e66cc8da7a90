package io.streamfusion.api.columnar;

/**
 * Enforces a sink's NOT NULL and length constraints on Arrow batches, as Flink's {@code
 * ConstraintEnforcer} does row by row: one call per batch, no state.
 *
 * <p>A batch has {@link UpsertMaterializer#BATCH_SCHEMA}'s binary children (the {@code key} is not
 * read). A result covers the rows up to the first violation, one entry each: {@code outcome} (int8,
 * one of the constants below), {@code row} (binary: the new bytes of a {@link #REWRITTEN} row, else
 * null), and, for the violating last entry, {@code field} (int32: the index of the field among the
 * violated constraint's fields) and {@code length} (int32: the value's length).
 */
public interface SinkConstraints extends AutoCloseable {

    /** The row passes unchanged. */
    byte EMIT = 0;

    /** The row passes with trimmed or padded fields. */
    byte REWRITTEN = 1;

    /** A NOT NULL column is NULL and the mode is DROP. */
    byte DROPPED = 2;

    /** A NOT NULL column is NULL and the mode is ERROR. */
    byte NULL_VIOLATION = 3;

    /** A CHAR/VARCHAR value has the wrong length and the mode is ERROR. */
    byte CHAR_VIOLATION = 4;

    /** A BINARY/VARBINARY value has the wrong length and the mode is ERROR. */
    byte BINARY_VIOLATION = 5;

    /**
     * Enforces the constraints on one batch.
     *
     * @param batchArrayAddress an exported {@code ArrowArray} of a batch; taken over and released
     *     exactly once, also when the call fails
     * @param resultArrayAddress an empty {@code ArrowArray} the result is exported into
     * @param resultSchemaAddress an empty {@code ArrowSchema} the result's schema is exported into
     */
    void enforce(long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress);

    /** Releases the native enforcer; a second call does nothing. */
    @Override
    void close();
}
