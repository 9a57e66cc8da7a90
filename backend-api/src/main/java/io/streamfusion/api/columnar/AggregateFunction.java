package io.streamfusion.api.columnar;

/**
 * The aggregate functions a {@link GroupAggregator} computes natively, each as Flink's planner
 * generates its declarative twin for numbers (TINYINT to BIGINT, FLOAT, DOUBLE, DECIMAL), or, for
 * MIN and MAX over retractions, as Flink's imperative functions compute them. The ordinals are the
 * codes native/src/columnar/group_agg/functions.rs reads.
 */
public enum AggregateFunction {
    /** {@code COUNT(*)} ({@code Count1AggFunction}), also the row count the planner adds. */
    COUNT_STAR,
    /** {@code COUNT(x)} ({@code CountAggFunction}): the non-NULL arguments. */
    COUNT,
    /** {@code SUM} of insert-only input ({@code SumAggFunction}). */
    SUM,
    /** {@code SUM} of input with retractions ({@code SumWithRetractAggFunction}). */
    SUM_WITH_RETRACT,
    /** {@code $SUM0}, a SUM starting at 0 ({@code Sum0AggFunction}). */
    SUM0,
    /** {@code AVG} ({@code AvgAggFunction}), with or without retractions. */
    AVG,
    /** {@code MAX} of insert-only input ({@code MaxAggFunction}). */
    MAX,
    /** {@code MIN} of insert-only input ({@code MinAggFunction}). */
    MIN,
    /**
     * {@code MAX} of input with retractions ({@code MaxWithRetractAggFunction}): the maximum and a
     * count of its values in an element table.
     */
    MAX_WITH_RETRACT,
    /** {@code MIN} of input with retractions ({@code MinWithRetractAggFunction}). */
    MIN_WITH_RETRACT;

    /** Whether the function has a retract method. */
    public boolean retracts() {
        return this != SUM && this != MAX && this != MIN;
    }

    /** Whether the function counts its values in an element table of its own. */
    public boolean keepsElementTable() {
        return this == MAX_WITH_RETRACT || this == MIN_WITH_RETRACT;
    }
}
