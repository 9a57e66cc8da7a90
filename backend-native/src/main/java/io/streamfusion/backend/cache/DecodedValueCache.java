package io.streamfusion.backend.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.stats.CacheStats;

import javax.annotation.Nullable;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-slot cache of decoded state values, bounded in bytes. It holds clean values only: every
 * write reaches RocksDB before its value enters the cache, and eviction never writes. Entries are
 * keyed by the owning state's cache id and the canonical key bytes; a state that changes
 * serializers takes a new id, so its old entries can never be read again.
 *
 * <p>A cache given a {@link BlockCacheLender} grows past its own share into block cache that
 * RocksDB leaves idle, and shrinks back when RocksDB needs it ({@link IdleMemoryLoan}), checked
 * every {@link #CHECK_INTERVAL_KEYS} keys the slot's backends are set to ({@link #countKey}), so
 * that work on other state kinds, which needs the block cache, takes the loan back too.
 */
public final class DecodedValueCache {

    /** Rough per-entry overhead of the cache's own objects, added to the serialized sizes. */
    static final int ENTRY_OVERHEAD_BYTES = 96;

    /** Keys between two checks of the loan: about a tenth of a second of a busy task thread. */
    static final int CHECK_INTERVAL_KEYS = 1 << 15;

    private final Cache<Key, CachedValue> entries;
    private final Policy<Key, CachedValue> policy;
    private final long ownBytes;
    @Nullable private final BlockCacheLender lender;
    private volatile long capacityBytes;
    private final AtomicLong nextId = new AtomicLong();
    private volatile AdmissionDoorkeeper doorkeeper;

    /** Set by an eviction (the cache is full), cleared when a backend's entries go or it grows. */
    private volatile boolean full;

    private final AtomicLong sizeEvictions = new AtomicLong();
    private long sizeEvictionsAtCheck;

    /**
     * Keys set since the last check of the loan. Counted by every task thread without
     * synchronisation: a lost count only moves a check.
     */
    private int keysSinceCheck;

    /** A cache of a fixed size. */
    public DecodedValueCache(long capacityBytes) {
        this(capacityBytes, null);
    }

    /** A cache of {@code ownBytes}, growing into what {@code lender} (if not null) leaves idle. */
    public DecodedValueCache(long ownBytes, @Nullable BlockCacheLender lender) {
        if (ownBytes <= 0) {
            throw new IllegalArgumentException("cache capacity must be positive: " + ownBytes);
        }
        this.ownBytes = ownBytes;
        this.capacityBytes = ownBytes;
        this.lender = lender;
        this.doorkeeper = new AdmissionDoorkeeper(ownBytes);
        this.entries =
                Caffeine.newBuilder()
                        .maximumWeight(capacityBytes)
                        .weigher(
                                (Key key, CachedValue value) ->
                                        key.length + value.weighedBytes + ENTRY_OVERHEAD_BYTES)
                        .evictionListener(
                                (Key key, CachedValue value, RemovalCause cause) -> {
                                    if (cause == RemovalCause.SIZE) {
                                        full = true;
                                        sizeEvictions.incrementAndGet();
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

    /** Counts a key a backend of the slot was set to; checks the loan every so many. */
    public void countKey() {
        if (lender != null && ++keysSinceCheck >= CHECK_INTERVAL_KEYS) {
            rebalance();
        }
    }

    /**
     * Adjusts what the cache borrows of the block cache ({@link IdleMemoryLoan}). A smaller cache
     * evicts before it returns memory, and a larger one grows after it borrowed, so the slot holds
     * no more than its budget, except for the bytes an operator's reservation took back of the loan
     * since the last check.
     */
    synchronized void rebalance() {
        keysSinceCheck = 0;
        if (lender == null) {
            return;
        }
        long evictions = sizeEvictions.get();
        boolean evicting = evictions != sizeEvictionsAtCheck;
        sizeEvictionsAtCheck = evictions;
        // The loan as the block cache has it, which a reservation may have cut since it was lent.
        BlockCacheRoom room = lender.room();
        long wanted = IdleMemoryLoan.wanted(room, evicting);
        long kept = Math.min(room.lentBytes(), wanted);
        if (ownBytes + kept < capacityBytes) {
            resize(ownBytes + kept);
        }
        resize(ownBytes + (wanted == room.lentBytes() ? wanted : lender.lend(wanted)));
    }

    private void resize(long capacity) {
        if (capacity == capacityBytes) {
            return;
        }
        if (capacity > capacityBytes) {
            full = false;
        }
        capacityBytes = capacity;
        doorkeeper = new AdmissionDoorkeeper(capacity);
        policy.eviction().ifPresent(eviction -> eviction.setMaximum(capacity));
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

    /** The cache's capacity now: its own share and what it borrowed. */
    public long capacityBytes() {
        return capacityBytes;
    }

    /** Bytes borrowed of the block cache now. */
    public long borrowedBytes() {
        return capacityBytes - ownBytes;
    }

    public long weightedBytes() {
        return entries.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
    }

    public CacheStats stats() {
        return entries.stats();
    }

    /**
     * Cache key: state id, owning backend, canonical key bytes. The first 16 bytes are held in the
     * key object itself, and the array only for longer keys: a lookup in a cache of a million keys
     * is bound by memory latency, and comparing a short key then costs no load of another object.
     */
    private static final class Key {
        private static final int INLINE_BYTES = 2 * Long.BYTES;

        final long stateId;
        final long owner;
        final long head0;
        final long head1;
        final int length;

        /** The whole key if longer than {@link #INLINE_BYTES}, else null. */
        @Nullable final byte[] longKey;

        final int hash;

        Key(long stateId, long owner, byte[] bytes) {
            this.stateId = stateId;
            this.owner = owner;
            this.length = bytes.length;
            this.head0 = packed(bytes, 0);
            this.head1 = packed(bytes, Long.BYTES);
            this.longKey = bytes.length > INLINE_BYTES ? bytes : null;
            this.hash = 31 * Long.hashCode(stateId) + Arrays.hashCode(bytes);
        }

        /** Up to eight bytes of {@code bytes} from {@code from}, zero past its end. */
        private static long packed(byte[] bytes, int from) {
            long packed = 0;
            int end = Math.min(bytes.length, from + Long.BYTES);
            for (int i = from; i < end; i++) {
                packed = (packed << 8) | (bytes[i] & 0xFF);
            }
            return packed;
        }

        @Override
        public boolean equals(Object other) {
            if (!(other instanceof Key)) {
                return false;
            }
            Key that = (Key) other;
            return hash == that.hash
                    && stateId == that.stateId
                    && owner == that.owner
                    && length == that.length
                    && head0 == that.head0
                    && head1 == that.head1
                    && (longKey == null || Arrays.equals(longKey, that.longKey));
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
