package io.streamfusion.backend.state;

import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.ListDelimitedSerializer;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.runtime.state.ttl.TtlAwareSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.FlinkRuntimeException;
import org.apache.flink.util.Preconditions;
import org.apache.flink.util.StateMigrationException;

import java.io.IOException;
import java.util.Collection;
import java.util.List;

/**
 * {@code ListState} in Flink's RocksDB list format: serialized elements joined by a delimiter byte
 * ({@link ListDelimitedSerializer}). {@code add} and {@code addAll} are native merges, so appending
 * never reads the list.
 */
public final class StreamFusionListState<K, N, V> extends AbstractStreamFusionState<K, N, List<V>>
        implements InternalListState<K, N, V> {

    /** The byte between elements in {@link ListDelimitedSerializer}'s format. */
    private static final byte LIST_DELIMITER = ',';

    private final ListDelimitedSerializer listSerializer = new ListDelimitedSerializer();
    private final StoredValueDecoding.Decoder<List<V>> listDecoder =
            bytes -> listSerializer.deserializeList(bytes, this.elementSerializer);
    private TypeSerializer<V> elementSerializer;

    public StreamFusionListState(
            KeyedStateContext<K> context,
            NativeColumnFamily columnFamily,
            RegisteredKeyValueStateBackendMetaInfo<N, List<V>> metaInfo) {
        super(context, columnFamily, metaInfo, null);
    }

    @Override
    protected void onValueSerializerChanged(TypeSerializer<List<V>> newValueSerializer) {
        this.elementSerializer = ((ListSerializer<V>) newValueSerializer).getElementSerializer();
    }

    @Override
    public Iterable<V> get() throws IOException {
        return getInternal();
    }

    @Override
    public List<V> getInternal() throws IOException {
        byte[] key = currentKeyBytes();
        byte[] stored = columnFamily.get(key);
        return stored == null
                ? null
                : decodeStored(
                        key,
                        stored,
                        bytes -> listSerializer.deserializeList(bytes, elementSerializer));
    }

    @Override
    public void add(V value) {
        Preconditions.checkNotNull(value, "You cannot add null to a ListState.");
        columnFamily.merge(currentKeyBytes(), serialize(value, elementSerializer));
    }

    @Override
    public void addAll(List<V> values) throws IOException {
        Preconditions.checkNotNull(values, "List of values to add cannot be null.");
        if (!values.isEmpty()) {
            columnFamily.merge(
                    currentKeyBytes(), listSerializer.serializeList(values, elementSerializer));
        }
    }

    @Override
    public void update(List<V> values) throws IOException {
        updateInternal(values);
    }

    @Override
    public void updateInternal(List<V> values) throws IOException {
        Preconditions.checkNotNull(values, "List of values to add cannot be null.");
        if (values.isEmpty()) {
            clear();
        } else {
            columnFamily.put(
                    currentKeyBytes(), listSerializer.serializeList(values, elementSerializer));
        }
    }

    @Override
    public void migrateSerializedValue(
            DataInputDeserializer oldValue,
            DataOutputSerializer newValue,
            TypeSerializer<List<V>> priorSerializer,
            TypeSerializer<List<V>> newSerializer,
            TtlTimeProvider ttlTimeProvider)
            throws StateMigrationException {
        TtlAwareSerializer<V, ?> prior =
                ((TtlAwareSerializer.TtlAwareListSerializer<V>) priorSerializer)
                        .getElementSerializer();
        TtlAwareSerializer<V, ?> next =
                ((TtlAwareSerializer.TtlAwareListSerializer<V>) newSerializer)
                        .getElementSerializer();
        try {
            while (oldValue.available() > 0) {
                next.migrateValueFromPriorSerializer(
                        prior,
                        () -> ListDelimitedSerializer.deserializeNextElement(oldValue, prior),
                        newValue,
                        ttlTimeProvider);
                if (oldValue.available() > 0) {
                    newValue.write(LIST_DELIMITER);
                }
            }
        } catch (Exception e) {
            throw new StateMigrationException(
                    "Error while migrating list state " + columnFamily.stateName(), e);
        }
    }

    @Override
    public void mergeNamespaces(N target, Collection<N> sources) {
        if (sources == null || sources.isEmpty()) {
            return;
        }
        try {
            setCurrentNamespace(target);
            byte[] targetKey = currentKeyBytes();
            for (N source : sources) {
                if (source == null) {
                    continue;
                }
                setCurrentNamespace(source);
                byte[] sourceKey = currentKeyBytes();
                byte[] bytes = columnFamily.get(sourceKey);
                if (bytes != null) {
                    columnFamily.delete(sourceKey);
                    columnFamily.merge(targetKey, bytes);
                }
            }
        } catch (RuntimeException e) {
            throw new FlinkRuntimeException(
                    "Error while merging namespaces of state " + columnFamily.stateName(), e);
        }
    }
}
