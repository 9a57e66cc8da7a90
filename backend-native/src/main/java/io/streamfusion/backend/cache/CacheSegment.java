package io.streamfusion.backend.cache;

import java.util.Arrays;
import java.util.function.LongPredicate;

/**
 * One lock's share of the {@link DecodedValueCache}: a hash table with open addressing and linear
 * probing, bounded in bytes, evicting with CLOCK (second chance).
 *
 * <p>Its weight is what it holds on the heap: the table's arrays plus each entry's objects ({@link
 * HeapBytes}). Weighing entries alone, at a fixed overhead each, understated the heap by half or
 * more (a million entries weighed 114 MB took 173 MB), because the table is between a third and two
 * thirds full. The table doubles only when the larger table and the entries fit the capacity;
 * otherwise a new key evicts one, and a smaller capacity shrinks a table that would take more than
 * two thirds of it.
 *
 * <p>Why this layout: a cached read of a million keys is bound by memory latency, so the table
 * keeps everything a lookup compares in one run of four longs per slot (tag, state id and the key's
 * first 16 bytes), and a hit then loads that run, the entry's reference and the entry. A linked
 * access order would add loads and stores of two neighbours on every hit; CLOCK sets one bit in the
 * run already loaded, and only when it is not set yet.
 *
 * <p>Deletion shifts the following run of the probe sequence back (no tombstones), so a miss stops
 * at the first empty slot. Every method holds the segment's monitor; the entries it returns are
 * read and written by their state's task thread without it ({@link CachedValue}).
 */
final class CacheSegment {

    private static final int STRIDE = 4;
    private static final int STATE_ID = 1;
    private static final int HEAD0 = 2;
    private static final int HEAD1 = 3;

    /** Tag bits: the hash in the upper half, the key's length, referenced, occupied. */
    private static final long OCCUPIED = 1L;

    private static final long REFERENCED = 2L;
    private static final int LENGTH_SHIFT = 8;

    /** The longest key a tag can hold; longer keys are never cached. */
    static final int MAX_KEY_BYTES = (1 << 24) - 1;

    /**
     * Slots short of a power of two in every table, so that each of its arrays (a power of two long
     * at most, with its 16-byte header) fits a power of two of bytes: G1 gives an array of half a
     * region or more whole regions of its own, and one 16 bytes past a power of two took a region
     * more. The probe sequence wraps at the slot count, which a multiply maps a hash onto.
     */
    private static final int SLOTS_SHORT = HeapBytes.ARRAY_HEADER / HeapBytes.REFERENCE;

    private static final int INITIAL_SLOTS = 64 - SLOTS_SHORT;

    private long[] slots;
    private CachedValue[] values;

    /** The whole key of a slot whose key is longer than {@link CacheKeyBytes#INLINE_BYTES}. */
    private byte[][] longKeys;

    private int slotCount;

    /** The heap the table's arrays take, {@link #tableBytes(int)} of the slot count. */
    private long tableBytes;

    private int size;

    /** The heap the entries take, without the table. */
    private long entryBytes;

    private long capacity;
    private int hand;

    /**
     * How far the CLOCK hand moves at each step: coprime with the slot count, so the hand still
     * passes every slot once a turn, and about 0.618 of it, so that one eviction lands far from the
     * last. A hand moving to the next slot evicted runs of neighbours while the rest of the table
     * filled up: with linear probing, a run of 60,000 of a full segment's 131,068 slots held
     * entries, and every miss and insert that probed into it walked it.
     */
    private int handStride;

    private long hits;
    private long misses;
    private long evictions;

    CacheSegment(long capacity) {
        this.capacity = capacity;
        allocate(INITIAL_SLOTS);
    }

    private void allocate(int slotCount) {
        slots = new long[slotCount * STRIDE];
        values = new CachedValue[slotCount];
        longKeys = new byte[slotCount][];
        this.slotCount = slotCount;
        tableBytes = tableBytes(slotCount);
        hand = 0;
        handStride = handStride(slotCount);
    }

    private static int handStride(int slotCount) {
        int stride = (int) (slotCount * 0.618) | 1;
        while (greatestCommonDivisor(stride, slotCount) != 1) {
            stride += 2;
        }
        return stride;
    }

    private static int greatestCommonDivisor(int a, int b) {
        return b == 0 ? a : greatestCommonDivisor(b, a % b);
    }

    /** The next larger table: twice the power of two, as short of it. */
    private static int larger(int slots) {
        return 2 * slots + SLOTS_SHORT;
    }

    /** The next smaller table. */
    private static int smaller(int slots) {
        return (slots - SLOTS_SHORT) / 2;
    }

    /** The slot a hash probes first: the hash's unsigned value scaled onto the slot count. */
    private int home(int hash) {
        return (int) (((hash & 0xFFFF_FFFFL) * slotCount) >>> Integer.SIZE);
    }

    private int next(int slot) {
        int next = slot + 1;
        return next == slotCount ? 0 : next;
    }

    /** How many slots a probe moves forward from {@code from} to reach {@code to}. */
    private int distance(int from, int to) {
        int distance = to - from;
        return distance < 0 ? distance + slotCount : distance;
    }

    /** The entry of a key for a read, counted as a hit or a miss and marked as used; or null. */
    synchronized CachedValue read(long stateId, byte[] key, int hash) {
        int slot = find(stateId, key, hash);
        if (slot < 0) {
            misses++;
            return null;
        }
        hits++;
        int at = slot * STRIDE;
        long tag = slots[at];
        if ((tag & REFERENCED) == 0) {
            slots[at] = tag | REFERENCED;
        }
        return values[slot];
    }

    /** The entry of a key without counting or marking it, or null. */
    synchronized CachedValue peek(long stateId, byte[] key, int hash) {
        int slot = find(stateId, key, hash);
        return slot < 0 ? null : values[slot];
    }

    /**
     * Gives a key the entry {@code value}, replacing its entry if it has one; with {@code
     * onlyIfPresent}, an absent key stays absent. Evicts until the segment is within its capacity.
     *
     * @return how many entries were evicted
     */
    synchronized int put(
            long stateId, byte[] key, int hash, CachedValue value, boolean onlyIfPresent) {
        long entryWeight = weigh(key.length, value);
        int slot = find(stateId, key, hash);
        if (entryWeight + tableBytes > capacity || key.length > MAX_KEY_BYTES) {
            if (slot >= 0) {
                removeAt(slot);
            }
            return 0;
        }
        if (slot >= 0) {
            entryBytes += entryWeight - weigh(slot);
            values[slot] = value;
            return evictOverCapacity();
        }
        if (onlyIfPresent) {
            return 0;
        }
        int evicted = 0;
        if (size + 1 > mostEntries(slotCount)) {
            if (tableBytes(larger(slotCount)) + entryBytes + entryWeight <= capacity) {
                resize(larger(slotCount), id -> true);
            } else {
                evicted = evictDownTo(mostEntries(slotCount) - 1);
            }
        }
        slot = insert(stateId, key, hash);
        values[slot] = value;
        longKeys[slot] = key.length > CacheKeyBytes.INLINE_BYTES ? key : null;
        size++;
        entryBytes += entryWeight;
        return evicted + evictOverCapacity();
    }

    /** The heap a table of {@code slots} takes: its three arrays. */
    static long tableBytes(int slots) {
        return HeapBytes.array((long) slots * STRIDE, Long.BYTES)
                + 2 * HeapBytes.array(slots, HeapBytes.REFERENCE);
    }

    synchronized void remove(long stateId, byte[] key, int hash) {
        int slot = find(stateId, key, hash);
        if (slot >= 0) {
            removeAt(slot);
        }
    }

    /** Drops the entries of every state {@code stateIds} accepts. */
    synchronized void removeStates(LongPredicate stateIds) {
        resize(slotCount, id -> !stateIds.test(id));
    }

    /**
     * Sets the capacity, evicting down to it.
     *
     * @return how many entries were evicted
     */
    synchronized int setCapacity(long bytes) {
        capacity = bytes;
        int evicted = 0;
        int slots = slotCount;
        while (slots > INITIAL_SLOTS && tableBytes(slots) > capacity / 3 * 2) {
            slots = smaller(slots);
        }
        if (slots < slotCount) {
            evicted += evictDownTo(mostEntries(slots));
            resize(slots, id -> true);
        }
        return evicted + evictOverCapacity();
    }

    /** The heap the segment takes: its table and its entries. */
    synchronized long weight() {
        return tableBytes + entryBytes;
    }

    synchronized int size() {
        return size;
    }

    /** The heap the segment's table takes. */
    synchronized long tableBytes() {
        return tableBytes;
    }

    synchronized ValueCacheStats stats() {
        return new ValueCacheStats(hits, misses, evictions);
    }

    private int find(long stateId, byte[] key, int hash) {
        long tag = tag(hash, key.length);
        long head0 = CacheKeyBytes.head(key, 0);
        long head1 = CacheKeyBytes.head(key, Long.BYTES);
        for (int slot = home(hash); ; slot = next(slot)) {
            int at = slot * STRIDE;
            long slotTag = slots[at] & ~REFERENCED;
            if (slotTag == 0) {
                return -1;
            }
            if (slotTag == tag
                    && slots[at + STATE_ID] == stateId
                    && slots[at + HEAD0] == head0
                    && slots[at + HEAD1] == head1
                    && (key.length <= CacheKeyBytes.INLINE_BYTES
                            || Arrays.equals(longKeys[slot], key))) {
                return slot;
            }
        }
    }

    private static long tag(int hash, int length) {
        return ((long) hash << 32) | ((long) length << LENGTH_SHIFT) | OCCUPIED;
    }

    /** Writes a key, not referenced yet, into the first free slot of its probe sequence. */
    private int insert(long stateId, byte[] key, int hash) {
        int slot = freeSlotFrom(hash);
        int at = slot * STRIDE;
        slots[at] = tag(hash, key.length);
        slots[at + STATE_ID] = stateId;
        slots[at + HEAD0] = CacheKeyBytes.head(key, 0);
        slots[at + HEAD1] = CacheKeyBytes.head(key, Long.BYTES);
        return slot;
    }

    private int freeSlotFrom(int hash) {
        int slot = home(hash);
        while (slots[slot * STRIDE] != 0) {
            slot = next(slot);
        }
        return slot;
    }

    /**
     * Rebuilds the table with {@code slotCount} slots, keeping the entries of the states {@code
     * keep} accepts, with their referenced bits.
     */
    private void resize(int slotCount, LongPredicate keep) {
        long[] oldSlots = slots;
        CachedValue[] oldValues = values;
        byte[][] oldLongKeys = longKeys;
        allocate(slotCount);
        size = 0;
        entryBytes = 0;
        for (int slot = 0; slot < oldValues.length; slot++) {
            int at = slot * STRIDE;
            long tag = oldSlots[at];
            if (tag == 0 || !keep.test(oldSlots[at + STATE_ID])) {
                continue;
            }
            int to = freeSlotFrom((int) (tag >>> 32));
            System.arraycopy(oldSlots, at, slots, to * STRIDE, STRIDE);
            values[to] = oldValues[slot];
            longKeys[to] = oldLongKeys[slot];
            size++;
            entryBytes += weigh(to);
        }
    }

    private int evictOverCapacity() {
        int evicted = 0;
        while (size > 0 && tableBytes + entryBytes > capacity) {
            evictOne();
            evicted++;
        }
        return evicted;
    }

    /** Evicts until at most {@code entries} are left; returns how many it evicted. */
    private int evictDownTo(int entries) {
        int evicted = 0;
        while (size > entries) {
            evictOne();
            evicted++;
        }
        return evicted;
    }

    /** The most entries a table of {@code slots} holds within two-thirds load. */
    private static int mostEntries(int slots) {
        return (int) (slots * 2L / 3);
    }

    /** Moves the CLOCK hand to the next entry not read since it last passed, and evicts that. */
    private void evictOne() {
        while (true) {
            int at = hand * STRIDE;
            long tag = slots[at];
            if (tag == 0) {
                advanceHand();
            } else if ((tag & REFERENCED) != 0) {
                slots[at] = tag & ~REFERENCED;
                advanceHand();
            } else {
                // The hand moves on: an entry shifted back into this slot may have been passed
                // already this turn, and looking at it again would evict it without its chance.
                removeAt(hand);
                advanceHand();
                evictions++;
                return;
            }
        }
    }

    private void advanceHand() {
        hand += handStride;
        if (hand >= slotCount) {
            hand -= slotCount;
        }
    }

    /** The longest run of occupied slots, which bounds how far a miss or an insert probes. */
    synchronized int longestOccupiedRun() {
        int longest = 0;
        int run = 0;
        for (int i = 0; i < 2 * slotCount && run < slotCount; i++) {
            run = slots[(i % slotCount) * STRIDE] == 0 ? 0 : run + 1;
            longest = Math.max(longest, run);
        }
        return longest;
    }

    /** Empties a slot and shifts back the entries after it that probed past it. */
    private void removeAt(int removed) {
        entryBytes -= weigh(removed);
        size--;
        int hole = removed;
        for (int later = next(hole); ; later = next(later)) {
            long tag = slots[later * STRIDE];
            if (tag == 0) {
                break;
            }
            int home = home((int) (tag >>> 32));
            if (distance(home, later) >= distance(hole, later)) {
                System.arraycopy(slots, later * STRIDE, slots, hole * STRIDE, STRIDE);
                values[hole] = values[later];
                longKeys[hole] = longKeys[later];
                hole = later;
            }
        }
        Arrays.fill(slots, hole * STRIDE, hole * STRIDE + STRIDE, 0L);
        values[hole] = null;
        longKeys[hole] = null;
    }

    private long weigh(int slot) {
        int length = (int) (slots[slot * STRIDE] >>> LENGTH_SHIFT) & MAX_KEY_BYTES;
        return weigh(length, values[slot]);
    }

    /** The heap an entry takes besides its slot: its objects, and its key's array if kept. */
    static long weigh(int keyLength, CachedValue value) {
        long keyArray = keyLength > CacheKeyBytes.INLINE_BYTES ? HeapBytes.bytes(keyLength) : 0;
        return HeapBytes.CACHED_VALUE + keyArray + value.valueHeapBytes();
    }
}
