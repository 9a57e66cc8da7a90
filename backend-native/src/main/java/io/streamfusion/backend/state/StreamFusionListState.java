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
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * {@code ListState} in Flink's RocksDB list format: serialized elements joined by a delimiter byte
 * ({@link ListDelimitedSerializer}). {@code add} and {@code addAll} are native merges, so appending
 * never reads the list. The decoded-value cache keeps lists in that format, as bytes: a read of a
 * cached key decodes a new list without JNI, and an append to a cached key appends to its bytes.
 */
public final class StreamFusionListState<K, N, V> extends AbstractStreamFusionState<K, N, List<V>>
        implements InternalListState<K, N, V> {

    /** The byte between elements in {@link ListDelimitedSerializer}'s format. */
    private static final byte LIST_DELIMITER = ',';

    private final ListDelimitedSerializer listSerializer = new ListDelimitedSerializer();
    private TypeSerializer<V> elementSerializer;

    public StreamFusionListState(
            KeyedStateContext<K> context,
            NativeColumnFamily columnFamily,
            RegisteredKeyValueStateBackendMetaInfo<N, List<V>> metaInfo) {
        super(context, columnFamily, metaInfo, null, true);
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
        return readValue(currentKeyBytes());
    }

    @Override
    protected List<V> decodeValue(DataInputDeserializer stored) throws IOException {
        List<V> list = new ArrayList<>();
        V element;
        while ((element = ListDelimitedSerializer.deserializeNextElement(stored, elementSerializer))
                != null) {
            list.add(element);
        }
        return list;
    }

    @Override
    protected byte[] serializeValue(List<V> values) {
        try {
            return listSerializer.serializeList(values, elementSerializer);
        } catch (IOException e) {
            throw new FlinkRuntimeException(
                    "Error while serializing a list of state " + columnFamily.stateName(), e);
        }
    }

    @Override
    public void add(V value) {
        Preconditions.checkNotNull(value, "You cannot add null to a ListState.");
        appendValue(currentKeyBytes(), LIST_DELIMITER, serialize(value, elementSerializer));
    }

    @Override
    public void addAll(List<V> values) {
        Preconditions.checkNotNull(values, "List of values to add cannot be null.");
        if (!values.isEmpty()) {
            appendValue(currentKeyBytes(), LIST_DELIMITER, serializeValue(values));
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
            writeValue(currentKeyBytes(), values);
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
                    deleteValue(sourceKey);
                    appendValue(targetKey, LIST_DELIMITER, bytes);
                }
            }
        } catch (RuntimeException e) {
            throw new FlinkRuntimeException(
                    "Error while merging namespaces of state " + columnFamily.stateName(), e);
        }
    }
}
