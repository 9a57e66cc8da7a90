package io.streamfusion.backend.cache;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * One value state's view of the {@link DecodedValueCache}. Callers never see a cached object itself
 * unless the value type is immutable: a mutable value is cached as its serialized bytes, and every
 * read decodes a private copy, so user code cannot change a cached value behind the cache's back.
 */
public final class StateValueCache<V> {

    /**
     * Decodes a cached value of a mutable type from its stored bytes, for states whose stored
     * format is not their serializer's (a list's delimited elements, say).
     */
    @FunctionalInterface
    public interface StoredBytesDecoder<V> {
        V decode(DataInputDeserializer stored) throws IOException;
    }

    /**
     * The longest list an append keeps cached. Growing a cached list copies it, and a read of a
     * longer one decodes so many elements that a RocksDB read adds little to it.
     */
    static final int MAX_APPENDED_BYTES = 64 << 10;

    private final DecodedValueCache cache;
    private final long owner;
    private long stateId;
    private TypeSerializer<V> serializer;
    private boolean immutable;

    /**
     * Whether a value was offered since the state took its id: else the cache holds none of this
     * state's keys, and a write needs no lookup (a state only ever written costs the cache
     * nothing).
     */
    private boolean offered;

    /** Whether the last {@link #lookup} did not consult the cache: its read is not admitted. */
    private boolean lookupSkipped;

    private final DataInputDeserializer serializedIn = new DataInputDeserializer();
    private final StoredBytesDecoder<V> bytesDecoder;

    /** A view whose mutable values are stored in their serializer's format. */
    public StateValueCache(DecodedValueCache cache, long owner, TypeSerializer<V> serializer) {
        this(cache, owner, serializer, null);
    }

    /**
     * @param bytesDecoder decodes cached bytes of a mutable type; null for the serializer's format
     */
    public StateValueCache(
            DecodedValueCache cache,
            long owner,
            TypeSerializer<V> serializer,
            @Nullable StoredBytesDecoder<V> bytesDecoder) {
        this.cache = cache;
        this.owner = owner;
        this.bytesDecoder =
                bytesDecoder != null ? bytesDecoder : in -> this.serializer.deserialize(in);
        useSerializer(serializer);
    }

    /**
     * Adopts a new serializer (state re-registered or migrated): a new id, so entries decoded with
     * the old serializer are never returned.
     */
    public void useSerializer(TypeSerializer<V> newSerializer) {
        this.serializer = newSerializer;
        this.immutable = newSerializer.isImmutableType();
        this.stateId = cache.newStateId(owner);
        this.offered = false;
    }

    /** What {@link #lookup} returns for a key the cache does not know. */
    public static final Object NOT_CACHED = new Object();

    /**
     * The cached value for {@code key} (a private copy for mutable types), null if the key is
     * cached as having no value (deleted while cached), or {@link #NOT_CACHED}.
     */
    public Object lookup(byte[] key) throws IOException {
        lookupSkipped = !cache.consults();
        if (lookupSkipped) {
            return NOT_CACHED;
        }
        CachedValue entry = cache.read(stateId, key);
        if (entry == null) {
            return NOT_CACHED;
        }
        if (entry.absent) {
            return null;
        }
        if (immutable) {
            return entry.decoded;
        }
        serializedIn.setBuffer(entry.serialized, 0, entry.length);
        return bytesDecoder.decode(serializedIn);
    }

    /** What the cache knows of a key's presence, for a map's {@code contains}. */
    public enum Presence {
        PRESENT,
        ABSENT,
        UNKNOWN
    }

    /** Whether {@code key} has a value, as far as the cache knows; a hit or a miss. */
    public Presence presence(byte[] key) {
        if (!cache.consults()) {
            return Presence.UNKNOWN;
        }
        CachedValue entry = cache.read(stateId, key);
        if (entry == null) {
            return Presence.UNKNOWN;
        }
        return entry.absent ? Presence.ABSENT : Presence.PRESENT;
    }

    /**
     * Whether the cache may hold entries of this state: false until a read offers one. A state
     * whose keys the cache cannot enumerate (a map's {@code clear} deletes a prefix) only needs to
     * find its cached keys when this is true.
     */
    public boolean mayHoldEntries() {
        return offered;
    }

    /**
     * The key's entry for a write in place, or null: none is looked up before a read offered one.
     */
    private CachedValue cachedEntry(byte[] key) {
        return offered ? cache.entryToWrite(stateId, key) : null;
    }

    /** The cached value for {@code key} (a private copy for mutable types), or null. */
    public V get(byte[] key) throws IOException {
        Object cached = lookup(key);
        return cached == NOT_CACHED ? null : castValue(cached);
    }

    /** A value {@link #lookup} returned that is not {@link #NOT_CACHED}, as this state's type. */
    @SuppressWarnings("unchecked")
    public V castValue(Object value) {
        return (V) value;
    }

    /**
     * Admits a value just read from RocksDB after {@link #lookup} found no entry, decoded from
     * {@code stored}, which the cache may keep: the caller must not change that array afterwards.
     * Nothing is admitted if that lookup did not consult the cache. The caller may return {@code
     * value} itself, since the cache keeps either an immutable value or the bytes.
     */
    public void admitRead(byte[] key, V value, byte[] stored) {
        if (lookupSkipped) {
            return;
        }
        offered = true;
        cache.admit(
                stateId,
                key,
                immutable
                        ? CachedValue.decoded(value, stored.length)
                        : CachedValue.serialized(stored));
    }

    /**
     * Keeps a cached key current after {@code value}, serialized as {@code serialized}, was written
     * to RocksDB, so a read-modify-write, such as a SQL accumulator row, keeps hitting the cache.
     * An immutable value replaces the entry's; the bytes of a mutable one are copied into the
     * entry's array, and the cache may keep {@code serialized} itself when they do not fit. A key
     * that is not cached stays out: only reads admit, so a stream of writes costs at most one
     * lookup each (none before a read).
     */
    public void afterWrite(byte[] key, V value, byte[] serialized) {
        CachedValue entry = cachedEntry(key);
        if (entry == null) {
            return;
        }
        if (!immutable) {
            if (!entry.overwrite(serialized)) {
                cache.reweigh(stateId, key, CachedValue.serialized(serialized));
            }
        } else if (serialized.length <= entry.weighedBytes) {
            entry.decoded = value;
            entry.absent = false;
        } else {
            cache.reweigh(stateId, key, CachedValue.decoded(value, serialized.length));
        }
    }

    /**
     * Keeps a cached key of a mutable type current after {@code operand} was merged into its value
     * with a list-append merge operator, which puts {@code delimiter} between operands. The entry's
     * array is grown by half again when it has no room, so that a run of appends copies the list a
     * logarithmic number of times; a list that grows past {@link #MAX_APPENDED_BYTES} leaves the
     * cache.
     */
    public void afterAppend(byte[] key, byte delimiter, byte[] operand) {
        CachedValue entry = cachedEntry(key);
        if (entry == null || entry.append(delimiter, operand)) {
            return;
        }
        int length = entry.appendedLength(operand);
        if (length > MAX_APPENDED_BYTES) {
            cache.invalidate(stateId, key);
            return;
        }
        int capacity = Math.min(MAX_APPENDED_BYTES, length + (length >> 1));
        cache.reweigh(
                stateId,
                key,
                CachedValue.serialized(entry.appendedCopy(delimiter, operand, capacity), length));
    }

    /**
     * Keeps a cached key current after its value was deleted from RocksDB: its entry says the key
     * has no value, so the next read, typically before the next write, costs no native call.
     */
    public void afterDelete(byte[] key) {
        CachedValue entry = cachedEntry(key);
        if (entry != null) {
            entry.absent = true;
        }
    }

    public void invalidate(byte[] key) {
        cache.invalidate(stateId, key);
    }
}
