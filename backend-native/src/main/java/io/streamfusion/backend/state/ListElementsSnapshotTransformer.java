package io.streamfusion.backend.state;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.runtime.state.ListDelimitedSerializer;
import org.apache.flink.runtime.state.StateSnapshotTransformer;
import org.apache.flink.runtime.state.StateSnapshotTransformer.CollectionStateSnapshotTransformer;
import org.apache.flink.util.FlinkRuntimeException;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Applies an element transform to a stored list ({@link ListDelimitedSerializer} bytes), dropping
 * the entry when no element survives. Mirrors Flink's RocksDB list transformer, including the
 * stop-on-first-included shortcut for lists ordered by expiry.
 */
final class ListElementsSnapshotTransformer<T> implements StateSnapshotTransformer<byte[]> {

    private final StateSnapshotTransformer<T> elementTransformer;
    private final TypeSerializer<T> elementSerializer;
    private final CollectionStateSnapshotTransformer.TransformStrategy strategy;
    private final ListDelimitedSerializer listSerializer = new ListDelimitedSerializer();
    private final DataInputDeserializer in = new DataInputDeserializer();

    ListElementsSnapshotTransformer(
            StateSnapshotTransformer<T> elementTransformer, TypeSerializer<T> elementSerializer) {
        this.elementTransformer = elementTransformer;
        this.elementSerializer = elementSerializer;
        this.strategy =
                elementTransformer instanceof CollectionStateSnapshotTransformer
                        ? ((CollectionStateSnapshotTransformer<?>) elementTransformer)
                                .getFilterStrategy()
                        : CollectionStateSnapshotTransformer.TransformStrategy.TRANSFORM_ALL;
    }

    @Override
    @Nullable
    public byte[] filterOrTransform(@Nullable byte[] value) {
        if (value == null) {
            return null;
        }
        List<T> kept = new ArrayList<>();
        in.setBuffer(value);
        int previousPosition = 0;
        try {
            T next;
            while ((next = ListDelimitedSerializer.deserializeNextElement(in, elementSerializer))
                    != null) {
                T transformed = elementTransformer.filterOrTransform(next);
                if (transformed != null) {
                    if (strategy
                            == CollectionStateSnapshotTransformer.TransformStrategy
                                    .STOP_ON_FIRST_INCLUDED) {
                        return Arrays.copyOfRange(value, previousPosition, value.length);
                    }
                    kept.add(transformed);
                }
                previousPosition = in.getPosition();
            }
            return kept.isEmpty() ? null : listSerializer.serializeList(kept, elementSerializer);
        } catch (IOException e) {
            throw new FlinkRuntimeException("Failed to transform a list in a snapshot", e);
        }
    }
}
