package io.streamfusion.backend.state;

import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.runtime.state.StateSnapshotTransformer;
import org.apache.flink.runtime.state.StateSnapshotTransformer.StateSnapshotTransformFactory;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * Adapts the snapshot transform Flink hands to {@code createOrUpdateInternalState} (TTL cleanup in
 * full snapshots) to the stored bytes of each state kind, which is what a native scan yields. Like
 * Flink's RocksDB backend, only serialized-state transforms are offered.
 */
public final class SerializedSnapshotTransformFactory<SV>
        implements StateSnapshotTransformFactory<SV> {

    private final Supplier<Optional<StateSnapshotTransformer<byte[]>>> serialized;

    private SerializedSnapshotTransformFactory(
            Supplier<Optional<StateSnapshotTransformer<byte[]>>> serialized) {
        this.serialized = serialized;
    }

    /** The adapter for a state of the descriptor's kind. */
    @SuppressWarnings("unchecked")
    public static <SV, SEV> StateSnapshotTransformFactory<SV> forState(
            StateDescriptor<?, SV> descriptor,
            StateSnapshotTransformFactory<SEV> original,
            TypeSerializer<SV> stateSerializer) {
        switch (descriptor.getType()) {
            case LIST:
                TypeSerializer<SEV> elementSerializer =
                        ((ListSerializer<SEV>) stateSerializer).getElementSerializer();
                return new SerializedSnapshotTransformFactory<>(
                        () ->
                                original.createForDeserializedState()
                                        .map(
                                                t ->
                                                        new ListElementsSnapshotTransformer<>(
                                                                t, elementSerializer.duplicate())));
            case MAP:
                return new SerializedSnapshotTransformFactory<>(
                        () ->
                                original.createForSerializedState()
                                        .map(MapValueSnapshotTransformer::new));
            default:
                return new SerializedSnapshotTransformFactory<>(original::createForSerializedState);
        }
    }

    @Override
    public Optional<StateSnapshotTransformer<SV>> createForDeserializedState() {
        throw new UnsupportedOperationException(
                "StreamFusion filters snapshots on serialized state only");
    }

    @Override
    public Optional<StateSnapshotTransformer<byte[]>> createForSerializedState() {
        return serialized.get();
    }
}
