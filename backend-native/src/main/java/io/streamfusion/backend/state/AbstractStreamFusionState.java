package io.streamfusion.backend.state;

import io.streamfusion.backend.cache.StateValueCache;
import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.queryablestate.client.state.serialization.KvStateSerializer;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.SerializedCompositeKeyBuilder;
import org.apache.flink.runtime.state.internal.InternalKvState;
import org.apache.flink.runtime.state.ttl.TtlAwareSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.FlinkRuntimeException;
import org.apache.flink.util.ResourceGuard;
import org.apache.flink.util.StateMigrationException;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * Base of every StreamFusion state kind: builds the canonical composite key of the current key and
 * namespace with the backend's shared key builder, and talks to one native column family.
 *
 * @param <K> key type
 * @param <N> namespace type
 * @param <V> stored value type
 */
public abstract class AbstractStreamFusionState<K, N, V> implements InternalKvState<K, N, V> {

    protected final KeyedStateContext<K> context;
    protected final NativeColumnFamily columnFamily;
    protected final DataOutputSerializer valueOut = new DataOutputSerializer(128);
    protected final DataInputDeserializer valueIn = new DataInputDeserializer();
    // Held, not written at each read, so that a read allocates no lambda.
    private final StoredValueDecoding.Decoder<V> valueDecoder = this::deserializeValue;
    private final StateValueCache.StoredBytesDecoder<V> storedFormatDecoder = this::decodeValue;

    private final SerializedCompositeKeyBuilder<K> keyBuilder;

    /** For kinds that store one value per key and namespace and opted in; otherwise null. */
    @Nullable private final StateValueCache<V> cache;

    private TypeSerializer<N> namespaceSerializer;
    protected TypeSerializer<V> valueSerializer;
    private V defaultValue;
    private N currentNamespace;

    protected AbstractStreamFusionState(
            KeyedStateContext<K> context,
            NativeColumnFamily columnFamily,
            RegisteredKeyValueStateBackendMetaInfo<N, V> metaInfo,
            V defaultValue) {
        this(context, columnFamily, metaInfo, defaultValue, false);
    }

    /**
     * @param cacheable whether this state keeps one value per key and namespace, read and written
     *     with {@link #readValue}, {@link #writeValue}, {@link #appendValue} and {@link #clear}, so
     *     that the slot's decoded-value cache can serve it (if enabled and not excluded for the
     *     state)
     */
    protected AbstractStreamFusionState(
            KeyedStateContext<K> context,
            NativeColumnFamily columnFamily,
            RegisteredKeyValueStateBackendMetaInfo<N, V> metaInfo,
            V defaultValue,
            boolean cacheable) {
        this.context = context;
        this.columnFamily = columnFamily;
        this.keyBuilder = context.sharedKeyBuilder();
        this.cache =
                cacheable
                        ? context.valueCacheFor(
                                metaInfo.getName(),
                                metaInfo.getStateSerializer(),
                                storedFormatDecoder)
                        : null;
        updateRegistration(metaInfo, defaultValue);
    }

    /** Adopts the serializers of a re-registration of the same state. */
    public final void updateRegistration(
            RegisteredKeyValueStateBackendMetaInfo<N, V> metaInfo, V defaultValue) {
        this.namespaceSerializer = metaInfo.getNamespaceSerializer();
        this.valueSerializer = metaInfo.getStateSerializer();
        this.defaultValue = defaultValue;
        if (cache != null) {
            // A new id: values decoded with the previous serializer are never returned.
            cache.useSerializer(valueSerializer);
        }
        onValueSerializerChanged(valueSerializer);
    }

    /**
     * This state's view of the decoded-value cache, for batch access that must keep it consistent;
     * may be null.
     */
    @Nullable
    public final StateValueCache<V> cache() {
        return cache;
    }

    /**
     * The stored value under {@code key}, or null. A cached value costs no JNI and no
     * deserialization; callers get a private copy of a mutable value.
     */
    @Nullable
    protected final V readValue(byte[] key) throws IOException {
        return readThrough(cache, key, valueDecoder);
    }

    /**
     * The value stored under {@code key}, or null, from {@code cache} if it holds the key, else
     * from RocksDB, decoded with {@code decoder} and offered to {@code cache}. The one read path of
     * every cached kind: {@link #readValue}, and a map's entries.
     */
    @Nullable
    protected final <T> T readThrough(
            @Nullable StateValueCache<T> cache, byte[] key, StoredValueDecoding.Decoder<T> decoder)
            throws IOException {
        if (cache != null) {
            Object cached = cache.lookup(key);
            if (cached != StateValueCache.NOT_CACHED) {
                return cache.castValue(cached);
            }
        }
        byte[] bytes = columnFamily.get(key);
        if (bytes == null) {
            return null;
        }
        T value = decodeStored(key, bytes, decoder);
        if (cache != null) {
            cache.admitRead(key, value, bytes);
        }
        return value;
    }

    /** Writes {@code value} to RocksDB first, then keeps the cache current (write-through). */
    protected final void writeValue(byte[] key, V value) {
        writeThrough(cache, key, value, serializeValue(value));
    }

    /**
     * Writes {@code value}, stored as {@code bytes}, to RocksDB, then keeps {@code cache} current.
     */
    protected final <T> void writeThrough(
            @Nullable StateValueCache<T> cache, byte[] key, T value, byte[] bytes) {
        columnFamily.put(key, bytes);
        if (cache != null) {
            cache.afterWrite(key, value, bytes);
        }
    }

    /**
     * Merges {@code operand} into the value under {@code key} with the list-append merge operator,
     * which puts {@code delimiter} between operands, and keeps a cached value current.
     */
    protected final void appendValue(byte[] key, byte delimiter, byte[] operand) {
        columnFamily.merge(key, operand);
        if (cache != null) {
            cache.afterAppend(key, delimiter, operand);
        }
    }

    /** Deletes the value under {@code key} from RocksDB and the cache. */
    protected final void deleteValue(byte[] key) {
        deleteThrough(cache, key);
    }

    /** Deletes the value under {@code key} from RocksDB, then marks it absent in {@code cache}. */
    protected final <T> void deleteThrough(@Nullable StateValueCache<T> cache, byte[] key) {
        columnFamily.delete(key);
        if (cache != null) {
            cache.afterDelete(key);
        }
    }

    /**
     * Lets a state kind derive its element serializers from a (new) value serializer. Also called
     * from the base constructor, so implementations may only assign fields that have no
     * initializer.
     */
    protected void onValueSerializerChanged(TypeSerializer<V> newValueSerializer) {}

    @Override
    public TypeSerializer<K> getKeySerializer() {
        return context.keySerializer();
    }

    @Override
    public TypeSerializer<N> getNamespaceSerializer() {
        return namespaceSerializer;
    }

    @Override
    public TypeSerializer<V> getValueSerializer() {
        return valueSerializer;
    }

    @Override
    public void setCurrentNamespace(N namespace) {
        this.currentNamespace = namespace;
    }

    @Override
    public void clear() {
        deleteValue(currentKeyBytes());
    }

    /** The canonical key {@code [key group][key][namespace]} of the current key and namespace. */
    protected final byte[] currentKeyBytes() {
        return keyBuilder.buildCompositeKeyNamespace(currentNamespace, namespaceSerializer);
    }

    /** The canonical key {@code [key group][key][namespace][user key]} of a map entry. */
    protected final <UK> byte[] currentKeyBytes(UK userKey, TypeSerializer<UK> userKeySerializer) {
        try {
            return keyBuilder.buildCompositeKeyNamesSpaceUserKey(
                    currentNamespace, namespaceSerializer, userKey, userKeySerializer);
        } catch (IOException e) {
            throw new FlinkRuntimeException(
                    "Error while serializing a user key of state " + columnFamily.stateName(), e);
        }
    }

    /** Serializes any value with the state's reusable buffer. */
    protected final <T> byte[] serialize(T value, TypeSerializer<T> serializer) {
        try {
            valueOut.clear();
            serializer.serialize(value, valueOut);
            return valueOut.getCopyOfBuffer();
        } catch (IOException e) {
            throw new FlinkRuntimeException(
                    "Error while serializing a value of state " + columnFamily.stateName(), e);
        }
    }

    /** The stored bytes of a value; a state kind with its own stored format overrides it. */
    protected byte[] serializeValue(V value) {
        return serialize(value, valueSerializer);
    }

    /** Decodes the bytes stored under {@code key}; see {@link StoredValueDecoding}. */
    protected final <T> T decodeStored(
            byte[] key, byte[] stored, StoredValueDecoding.Decoder<T> decoder) {
        return StoredValueDecoding.decode(
                columnFamily.stateName(), key, context.keyGroupPrefixBytes(), stored, decoder);
    }

    protected final V deserializeValue(byte[] bytes) throws IOException {
        valueIn.setBuffer(bytes);
        return decodeValue(valueIn);
    }

    /**
     * Decodes a value from its stored bytes, read from RocksDB or the cache; a state kind with its
     * own stored format overrides it, together with {@link #serializeValue}.
     */
    protected V decodeValue(DataInputDeserializer stored) throws IOException {
        return valueSerializer.deserialize(stored);
    }

    protected final V defaultValue() {
        return defaultValue == null ? null : valueSerializer.copy(defaultValue);
    }

    @Override
    public byte[] getSerializedValue(
            byte[] serializedKeyAndNamespace,
            TypeSerializer<K> safeKeySerializer,
            TypeSerializer<N> safeNamespaceSerializer,
            TypeSerializer<V> safeValueSerializer)
            throws Exception {
        byte[] key =
                queriedKey(serializedKeyAndNamespace, safeKeySerializer, safeNamespaceSerializer);
        // Queries run on their own threads: the lease keeps dispose() from freeing the store
        // meanwhile.
        try (ResourceGuard.Lease ignored = context.storeLease()) {
            return columnFamily.get(key);
        }
    }

    /**
     * The canonical key {@code [key group][key][namespace]} of a queryable-state request, built
     * with the query's own serializers and a fresh key builder: queries run on other threads.
     */
    protected final byte[] queriedKey(
            byte[] serializedKeyAndNamespace,
            TypeSerializer<K> safeKeySerializer,
            TypeSerializer<N> safeNamespaceSerializer)
            throws IOException {
        Tuple2<K, N> keyAndNamespace =
                KvStateSerializer.deserializeKeyAndNamespace(
                        serializedKeyAndNamespace, safeKeySerializer, safeNamespaceSerializer);
        int keyGroup =
                KeyGroupRangeAssignment.assignToKeyGroup(
                        keyAndNamespace.f0, context.numberOfKeyGroups());
        SerializedCompositeKeyBuilder<K> builder =
                new SerializedCompositeKeyBuilder<>(
                        safeKeySerializer, context.keyGroupPrefixBytes(), 32);
        builder.setKeyAndKeyGroup(keyAndNamespace.f0, keyGroup);
        return builder.buildCompositeKeyNamespace(keyAndNamespace.f1, safeNamespaceSerializer);
    }

    /**
     * Rewrites one stored value from the prior serializer's format to the new one's, for serializer
     * migration on restore. Both serializers are {@link TtlAwareSerializer}s, so TTL being switched
     * on or off is migrated too. List and map states override this to migrate element by element.
     */
    public void migrateSerializedValue(
            DataInputDeserializer oldValue,
            DataOutputSerializer newValue,
            TypeSerializer<V> priorSerializer,
            TypeSerializer<V> newSerializer,
            TtlTimeProvider ttlTimeProvider)
            throws StateMigrationException {
        TtlAwareSerializer<V, ?> prior = (TtlAwareSerializer<V, ?>) priorSerializer;
        TtlAwareSerializer<V, ?> next = (TtlAwareSerializer<V, ?>) newSerializer;
        try {
            next.migrateValueFromPriorSerializer(
                    prior, () -> prior.deserialize(oldValue), newValue, ttlTimeProvider);
        } catch (Exception e) {
            throw new StateMigrationException(
                    "Error while migrating a value of state " + columnFamily.stateName(), e);
        }
    }

    @Override
    public StateIncrementalVisitor<K, N, V> getStateIncrementalVisitor(
            int recommendedMaxNumberOfReturnedRecords) {
        throw new UnsupportedOperationException(
                "The global state entry visitor is a heap-backend feature; StreamFusion, like"
                        + " Flink's rocksdb backend, does not offer it.");
    }
}
