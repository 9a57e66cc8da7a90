package io.streamfusion.api.columnar;

import java.util.List;

/**
 * What a {@link GroupAggregator} computes.
 *
 * @param inputArity the number of fields of the input rows
 * @param calls the aggregate calls in the planner's order; the accumulator row holds their fields
 *     in that order, as Flink's generated handler does
 * @param valueArity how many of the leading calls are in the output (a row count the planner added
 *     for retractions is not)
 * @param countStarField the accumulator field that counts rows (Flink's {@code RecordCounter}
 *     index), or -1 when the input never retracts
 * @param mergedFrom where the accumulator fields start in input rows that are accumulators to merge
 *     (a two-phase aggregation's global half); -1 for input rows to accumulate or retract
 * @param perKeyRuns whether each batch holds the rows of a key as one run (a bundle of Flink's
 *     one-phase mini-batch aggregation), aggregated together and emitted for once at the run's last
 *     row; a key's rows are never split between batches
 * @param generateUpdateBefore whether a changed value is retracted with UPDATE_BEFORE
 * @param cacheBytes bytes of the slot's memory budget the aggregator may keep hot accumulators in;
 *     0 for no cache
 * @param batchMemoryBytes bytes the operator's Arrow batches may take; also charged to the slot's
 *     budget
 */
public record GroupAggregatorSpec(
        int inputArity,
        List<AggregateCall> calls,
        int valueArity,
        int countStarField,
        int mergedFrom,
        boolean perKeyRuns,
        boolean generateUpdateBefore,
        long cacheBytes,
        long batchMemoryBytes) {

    public GroupAggregatorSpec {
        calls = List.copyOf(calls);
        if (valueArity > calls.size()) {
            throw new IllegalArgumentException(
                    valueArity + " values of " + calls.size() + " calls");
        }
        for (AggregateCall call : calls) {
            if (call.argumentField() >= inputArity || call.filterField() >= inputArity) {
                throw new IllegalArgumentException(
                        "Aggregate call " + call + " is outside rows of " + inputArity + " fields");
            }
        }
        if (cacheBytes < 0 || batchMemoryBytes < 0) {
            throw new IllegalArgumentException("Memory sizes are not negative");
        }
    }
}
