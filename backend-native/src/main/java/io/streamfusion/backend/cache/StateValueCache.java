package io.streamfusion.backend.cache;

import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * One value state's view of the {@link DecodedValueCache}. Callers never see a cached object itself
 * unless the value type is immutable: reads return a copy, and a written value of a mutable type
 * replaces a cached one as a copy, so user code cannot change a cached value behind the cache's
 * back.
 */
public final class StateValueCache<V> {

    private final DecodedValueCache cache;
    private final long owner;
    private long stateId;
    private TypeSerializer<V> serializer;
    private boolean immutable;

    public StateValueCache(DecodedValueCache cache, long owner, TypeSerializer<V> serializer) {
        this.cache = cache;
        this.owner = owner;
        useSerializer(serializer);
    }

    /**
     * Adopts a new serializer (state re-registered or migrated): a new id, so entries decoded with
     * the old serializer are never returned.
     */
    public void useSerializer(TypeSerializer<V> newSerializer) {
        this.serializer = newSerializer;
        this.immutable = newSerializer.isImmutableType();
        this.stateId = cache.newStateId();
    }

    /** The cached value for {@code key} (a private copy for mutable types), or null. */
    @SuppressWarnings("unchecked")
    public V get(byte[] key) {
        V cached = (V) cache.get(stateId, owner, key);
        return cached == null || immutable ? cached : serializer.copy(cached);
    }

    /**
     * Admits a value just read from RocksDB. The cache keeps {@code value}; the caller must return
     * {@link #copyForCaller} of it, not the object itself.
     */
    public void admitRead(byte[] key, V value, int serializedBytes) {
        cache.put(stateId, owner, key, value, serializedBytes);
    }

    /** What a read returns for a value it just admitted: the value itself only if immutable. */
    public V copyForCaller(V admitted) {
        return immutable ? admitted : serializer.copy(admitted);
    }

    /**
     * Keeps a cached key current after its value was written to RocksDB: replaced by the written
     * value if immutable, otherwise by a private copy of it (taken only when the key is cached), so
     * a read-modify-write of a mutable value, such as a SQL accumulator row, keeps hitting the
     * cache. A key that is not cached stays out: only reads admit, so a stream of writes costs one
     * lookup each.
     */
    public void afterWrite(byte[] key, V value, int serializedBytes) {
        if (immutable) {
            cache.replaceIfPresent(stateId, owner, key, value, serializedBytes);
        } else {
            cache.replaceIfPresent(
                    stateId, owner, key, () -> serializer.copy(value), serializedBytes);
        }
    }

    public void invalidate(byte[] key) {
        cache.invalidate(stateId, owner, key);
    }
}
