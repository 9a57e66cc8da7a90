package io.streamfusion.backend.cache;

import javax.annotation.Nullable;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-slot cache of decoded state values, bounded in bytes. It holds clean values only: every
 * write reaches RocksDB before its value enters the cache, and eviction never writes. Entries are
 * keyed by the owning state's cache id and the canonical key bytes; a state that changes
 * serializers takes a new id, so its old entries can never be read again.
 *
 * <p>The task threads of a slot share the cache, so it is split into {@link CacheSegment}s, each
 * behind its own lock and holding an equal share of the capacity, chosen by the key's hash.
 *
 * <p>A cache given a {@link BlockCacheLender} grows past its own share into block cache that
 * RocksDB leaves idle, and shrinks back when RocksDB needs it ({@link IdleMemoryLoan}), checked
 * every {@link #CHECK_INTERVAL_KEYS} keys the slot's backends are set to ({@link #countKey}), so
 * that work on other state kinds, which needs the block cache, takes the loan back too. The same
 * checks let a cache that few reads hit give part of its own share to the block cache instead
 * ({@link ShareReturn}), and have only one read in eight consult it ({@link ReadSampling}); it
 * borrows only while it gives nothing.
 */
public final class DecodedValueCache {

    /** Keys between two checks of the loan: about a tenth of a second of a busy task thread. */
    static final int CHECK_INTERVAL_KEYS = 1 << 15;

    /** The most segments a cache is split into: enough for the task threads of a slot. */
    static final int MAX_SEGMENTS = 16;

    /** The least capacity of a segment, so that a cached list of 64 KiB fits many times over. */
    static final long MIN_SEGMENT_BYTES = 4 << 20;

    private final CacheSegment[] segments;

    /** The owning keyed backend of each state id, to drop a backend's entries when it goes. */
    private final Map<Long, Long> stateOwners = new ConcurrentHashMap<>();

    private final long ownBytes;
    @Nullable private final BlockCacheLender lender;
    private volatile long capacityBytes;
    private final AtomicLong nextId = new AtomicLong();
    private volatile AdmissionDoorkeeper doorkeeper;

    /** Set by an eviction (the cache is full), cleared when a backend's entries go or it grows. */
    private volatile boolean full;

    private final AtomicLong sizeEvictions = new AtomicLong();
    private long sizeEvictionsAtCheck;

    /** Whether reads consult the cache one in {@link ReadSampling#SAMPLED_READ_INTERVAL} times. */
    private volatile boolean sampling;

    /** Reads while sampling, counted without synchronisation: a lost count only moves a sample. */
    private int sampledReads;

    /** The reads counted at the last check, for the hit rate between checks. */
    private ValueCacheStats statsAtCheck = new ValueCacheStats(0, 0, 0);

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
        int segmentCount =
                Integer.highestOneBit(
                        (int) Math.max(1, Math.min(MAX_SEGMENTS, ownBytes / MIN_SEGMENT_BYTES)));
        this.segments = new CacheSegment[segmentCount];
        for (int i = 0; i < segmentCount; i++) {
            segments[i] = new CacheSegment(ownBytes / segmentCount);
        }
    }

    /**
     * A fresh id for a state of the keyed backend {@code owner} (or a state re-registered with
     * other serializers). Ids are unique within the cache, so they alone tell states apart.
     */
    public long newStateId(long owner) {
        long id = nextId.incrementAndGet();
        stateOwners.put(id, owner);
        return id;
    }

    /**
     * Whether a read consults the cache: every read, except while few reads hit it ({@link
     * ReadSampling}), when one in {@link ReadSampling#SAMPLED_READ_INTERVAL} does. A read that does
     * not consult it reads RocksDB, which the cache never runs ahead of, and admits nothing. Writes
     * always keep cached keys current.
     */
    boolean consults() {
        return !sampling || ++sampledReads % ReadSampling.SAMPLED_READ_INTERVAL == 0;
    }

    /** The entry of a cached key for a read (counted, marked as used), or null. */
    CachedValue read(long stateId, byte[] key) {
        long hash = CacheKeyBytes.hash(stateId, key);
        return segment(hash).read(stateId, key, (int) hash);
    }

    /** The segment of a hash: by its upper half, as a segment's table uses the lower one. */
    private CacheSegment segment(long hash) {
        return segments[(int) (hash >>> Integer.SIZE) & (segments.length - 1)];
    }

    /** Counts a key a backend of the slot was set to; checks the loan every so many. */
    public void countKey() {
        if (lender != null && ++keysSinceCheck >= CHECK_INTERVAL_KEYS) {
            rebalance();
        }
    }

    /**
     * Adjusts what the cache borrows of the block cache ({@link IdleMemoryLoan}) or, while it
     * borrows nothing, what it gives the block cache of its own share ({@link ShareReturn}); then
     * whether its reads are sampled ({@link ReadSampling}). A smaller cache evicts before it
     * returns or gives memory, and a larger one grows after it borrowed or took back, so the slot
     * holds no more than its budget, except for the bytes an operator's reservation took back of
     * the loan since the last check.
     */
    synchronized void rebalance() {
        keysSinceCheck = 0;
        if (lender == null) {
            return;
        }
        long evictions = sizeEvictions.get();
        boolean evicting = evictions != sizeEvictionsAtCheck;
        sizeEvictionsAtCheck = evictions;
        ValueCacheStats stats = stats();
        ValueCacheStats sinceCheck = stats.minus(statsAtCheck);
        statsAtCheck = stats;
        long held = capacityBytes;
        resizeForTheBlockCache(sinceCheck, evicting);
        // A cache that grew gets every read until the next check: its hits were measured smaller.
        sampling =
                capacityBytes <= held
                        && ReadSampling.samples(
                                sampling,
                                Math.max(ownBytes, held),
                                held,
                                sinceCheck.hitCount(),
                                sinceCheck.missCount(),
                                evicting);
    }

    private void resizeForTheBlockCache(ValueCacheStats sinceCheck, boolean evicting) {
        // The loan as the block cache has it, which a reservation may have cut since it was lent.
        BlockCacheRoom room = lender.room();
        long wanted = IdleMemoryLoan.wanted(room, evicting);
        // It borrows only while it gives nothing, and gives only while it borrows nothing.
        if (givenBytes() > 0 || wanted == 0 && room.lentBytes() == 0) {
            long give =
                    ShareReturn.wanted(
                            ownBytes,
                            givenBytes(),
                            sinceCheck.hitCount(),
                            sinceCheck.missCount(),
                            evicting,
                            room);
            giveToBlockCache(give);
            return;
        }
        long kept = Math.min(room.lentBytes(), wanted);
        if (ownBytes + kept < capacityBytes) {
            resize(ownBytes + kept);
        }
        resize(ownBytes + (wanted == room.lentBytes() ? wanted : lender.lend(wanted)));
    }

    /** Gives the block cache {@code bytes} of the cache's own share in place of what it gave. */
    private void giveToBlockCache(long bytes) {
        long given = givenBytes();
        if (bytes > given) {
            resize(ownBytes - bytes);
            lender.accept(bytes);
        } else if (bytes < given) {
            lender.accept(bytes);
            resize(ownBytes - bytes);
        }
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
        for (CacheSegment segment : segments) {
            countEvictions(segment.setCapacity(capacity / segments.length));
        }
    }

    private void countEvictions(int evicted) {
        if (evicted > 0) {
            full = true;
            sizeEvictions.addAndGet(evicted);
        }
    }

    /**
     * The entry of a cached key for a write to change in place, or null. Neither counted as a hit
     * nor a miss, nor a use of the entry: only reads say what the cache is worth.
     */
    CachedValue entryToWrite(long stateId, byte[] key) {
        long hash = CacheKeyBytes.hash(stateId, key);
        return segment(hash).peek(stateId, key, (int) hash);
    }

    /**
     * Admits a value read after a miss. Once the cache is full, a key enters only when it misses a
     * second time within the {@link AdmissionDoorkeeper}'s window, except while reads are sampled:
     * then the few entries kept turn over with the reads, so that their hits measure what the reads
     * of now would hit.
     */
    void admit(long stateId, byte[] key, CachedValue value) {
        long hash = CacheKeyBytes.hash(stateId, key);
        if (full && !sampling && !doorkeeper.admit((int) hash)) {
            return;
        }
        countEvictions(segment(hash).put(stateId, key, (int) hash, value, false));
    }

    /**
     * Gives a cached key a value larger than its entry was weighed at: a new entry, weighed anew.
     * An absent key stays absent (writes never admit).
     */
    void reweigh(long stateId, byte[] key, CachedValue value) {
        long hash = CacheKeyBytes.hash(stateId, key);
        countEvictions(segment(hash).put(stateId, key, (int) hash, value, true));
    }

    void invalidate(long stateId, byte[] key) {
        long hash = CacheKeyBytes.hash(stateId, key);
        segment(hash).remove(stateId, key, (int) hash);
    }

    /** Drops every entry of one keyed backend, when it is disposed. */
    public void invalidateOwner(long owner) {
        long[] states =
                stateOwners.entrySet().stream()
                        .filter(state -> state.getValue() == owner)
                        .mapToLong(Map.Entry::getKey)
                        .sorted()
                        .toArray();
        for (CacheSegment segment : segments) {
            segment.removeStates(state -> Arrays.binarySearch(states, state) >= 0);
        }
        for (long state : states) {
            stateOwners.remove(state);
        }
        full = false;
    }

    /** The cache's capacity now: its own share and what it borrowed. */
    public long capacityBytes() {
        return capacityBytes;
    }

    /** Bytes borrowed of the block cache now. */
    public long borrowedBytes() {
        return Math.max(0, capacityBytes - ownBytes);
    }

    /** Bytes of the cache's own share given to the block cache now. */
    public long givenBytes() {
        return Math.max(0, ownBytes - capacityBytes);
    }

    /** How many keys the cache holds. */
    public int entries() {
        int entries = 0;
        for (CacheSegment segment : segments) {
            entries += segment.size();
        }
        return entries;
    }

    /** The heap the cache takes: its tables and its entries. */
    public long weightedBytes() {
        long weighted = 0;
        for (CacheSegment segment : segments) {
            weighted += segment.weight();
        }
        return weighted;
    }

    /** Hits, misses and evictions so far, summed over the segments. */
    public ValueCacheStats stats() {
        ValueCacheStats stats = new ValueCacheStats(0, 0, 0);
        for (CacheSegment segment : segments) {
            stats = stats.plus(segment.stats());
        }
        return stats;
    }
}
