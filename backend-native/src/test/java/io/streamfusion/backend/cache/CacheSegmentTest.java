package io.streamfusion.backend.cache;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The open-addressing table with CLOCK eviction under one segment of the value cache. */
class CacheSegmentTest {

    private static final long STATE = 7;

    /** Table sizes: four slots short of a power of two each, from 60. */
    private static final int FIRST_TABLE = 60;

    private static final int SECOND_TABLE = 124;

    private static final int THIRD_TABLE = 252;

    /** The weight of an entry of {@code keyLength} key bytes and an 8-byte value. */
    private static long weightOf(int keyLength) {
        return CacheSegment.weigh(keyLength, value(0));
    }

    /** The weight of a segment's entries: all of it but its table. */
    private static long entryWeight(CacheSegment segment) {
        return segment.weight() - segment.tableBytes();
    }

    private static CachedValue value(long value) {
        return CachedValue.decoded(value, 8);
    }

    /** A key of {@code length} bytes (at least 8) ending in {@code id}, zeros before it. */
    private static byte[] key(int length, long id) {
        return ByteBuffer.allocate(length).putLong(length - Long.BYTES, id).array();
    }

    /**
     * A full segment keeps evicting while uniformly random keys arrive, half of them read again.
     * Its occupied slots must stay scattered: a CLOCK hand that evicted neighbours one after
     * another left one run of about 60,000 occupied slots in this table of 131,068 (two thirds
     * full), and every miss and insert that reached it probed along it.
     */
    @Test
    void evictionKeepsOccupiedRunsShortInAFullTable() {
        CacheSegment segment = new CacheSegment(17L << 20);
        SplittableRandom random = new SplittableRandom(11);
        for (int op = 0; op < 400_000; op++) {
            byte[] key = key(19, random.nextInt(5_000_000));
            int hash = (int) CacheKeyBytes.hash(STATE, key);
            if (segment.read(STATE, key, hash) == null) {
                segment.put(STATE, key, hash, value(op), false);
            }
        }
        assertTrue(
                segment.stats().evictionCount() > 100_000, "the segment must be full and evicting");
        int longest = segment.longestOccupiedRun();
        assertTrue(longest < 1_000, "longest run of occupied slots: " + longest);
    }

    /**
     * A random mix of puts, replacements, removals and reads, with many keys forced onto the same
     * few hashes so that probe runs are long and removals shift them, checked against a map.
     */
    @Test
    void agreesWithAMapUnderCollidingHashesAndRemovals() {
        CacheSegment segment = new CacheSegment(Long.MAX_VALUE);
        Map<String, CachedValue> model = new HashMap<>();
        SplittableRandom random = new SplittableRandom(3);
        for (int op = 0; op < 200_000; op++) {
            int length = random.nextBoolean() ? 9 : 40; // inline and long keys
            long id = random.nextInt(3_000);
            byte[] key = key(length, id);
            int hash = (int) (id % 37); // few distinct hashes: long, overlapping probe runs
            String name = length + ":" + id;
            switch (random.nextInt(4)) {
                case 0, 1 -> {
                    CachedValue value = value(op);
                    segment.put(STATE, key, hash, value, false);
                    model.put(name, value);
                }
                case 2 -> {
                    segment.remove(STATE, key, hash);
                    model.remove(name);
                }
                default -> assertSame(model.get(name), segment.read(STATE, key, hash), name);
            }
        }
        for (Map.Entry<String, CachedValue> entry : model.entrySet()) {
            String[] parts = entry.getKey().split(":");
            long id = Long.parseLong(parts[1]);
            byte[] key = key(Integer.parseInt(parts[0]), id);
            assertSame(entry.getValue(), segment.peek(STATE, key, (int) (id % 37)));
        }
        long expectedWeight = 0;
        for (String name : model.keySet()) {
            expectedWeight += weightOf(Integer.parseInt(name.split(":")[0]));
        }
        assertEquals(expectedWeight, entryWeight(segment));
    }

    @Test
    void keysAreToldApartByStateLengthAndTheirBytesPastTheInlineHead() {
        CacheSegment segment = new CacheSegment(Long.MAX_VALUE);
        byte[] shortKey = new byte[] {1, 2, 3};
        byte[] paddedKey = new byte[] {1, 2, 3, 0}; // the same inline bytes, one longer
        byte[] longA = key(24, 1);
        byte[] longB = key(24, 2); // the same first 16 bytes as longA
        segment.put(STATE, shortKey, 5, value(1), false);
        segment.put(STATE, paddedKey, 5, value(2), false);
        segment.put(STATE, longA, 5, value(3), false);
        segment.put(STATE, longB, 5, value(4), false);
        segment.put(STATE + 1, shortKey, 5, value(5), false);

        assertEquals(1L, segment.read(STATE, shortKey, 5).decoded);
        assertEquals(2L, segment.read(STATE, paddedKey, 5).decoded);
        assertEquals(3L, segment.read(STATE, longA, 5).decoded);
        assertEquals(4L, segment.read(STATE, longB.clone(), 5).decoded);
        assertEquals(5L, segment.read(STATE + 1, shortKey, 5).decoded);
    }

    @Test
    void onlyIfPresentLeavesAnAbsentKeyAbsent() {
        CacheSegment segment = new CacheSegment(Long.MAX_VALUE);
        segment.put(STATE, key(9, 1), 1, value(1), true);
        assertNull(segment.peek(STATE, key(9, 1), 1));
        assertEquals(0, entryWeight(segment));

        segment.put(STATE, key(9, 1), 1, value(1), false);
        CachedValue larger = CachedValue.decoded(2L, 100);
        segment.put(STATE, key(9, 1), 1, larger, true);
        assertSame(larger, segment.peek(STATE, key(9, 1), 1));
        assertEquals(CacheSegment.weigh(9, larger), entryWeight(segment));
    }

    @Test
    void aFullSegmentEvictsWhatWasNotReadSinceTheHandLastPassed() {
        int keys = 100;
        CacheSegment segment =
                new CacheSegment(CacheSegment.tableBytes(THIRD_TABLE) + keys * weightOf(9));
        for (int id = 0; id < keys; id++) {
            segment.put(STATE, key(9, id), hashOf(id), value(id), false);
        }
        for (int id = 0; id < keys; id += 2) {
            assertNotNull(segment.read(STATE, key(9, id), hashOf(id)));
        }
        int evicted = 0;
        for (int id = keys; id < keys + 40; id++) {
            evicted += segment.put(STATE, key(9, id), hashOf(id), value(id), false);
        }
        assertEquals(40, evicted);
        assertEquals(40, segment.stats().evictionCount());
        assertTrue(segment.weight() <= CacheSegment.tableBytes(THIRD_TABLE) + keys * weightOf(9));
        for (int id = 0; id < keys; id += 2) {
            assertNotNull(segment.peek(STATE, key(9, id), hashOf(id)), "read key " + id + " kept");
        }
    }

    @Test
    void anEntryLargerThanTheSegmentIsNotKeptAndReplacesNoOther() {
        CacheSegment segment = new CacheSegment(CacheSegment.tableBytes(FIRST_TABLE) + 1_000);
        segment.put(STATE, key(9, 1), 1, value(1), false);
        assertEquals(0, segment.put(STATE, key(9, 2), 2, CachedValue.decoded(0L, 2_000), false));
        assertNull(segment.peek(STATE, key(9, 2), 2));
        assertNotNull(segment.peek(STATE, key(9, 1), 1));

        segment.put(STATE, key(9, 1), 1, CachedValue.decoded(0L, 2_000), true);
        assertNull(segment.peek(STATE, key(9, 1), 1), "grown past the segment, so it left");
        assertEquals(0, entryWeight(segment));
    }

    @Test
    void removingStatesKeepsTheOthersAndTheirWeight() {
        CacheSegment segment = new CacheSegment(Long.MAX_VALUE);
        for (int id = 0; id < 1_000; id++) {
            segment.put(id % 3, key(9, id), hashOf(id), value(id), false);
        }
        segment.removeStates(state -> state == 1);
        for (int id = 0; id < 1_000; id++) {
            CachedValue found = segment.peek(id % 3, key(9, id), hashOf(id));
            if (id % 3 == 1) {
                assertNull(found);
            } else {
                assertEquals((long) id, found.decoded);
            }
        }
        assertEquals(667 * weightOf(9), entryWeight(segment));
    }

    @Test
    void theWeightIsTheTableAndTheEntries() {
        CacheSegment segment = new CacheSegment(Long.MAX_VALUE);
        assertEquals(CacheSegment.tableBytes(FIRST_TABLE), segment.weight(), "an empty table");
        for (int id = 0; id < 43; id++) {
            segment.put(STATE, key(40, id), hashOf(id), value(id), false);
        }
        assertEquals(
                CacheSegment.tableBytes(SECOND_TABLE) + 43 * CacheSegment.weigh(40, value(0)),
                segment.weight());
        assertTrue(
                CacheSegment.weigh(40, value(0)) > CacheSegment.weigh(9, value(0)),
                "a long key keeps its array");
    }

    @Test
    void theTableGrowsOnlyWhereItAndTheEntriesFit() {
        long capacity = CacheSegment.tableBytes(SECOND_TABLE) + 100 * weightOf(9);
        CacheSegment segment = new CacheSegment(capacity);
        int evicted = 0;
        for (int id = 0; id < 1_000; id++) {
            evicted += segment.put(STATE, key(9, id), hashOf(id), value(id), false);
            assertTrue(segment.weight() <= capacity, "within capacity after key " + id);
        }
        assertEquals(
                CacheSegment.tableBytes(SECOND_TABLE),
                segment.tableBytes(),
                "a larger table would not fit");
        assertEquals(1_000 - segment.size(), evicted);
        assertEquals(
                82, segment.size(), "two thirds of the table, fewer than the bytes would hold");
        int found = 0;
        for (int id = 0; id < 1_000; id++) {
            found += segment.peek(STATE, key(9, id), hashOf(id)) == null ? 0 : 1;
        }
        assertEquals(segment.size(), found, "every kept key is found");
    }

    @Test
    void aSmallerCapacityShrinksTheTableAndKeepsWhatFits() {
        CacheSegment segment = new CacheSegment(Long.MAX_VALUE);
        for (int id = 0; id < 10_000; id++) {
            segment.put(STATE, key(9, id), hashOf(id), value(id), false);
        }
        long capacity = 64 * 1024;
        segment.setCapacity(capacity);
        assertTrue(segment.weight() <= capacity);
        assertTrue(segment.tableBytes() * 3 <= capacity * 2, "the table left room for entries");
        assertTrue(segment.size() > 100, "entries kept: " + segment.size());
        int found = 0;
        for (int id = 0; id < 10_000; id++) {
            CachedValue entry = segment.peek(STATE, key(9, id), hashOf(id));
            if (entry != null) {
                assertEquals((long) id, entry.decoded);
                found++;
            }
        }
        assertEquals(segment.size(), found, "every kept entry is found after the rebuild");
    }

    @Test
    void everyTableArrayFitsAPowerOfTwoOfBytes() {
        CacheSegment segment = new CacheSegment(Long.MAX_VALUE);
        long previous = 0;
        for (int id = 0; id < 200_000; id++) {
            segment.put(STATE, key(9, id), hashOf(id), value(id), false);
            long table = segment.tableBytes();
            if (table != previous) {
                // The reference arrays fill a power of two exactly; the array of longs stays
                // within one.
                int slots =
                        (int)
                                ((table - 3 * HeapBytes.ARRAY_HEADER)
                                        / (4 * Long.BYTES + 2 * HeapBytes.REFERENCE));
                long references = HeapBytes.array(slots, HeapBytes.REFERENCE);
                long longs = table - 2 * references;
                assertEquals(1, Long.bitCount(references), "references of " + slots + " slots");
                assertEquals(Long.highestOneBit(longs) * 2, references * 8, "longs of " + slots);
                previous = table;
            }
        }
        assertTrue(previous > CacheSegment.tableBytes(THIRD_TABLE), "the table grew");
    }

    @Test
    void readsAndMissesAreCountedButPeeksAreNot() {
        CacheSegment segment = new CacheSegment(Long.MAX_VALUE);
        segment.put(STATE, key(9, 1), 1, value(1), false);
        segment.read(STATE, key(9, 1), 1);
        segment.read(STATE, key(9, 2), 2);
        segment.peek(STATE, key(9, 1), 1);
        assertEquals(new ValueCacheStats(1, 1, 0), segment.stats());
    }

    private static int hashOf(long id) {
        return (int) CacheKeyBytes.hash(STATE, key(9, id));
    }
}
