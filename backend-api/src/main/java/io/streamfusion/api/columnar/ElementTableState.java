package io.streamfusion.api.columnar;

import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;

import javax.annotation.Nullable;

import java.io.Serializable;

/**
 * The keyed state of one element table of a {@link GroupAggregator}: a {@code MapView} that one of
 * Flink's aggregate functions keeps next to its accumulators, registered as Flink's {@code
 * PerKeyStateDataViewStore} registers it, so a savepoint moves between the aggregator and Flink's
 * operator. Its elements are the values of an argument, serialized as Flink serializes the map's
 * keys, and each counts rows or holds a DISTINCT view's bits as a {@code Long}.
 *
 * @param map the map state of the elements ({@code agg<i>$map}, {@code distinctAcc_<j>})
 * @param nulls the value state of the NULL element's count ({@code distinctAcc_<j>_null_state}),
 *     for a view whose argument may be NULL; null otherwise
 */
public record ElementTableState(
        MapStateDescriptor<?, ?> map, @Nullable ValueStateDescriptor<?> nulls)
        implements Serializable {}
