package io.streamfusion.backend.state;

import io.streamfusion.backend.nativelib.EntryBatchReader;
import io.streamfusion.backend.nativelib.EntryBatchWriter;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeKeyGroupScan;

import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.ttl.TtlAwareSerializer;
import org.apache.flink.util.StateMigrationException;

import java.util.List;

/**
 * Rewrites every stored value of a state from its previous serializer's format to the new one's,
 * when a restored state is re-registered with a serializer that is compatible after migration.
 * Reads a native snapshot scan and writes batches, one JNI crossing each way per batch. Follows
 * Flink's RocksDB backend, including its rule that map keys cannot migrate.
 */
public final class StateValueMigration {

    private static final int BATCH_BYTES = 4 << 20;

    private StateValueMigration() {}

    @SuppressWarnings("unchecked")
    public static <K, N, SV> void migrate(
            KeyedStateContext<K> context,
            StateDescriptor<?, SV> descriptor,
            NativeColumnFamily columnFamily,
            RegisteredKeyValueStateBackendMetaInfo<N, SV> metaInfo)
            throws Exception {
        if (descriptor.getType() == StateDescriptor.Type.MAP) {
            checkMapKeysNeedNoMigration(descriptor, metaInfo);
        }
        AbstractStreamFusionState<K, N, SV> state =
                (AbstractStreamFusionState<K, N, SV>)
                        StateKinds.create(context, descriptor, columnFamily, metaInfo);
        TypeSerializer<SV> prior =
                (TypeSerializer<SV>)
                        TtlAwareSerializer.wrapTtlAwareSerializer(
                                metaInfo.getPreviousStateSerializer());
        TypeSerializer<SV> next =
                (TypeSerializer<SV>)
                        TtlAwareSerializer.wrapTtlAwareSerializer(metaInfo.getStateSerializer());

        List<NativeColumnFamily> columnFamilies = List.of(columnFamily);
        DataInputDeserializer in = new DataInputDeserializer();
        DataOutputSerializer out = new DataOutputSerializer(512);
        EntryBatchWriter writes = new EntryBatchWriter(BATCH_BYTES + (64 << 10));
        try (NativeKeyGroupScan scan =
                context.store().openScan(columnFamilies, context.keyGroupPrefixBytes())) {
            byte[] batch;
            while ((batch = scan.nextBatch(BATCH_BYTES)).length > 0) {
                EntryBatchReader reader = new EntryBatchReader(batch);
                while (reader.advance()) {
                    in.setBuffer(reader.value());
                    out.clear();
                    state.migrateSerializedValue(in, out, prior, next, context.ttlTimeProvider());
                    writes.add(0, reader.key(), out.getCopyOfBuffer());
                }
                context.store().applyBatch(columnFamilies, writes.toByteArray());
                writes.clear();
            }
        }
    }

    private static <SV> void checkMapKeysNeedNoMigration(
            StateDescriptor<?, SV> descriptor,
            RegisteredKeyValueStateBackendMetaInfo<?, SV> metaInfo)
            throws StateMigrationException {
        TypeSerializerSnapshot<SV> previous = metaInfo.getPreviousStateSerializerSnapshot();
        TypeSerializer<SV> current = metaInfo.getStateSerializer();
        if (!(previous instanceof MapSerializerSnapshot) || !(current instanceof MapSerializer)) {
            throw new StateMigrationException(
                    "Map state '"
                            + descriptor.getName()
                            + "' was restored with a serializer that is not a map serializer");
        }
        @SuppressWarnings("unchecked")
        TypeSerializerSnapshot<Object> previousKeys =
                (TypeSerializerSnapshot<Object>)
                        ((MapSerializerSnapshot<?, ?>) previous).getNestedSerializerSnapshots()[0];
        @SuppressWarnings("unchecked")
        TypeSerializer<Object> currentKeys =
                (TypeSerializer<Object>) ((MapSerializer<?, ?>) current).getKeySerializer();
        if (!currentKeys
                .snapshotConfiguration()
                .resolveSchemaCompatibility(previousKeys)
                .isCompatibleAsIs()) {
            throw new StateMigrationException(
                    "Map state '"
                            + descriptor.getName()
                            + "': the new serializer requires state migration"
                            + " because the key schema has changed. Migration for MapState only allows value"
                            + " schema evolutions.");
        }
    }
}
