package io.streamfusion.backend.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.stats.CacheStats;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-slot cache of decoded state values, bounded in bytes. It holds clean values only: every
 * write reaches RocksDB before its value enters the cache, and eviction never writes. Entries are
 * keyed by the owning state's cache id and the canonical key bytes; a state that changes
 * serializers takes a new id, so its old entries can never be read again.
 */
public final class DecodedValueCache {

    /** Rough per-entry overhead of the cache's own objects, added to the serialized sizes. */
    static final int ENTRY_OVERHEAD_BYTES = 96;

    private final Cache<Key, CachedValue> entries;
    private final Policy<Key, CachedValue> policy;
    private final long capacityBytes;
    private final AtomicLong nextId = new AtomicLong();
    private final AdmissionDoorkeeper doorkeeper;

    /** Set by the first eviction (the cache is full), cleared when a backend's entries go. */
    private volatile boolean full;

    public DecodedValueCache(long capacityBytes) {
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("cache capacity must be positive: " + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
        this.doorkeeper = new AdmissionDoorkeeper(capacityBytes);
        this.entries =
                Caffeine.newBuilder()
                        .maximumWeight(capacityBytes)
                        .weigher(
                                (Key key, CachedValue value) ->
                                        key.bytes.length
                                                + value.weighedBytes
                                                + ENTRY_OVERHEAD_BYTES)
                        .evictionListener(
                                (Key key, CachedValue value, RemovalCause cause) -> {
                                    if (cause == RemovalCause.SIZE) {
                                        full = true;
                                    }
                                })
                        // Maintenance on the calling thread: no background threads, deterministic
                        // tests.
                        .executor(Runnable::run)
                        .recordStats()
                        .build();
        this.policy = entries.policy();
    }

    /** A fresh id for a state (or a state re-registered with other serializers). */
    public long newStateId() {
        return nextId.incrementAndGet();
    }

    /** The entry of a cached key for a read (counted, refreshes its recency), or null. */
    CachedValue read(long stateId, long owner, byte[] key) {
        return entries.getIfPresent(new Key(stateId, owner, key));
    }

    /**
     * The entry of a cached key for a write to change in place, or null. Neither counted as a hit
     * nor a miss, nor a use of the entry: only reads say what the cache is worth.
     */
    CachedValue entryToWrite(long stateId, long owner, byte[] key) {
        return policy.getIfPresentQuietly(new Key(stateId, owner, key));
    }

    /**
     * Admits a value read after a miss. Once the cache is full, a key enters only when it misses a
     * second time within the {@link AdmissionDoorkeeper}'s window.
     */
    void admit(long stateId, long owner, byte[] key, CachedValue value) {
        Key entry = new Key(stateId, owner, key);
        if (full && !doorkeeper.admit(entry.hash)) {
            return;
        }
        entries.put(entry, value);
    }

    /**
     * Gives a cached key a value larger than its entry was weighed at: a new entry, weighed anew.
     * An absent key stays absent (writes never admit).
     */
    void reweigh(long stateId, long owner, byte[] key, CachedValue value) {
        entries.asMap().replace(new Key(stateId, owner, key), value);
    }

    void invalidate(long stateId, long owner, byte[] key) {
        entries.invalidate(new Key(stateId, owner, key));
    }

    /** Drops every entry of one keyed backend, when it is disposed. */
    public void invalidateOwner(long owner) {
        entries.asMap().keySet().removeIf(key -> key.owner == owner);
        full = false;
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    public long weightedBytes() {
        return entries.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
    }

    public CacheStats stats() {
        return entries.stats();
    }

    /** Cache key: state id, owning backend, canonical key bytes. */
    private static final class Key {
        final long stateId;
        final long owner;
        final byte[] bytes;
        final int hash;

        Key(long stateId, long owner, byte[] bytes) {
            this.stateId = stateId;
            this.owner = owner;
            this.bytes = bytes;
            this.hash = 31 * Long.hashCode(stateId) + Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object other) {
            if (!(other instanceof Key)) {
                return false;
            }
            Key that = (Key) other;
            return stateId == that.stateId
                    && owner == that.owner
                    && Arrays.equals(bytes, that.bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
