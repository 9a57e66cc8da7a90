package io.streamfusion.operators.aggregate;

import io.streamfusion.api.columnar.ElementTableState;

import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;

import java.io.Serializable;

/**
 * A {@code MapView} that the planner's generated aggregate handler asks its data-view store for
 * when it opens, as {@link RecordingDataViewStore} saw it: the state name and the serializers Flink
 * registers it with, which the columnar operator registers too, so the view's state is Flink's.
 *
 * @param name the map state's name ({@code agg<i>$map}, {@code distinctAcc_<j>})
 * @param nullKey whether the view holds a NULL key, in the value state {@code <name>_null_state}
 */
record ElementTableSpec(
        String name,
        boolean nullKey,
        TypeSerializer<?> keySerializer,
        TypeSerializer<?> valueSerializer)
        implements Serializable {

    /**
     * Flink's suffix of the value state of a view's NULL key ({@code PerKeyStateDataViewStore}).
     */
    private static final String NULL_STATE_SUFFIX = "_null_state";

    /** The view's states as {@code PerKeyStateDataViewStore} registers them, with {@code ttl}. */
    ElementTableState state(StateTtlConfig ttl) {
        MapStateDescriptor<?, ?> map = mapDescriptor(name, keySerializer, valueSerializer);
        ValueStateDescriptor<?> nulls =
                nullKey
                        ? new ValueStateDescriptor<>(name + NULL_STATE_SUFFIX, valueSerializer)
                        : null;
        if (ttl.isEnabled()) {
            map.enableTimeToLive(ttl);
            if (nulls != null) {
                nulls.enableTimeToLive(ttl);
            }
        }
        return new ElementTableState(map, nulls);
    }

    private static <K, V> MapStateDescriptor<K, V> mapDescriptor(
            String name, TypeSerializer<K> keys, TypeSerializer<V> values) {
        return new MapStateDescriptor<>(name, keys, values);
    }
}
