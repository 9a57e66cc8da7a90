package io.streamfusion.backend.state;

import io.streamfusion.backend.cache.StateValueCache;
import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.queryablestate.client.state.serialization.KvStateSerializer;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.internal.InternalMapState;
import org.apache.flink.runtime.state.ttl.TtlAwareSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.FlinkRuntimeException;
import org.apache.flink.util.ResourceGuard;
import org.apache.flink.util.StateMigrationException;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Function;

/**
 * {@code MapState}: one native entry per user key, {@code [key group][key][namespace][user key]},
 * whose value is a null flag byte and the serialized user value, as in Flink's RocksDB backend.
 * Iteration reads the entries under the current prefix in batches; entries can be removed or
 * updated while iterating.
 *
 * <p>Entries are read through the slot's decoded-value cache like values ({@link
 * AbstractStreamFusionState#readThrough}), keyed by their whole stored key. {@link #clear} deletes
 * a prefix, whose cached entries the cache cannot enumerate, so once the cache may hold entries of
 * this state, it first reads the prefix's keys and marks each absent, as Flink's RocksDB backend
 * reads every key it clears.
 */
public final class StreamFusionMapState<K, N, UK, UV>
        extends AbstractStreamFusionState<K, N, Map<UK, UV>>
        implements InternalMapState<K, N, UK, UV> {

    /** Bytes of entries fetched per native call while iterating. */
    static final int ITERATION_BATCH_BYTES = 32 * 1024;

    private TypeSerializer<UK> userKeySerializer;
    private TypeSerializer<UV> userValueSerializer;
    private final StoredValueDecoding.Decoder<UV> userValueDecoder =
            bytes -> decodeUserValue(bytes, valueIn, userValueSerializer);

    /** The entries' view of the decoded-value cache, or null; set with the serializers. */
    @Nullable private StateValueCache<UV> entryCache;

    public StreamFusionMapState(
            KeyedStateContext<K> context,
            NativeColumnFamily columnFamily,
            RegisteredKeyValueStateBackendMetaInfo<N, Map<UK, UV>> metaInfo) {
        super(context, columnFamily, metaInfo, null);
    }

    @Override
    protected void onValueSerializerChanged(TypeSerializer<Map<UK, UV>> newValueSerializer) {
        MapSerializer<UK, UV> mapSerializer = (MapSerializer<UK, UV>) newValueSerializer;
        this.userKeySerializer = mapSerializer.getKeySerializer();
        this.userValueSerializer = mapSerializer.getValueSerializer();
        if (entryCache == null) {
            entryCache =
                    context.valueCacheFor(
                            columnFamily.stateName(),
                            userValueSerializer,
                            in -> in.readBoolean() ? null : userValueSerializer.deserialize(in));
        } else {
            // A new id: entries decoded with the previous serializer are never returned.
            entryCache.useSerializer(userValueSerializer);
        }
    }

    private byte[] serializeUserValue(UV value) {
        try {
            valueOut.clear();
            valueOut.writeBoolean(value == null);
            if (value != null) {
                userValueSerializer.serialize(value, valueOut);
            }
            return valueOut.getCopyOfBuffer();
        } catch (IOException e) {
            throw new FlinkRuntimeException(
                    "Error while serializing a user value of state " + columnFamily.stateName(), e);
        }
    }

    /** A stored map value: Flink's null flag, then the value. */
    private static <T> T decodeUserValue(
            byte[] bytes, DataInputDeserializer in, TypeSerializer<T> serializer)
            throws IOException {
        in.setBuffer(bytes);
        return in.readBoolean() ? null : serializer.deserialize(in);
    }

    /** The user key at the end of a stored key, after the {@code prefixLength} bytes. */
    private static <T> T decodeUserKey(
            byte[] key, int prefixLength, DataInputDeserializer in, TypeSerializer<T> serializer)
            throws IOException {
        in.setBuffer(key, prefixLength, key.length - prefixLength);
        return serializer.deserialize(in);
    }

    @Override
    public void migrateSerializedValue(
            DataInputDeserializer oldValue,
            DataOutputSerializer newValue,
            TypeSerializer<Map<UK, UV>> priorSerializer,
            TypeSerializer<Map<UK, UV>> newSerializer,
            TtlTimeProvider ttlTimeProvider)
            throws StateMigrationException {
        TtlAwareSerializer<UV, ?> prior =
                ((TtlAwareSerializer.TtlAwareMapSerializer<UK, UV>) priorSerializer)
                        .getValueSerializer();
        TtlAwareSerializer<UV, ?> next =
                ((TtlAwareSerializer.TtlAwareMapSerializer<UK, UV>) newSerializer)
                        .getValueSerializer();
        try {
            boolean isNull = oldValue.readBoolean();
            newValue.writeBoolean(isNull);
            if (isNull) {
                next.serialize(null, newValue);
            } else {
                next.migrateValueFromPriorSerializer(
                        prior, () -> prior.deserialize(oldValue), newValue, ttlTimeProvider);
            }
        } catch (Exception e) {
            throw new StateMigrationException(
                    "Error while migrating map state " + columnFamily.stateName(), e);
        }
    }

    @Override
    public UV get(UK userKey) throws IOException {
        return readThrough(
                entryCache, currentKeyBytes(userKey, userKeySerializer), userValueDecoder);
    }

    @Override
    public void put(UK userKey, UV userValue) {
        writeThrough(
                entryCache,
                currentKeyBytes(userKey, userKeySerializer),
                userValue,
                serializeUserValue(userValue));
    }

    @Override
    public void putAll(Map<UK, UV> map) {
        if (map == null) {
            return;
        }
        for (Map.Entry<UK, UV> entry : map.entrySet()) {
            put(entry.getKey(), entry.getValue());
        }
    }

    @Override
    public void remove(UK userKey) {
        deleteThrough(entryCache, currentKeyBytes(userKey, userKeySerializer));
    }

    @Override
    public boolean contains(UK userKey) {
        byte[] key = currentKeyBytes(userKey, userKeySerializer);
        StateValueCache.Presence cached =
                entryCache == null ? StateValueCache.Presence.UNKNOWN : entryCache.presence(key);
        return cached == StateValueCache.Presence.UNKNOWN
                ? columnFamily.get(key) != null
                : cached == StateValueCache.Presence.PRESENT;
    }

    @Override
    public boolean isEmpty() {
        return columnFamily.scanPrefix(currentKeyBytes(), null, 1).length == 0;
    }

    @Override
    public void clear() {
        byte[] prefix = currentKeyBytes();
        if (entryCache != null && entryCache.mayHoldEntries()) {
            PrefixEntries cleared = new PrefixEntries(columnFamily, prefix, ITERATION_BATCH_BYTES);
            while (cleared.hasNext()) {
                entryCache.afterDelete(cleared.next().key());
            }
        }
        columnFamily.deletePrefix(prefix);
    }

    @Override
    public Iterable<Map.Entry<UK, UV>> entries() {
        return this::iterator;
    }

    @Override
    public Iterable<UK> keys() {
        return () -> new MappingIterator<>(iterator(), Map.Entry::getKey);
    }

    @Override
    public Iterable<UV> values() {
        return () -> new MappingIterator<>(iterator(), Map.Entry::getValue);
    }

    @Override
    public Iterator<Map.Entry<UK, UV>> iterator() {
        return new EntryIterator(currentKeyBytes());
    }

    @Override
    public byte[] getSerializedValue(
            byte[] serializedKeyAndNamespace,
            TypeSerializer<K> safeKeySerializer,
            TypeSerializer<N> safeNamespaceSerializer,
            TypeSerializer<Map<UK, UV>> safeValueSerializer)
            throws Exception {
        byte[] prefix =
                queriedKey(serializedKeyAndNamespace, safeKeySerializer, safeNamespaceSerializer);
        MapSerializer<UK, UV> mapSerializer = (MapSerializer<UK, UV>) safeValueSerializer;
        // Queries run on their own threads: the lease keeps dispose() from freeing the store
        // meanwhile.
        try (ResourceGuard.Lease ignored = context.storeLease()) {
            List<Map.Entry<UK, UV>> entries =
                    readEntries(
                            prefix,
                            mapSerializer.getKeySerializer(),
                            mapSerializer.getValueSerializer());
            return entries.isEmpty()
                    ? null
                    : KvStateSerializer.serializeMap(
                            entries,
                            mapSerializer.getKeySerializer(),
                            mapSerializer.getValueSerializer());
        }
    }

    /** Every entry under {@code prefix}, decoded with the given (thread-safe) serializers. */
    private List<Map.Entry<UK, UV>> readEntries(
            byte[] prefix, TypeSerializer<UK> keySerializer, TypeSerializer<UV> valueSerializer)
            throws IOException {
        DataInputDeserializer in = new DataInputDeserializer();
        StoredValueDecoding.Decoder<UK> keyDecoder =
                bytes -> decodeUserKey(bytes, prefix.length, in, keySerializer);
        StoredValueDecoding.Decoder<UV> valueDecoder =
                bytes -> decodeUserValue(bytes, in, valueSerializer);
        List<Map.Entry<UK, UV>> entries = new ArrayList<>();
        PrefixEntries raw = new PrefixEntries(columnFamily, prefix, ITERATION_BATCH_BYTES);
        while (raw.hasNext()) {
            PrefixEntries.Entry entry = raw.next();
            UK userKey = decodeStored(entry.key(), entry.key(), keyDecoder);
            UV userValue = decodeStored(entry.key(), entry.value(), valueDecoder);
            entries.add(new AbstractMap.SimpleImmutableEntry<>(userKey, userValue));
        }
        return entries;
    }

    /** Entries under one prefix, fetched batch by batch; supports remove and setValue. */
    private final class EntryIterator implements Iterator<Map.Entry<UK, UV>> {
        private final byte[] prefix;
        private final PrefixEntries raw;
        private final DataInputDeserializer in = new DataInputDeserializer();
        private final StoredValueDecoding.Decoder<UK> keyDecoder;
        private final StoredValueDecoding.Decoder<UV> valueDecoder =
                bytes -> decodeUserValue(bytes, in, userValueSerializer);
        private MapEntry lastReturned;

        EntryIterator(byte[] prefix) {
            this.prefix = prefix;
            this.raw = new PrefixEntries(columnFamily, prefix, ITERATION_BATCH_BYTES);
            this.keyDecoder = bytes -> decodeUserKey(bytes, prefix.length, in, userKeySerializer);
        }

        @Override
        public boolean hasNext() {
            return raw.hasNext();
        }

        @Override
        public Map.Entry<UK, UV> next() {
            if (!hasNext()) {
                throw new NoSuchElementException(
                        "No more entries in map state " + columnFamily.stateName());
            }
            PrefixEntries.Entry entry = raw.next();
            lastReturned = new MapEntry(entry.key(), entry.value());
            return lastReturned;
        }

        @Override
        public void remove() {
            if (lastReturned == null || lastReturned.deleted) {
                throw new IllegalStateException("remove() must follow next()");
            }
            lastReturned.remove();
        }

        /** A stored entry, decoded lazily. */
        private final class MapEntry implements Map.Entry<UK, UV> {
            private final byte[] rawKey;
            private byte[] rawValue;
            private boolean deleted;
            private UK userKey;
            private boolean keyDecoded;

            MapEntry(byte[] rawKey, byte[] rawValue) {
                this.rawKey = rawKey;
                this.rawValue = rawValue;
            }

            void remove() {
                deleted = true;
                rawValue = null;
                deleteThrough(entryCache, rawKey);
            }

            @Override
            public UK getKey() {
                if (!keyDecoded) {
                    userKey = decodeStored(rawKey, rawKey, keyDecoder);
                    keyDecoded = true;
                }
                return userKey;
            }

            @Override
            public UV getValue() {
                if (deleted) {
                    return null;
                }
                return decodeStored(rawKey, rawValue, valueDecoder);
            }

            @Override
            public boolean equals(Object other) {
                if (!(other instanceof Map.Entry)) {
                    return false;
                }
                Map.Entry<?, ?> entry = (Map.Entry<?, ?>) other;
                return Objects.equals(getKey(), entry.getKey())
                        && Objects.equals(getValue(), entry.getValue());
            }

            @Override
            public int hashCode() {
                return Objects.hashCode(getKey()) ^ Objects.hashCode(getValue());
            }

            @Override
            public String toString() {
                return getKey() + "=" + getValue();
            }

            @Override
            public UV setValue(UV value) {
                if (deleted) {
                    throw new IllegalStateException(
                            "The entry has been removed from map state "
                                    + columnFamily.stateName());
                }
                UV old = getValue();
                rawValue = serializeUserValue(value);
                // A copy: the cache may keep the array it is given and overwrite it in place
                // with a later write, which this entry must not see.
                writeThrough(entryCache, rawKey, value, rawValue.clone());
                return old;
            }
        }
    }

    /** Maps an iterator's elements and forwards remove. */
    private static final class MappingIterator<F, T> implements Iterator<T> {
        private final Iterator<F> source;
        private final Function<F, T> mapping;

        MappingIterator(Iterator<F> source, Function<F, T> mapping) {
            this.source = source;
            this.mapping = mapping;
        }

        @Override
        public boolean hasNext() {
            return source.hasNext();
        }

        @Override
        public T next() {
            return mapping.apply(source.next());
        }

        @Override
        public void remove() {
            source.remove();
        }
    }
}
