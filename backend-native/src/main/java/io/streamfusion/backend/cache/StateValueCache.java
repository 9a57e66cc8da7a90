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

    /** What {@link #lookup} returns for a key the cache does not know. */
    public static final Object NOT_CACHED = new Object();

    /**
     * The cached value for {@code key} (a private copy for mutable types), null if the key is
     * cached as having no value (deleted while cached), or {@link #NOT_CACHED}.
     */
    public Object lookup(byte[] key) {
        CachedValue entry = cache.read(stateId, owner, key);
        if (entry == null) {
            return NOT_CACHED;
        }
        Object value = entry.value;
        if (value == CachedValue.ABSENT) {
            return null;
        }
        return immutable ? value : serializer.copy(castValue(value));
    }

    /** The cached value for {@code key} (a private copy for mutable types), or null. */
    public V get(byte[] key) {
        Object cached = lookup(key);
        return cached == NOT_CACHED ? null : castValue(cached);
    }

    /** A value {@link #lookup} returned that is not {@link #NOT_CACHED}, as this state's type. */
    @SuppressWarnings("unchecked")
    public V castValue(Object value) {
        return (V) value;
    }

    /**
     * Admits a value just read from RocksDB. The cache keeps {@code value}; the caller must return
     * {@link #copyForCaller} of it, not the object itself.
     */
    public void admitRead(byte[] key, V value, int serializedBytes) {
        cache.admit(stateId, owner, key, value, serializedBytes);
    }

    /** What a read returns for a value it just admitted: the value itself only if immutable. */
    public V copyForCaller(V admitted) {
        return immutable ? admitted : serializer.copy(admitted);
    }

    /**
     * Keeps a cached key current after its value was written to RocksDB: its entry takes the
     * written value if immutable, otherwise a private copy of it, so a read-modify-write of a
     * mutable value, such as a SQL accumulator row, keeps hitting the cache. The entry changes in
     * place unless the value is larger than the entry was weighed at. A key that is not cached
     * stays out: only reads admit, so a stream of writes costs one lookup each.
     */
    public void afterWrite(byte[] key, V value, int serializedBytes) {
        CachedValue entry = cache.entryToWrite(stateId, owner, key);
        if (entry == null) {
            return;
        }
        V kept = immutable ? value : serializer.copy(value);
        if (serializedBytes <= entry.weighedBytes) {
            entry.value = kept;
        } else {
            cache.reweigh(stateId, owner, key, kept, serializedBytes);
        }
    }

    /**
     * Keeps a cached key current after its value was deleted from RocksDB: its entry says the key
     * has no value, so the next read, typically before the next write, costs no native call.
     */
    public void afterDelete(byte[] key) {
        CachedValue entry = cache.entryToWrite(stateId, owner, key);
        if (entry != null) {
            entry.value = CachedValue.ABSENT;
        }
    }

    public void invalidate(byte[] key) {
        cache.invalidate(stateId, owner, key);
    }
}
