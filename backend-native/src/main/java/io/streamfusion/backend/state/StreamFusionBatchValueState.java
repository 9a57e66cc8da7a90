package io.streamfusion.backend.state;

import io.streamfusion.api.BatchValueState;
import io.streamfusion.backend.cache.StateValueCache;
import io.streamfusion.backend.nativelib.EntryBatchWriter;
import io.streamfusion.backend.nativelib.KeyListWriter;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeStore;
import io.streamfusion.backend.nativelib.ValueListReader;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.SerializedCompositeKeyBuilder;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link BatchValueState} over a value state's native column family: keys are turned into canonical
 * keys with their own key groups, then read with one native multi-get or written with one native
 * write batch. Uses its own key builder, so the backend's current key is untouched.
 */
public final class StreamFusionBatchValueState<K, V> implements BatchValueState<K, V> {

    private final NativeStore store;
    private final NativeColumnFamily columnFamily;

    /** The per-record state's cache view: batch writes must not leave stale values in it. */
    @Nullable private final StateValueCache<V> cache;

    private final TypeSerializer<V> valueSerializer;
    private final SerializedCompositeKeyBuilder<K> keyBuilder;
    private final int numberOfKeyGroups;
    private final KeyGroupRange keyGroupRange;
    private final DataOutputSerializer valueOut = new DataOutputSerializer(64);
    private final DataInputDeserializer valueIn = new DataInputDeserializer();

    public StreamFusionBatchValueState(
            NativeStore store,
            NativeColumnFamily columnFamily,
            @Nullable StateValueCache<V> cache,
            TypeSerializer<K> keySerializer,
            TypeSerializer<V> valueSerializer,
            int keyGroupPrefixBytes,
            int numberOfKeyGroups,
            KeyGroupRange keyGroupRange) {
        this.store = store;
        this.columnFamily = columnFamily;
        this.cache = cache;
        this.valueSerializer = valueSerializer;
        this.keyBuilder =
                new SerializedCompositeKeyBuilder<>(
                        keySerializer.duplicate(), keyGroupPrefixBytes, 32);
        this.numberOfKeyGroups = numberOfKeyGroups;
        this.keyGroupRange = keyGroupRange;
    }

    private byte[] canonicalKey(K key) {
        int keyGroup = KeyGroupRangeAssignment.assignToKeyGroup(key, numberOfKeyGroups);
        if (!keyGroupRange.contains(keyGroup)) {
            // Storing it would put a foreign key group into every later snapshot of this backend.
            throw new IllegalArgumentException(
                    "Key "
                            + key
                            + " belongs to key group "
                            + keyGroup
                            + ", outside this backend's "
                            + keyGroupRange);
        }
        keyBuilder.setKeyAndKeyGroup(key, keyGroup);
        return keyBuilder.buildCompositeKeyNamespace(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE);
    }

    private byte[] keyList(List<K> keys) {
        KeyListWriter writer = new KeyListWriter(keys.size() * 16);
        for (K key : keys) {
            writer.add(canonicalKey(key));
        }
        return writer.toByteArray();
    }

    @Override
    public List<V> getAll(List<K> keys) throws IOException {
        List<V> values = new ArrayList<>(keys.size());
        if (keys.isEmpty()) {
            return values;
        }
        ValueListReader reader = new ValueListReader(columnFamily.multiGet(keyList(keys)));
        while (reader.hasNext()) {
            byte[] bytes = reader.next();
            if (bytes == null) {
                values.add(null);
            } else {
                valueIn.setBuffer(bytes);
                values.add(valueSerializer.deserialize(valueIn));
            }
        }
        return values;
    }

    @Override
    public void putAll(List<K> keys, List<V> values) throws IOException {
        if (keys.size() != values.size()) {
            throw new IllegalArgumentException(
                    "putAll needs one value per key, got "
                            + keys.size()
                            + " keys and "
                            + values.size()
                            + " values");
        }
        if (keys.isEmpty()) {
            return;
        }
        EntryBatchWriter batch = new EntryBatchWriter(keys.size() * 32);
        List<byte[]> written = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            V value = values.get(i);
            if (value == null) {
                throw new IllegalArgumentException(
                        "putAll does not take null values (key "
                                + keys.get(i)
                                + "); use removeAll");
            }
            valueOut.clear();
            valueSerializer.serialize(value, valueOut);
            byte[] key = canonicalKey(keys.get(i));
            written.add(key);
            batch.add(0, key, valueOut.getCopyOfBuffer());
        }
        store.applyBatch(List.of(columnFamily), batch.toByteArray());
        invalidate(written);
    }

    private void invalidate(List<byte[]> keys) {
        if (cache != null) {
            keys.forEach(cache::invalidate);
        }
    }

    @Override
    public void removeAll(List<K> keys) {
        if (keys.isEmpty()) {
            return;
        }
        KeyListWriter writer = new KeyListWriter(keys.size() * 16);
        List<byte[]> removed = new ArrayList<>(keys.size());
        for (K key : keys) {
            byte[] canonical = canonicalKey(key);
            removed.add(canonical);
            writer.add(canonical);
        }
        columnFamily.deleteAll(writer.toByteArray());
        invalidate(removed);
    }
}
