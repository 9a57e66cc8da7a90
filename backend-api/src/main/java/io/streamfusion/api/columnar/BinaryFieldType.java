package io.streamfusion.api.columnar;

/**
 * How a field of Flink's {@code BinaryRowData} is stored and compared, for the types a native
 * kernel compares. Comparisons follow Flink's generated comparators: numbers by primitive
 * comparison (so NaN equals everything and -0.0 equals 0.0), strings and binary strings by unsigned
 * bytes then length, decimals and timestamps by value.
 */
public enum BinaryFieldType {
    /** BOOLEAN: one byte, false before true. */
    BOOLEAN,
    /** TINYINT: one signed byte. */
    TINYINT,
    /** SMALLINT: two bytes. */
    SMALLINT,
    /** INT, DATE, TIME and INTERVAL YEAR TO MONTH: four bytes. */
    INT,
    /** BIGINT and INTERVAL DAY TO SECOND: eight bytes. */
    BIGINT,
    /** FLOAT: four bytes. */
    FLOAT,
    /** DOUBLE: eight bytes. */
    DOUBLE,
    /** DECIMAL of precision up to 18: the unscaled value in eight bytes. */
    COMPACT_DECIMAL,
    /** DECIMAL of a larger precision: the unscaled value's two's-complement bytes, big-endian. */
    DECIMAL,
    /** TIMESTAMP and TIMESTAMP_LTZ of precision up to 3: epoch milliseconds in eight bytes. */
    COMPACT_TIMESTAMP,
    /**
     * TIMESTAMP and TIMESTAMP_LTZ of a larger precision: milliseconds and nanoseconds of the
     * millisecond.
     */
    TIMESTAMP,
    /** CHAR, VARCHAR, BINARY and VARBINARY: variable-length bytes. */
    BYTES,
    /**
     * A row-time attribute (TIMESTAMP or TIMESTAMP_LTZ of precision up to 3) as Flink's row-time
     * deduplication reads it, {@code RowData.getLong}: the fixed slot's eight bytes whatever the
     * null bit says. Flink's writers zero a NULL's slot, so a NULL compares as 0, with no null
     * placement.
     */
    ROWTIME_MILLIS
}
