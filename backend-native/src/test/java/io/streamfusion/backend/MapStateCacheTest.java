package io.streamfusion.backend;

import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.runtime.state.internal.InternalMapState;

import org.junit.jupiter.api.Test;

import java.util.Iterator;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MapState entries in the decoded-value cache: a read entry is served without RocksDB, and every
 * write (put, remove, clear, and an iterator's remove and setValue) keeps it equal to what RocksDB
 * holds. Each check changes RocksDB behind the cache's back, so only the cache can answer.
 */
class MapStateCacheTest extends SlotCacheTestBase {

    private <V> InternalMapState<Long, String, Long, V> mapAt(
            String name, TypeSerializer<V> values, long key) throws Exception {
        @SuppressWarnings("unchecked")
        InternalMapState<Long, String, Long, V> state =
                (InternalMapState<Long, String, Long, V>)
                        backend.getOrCreateKeyedState(
                                StringSerializer.INSTANCE,
                                new MapStateDescriptor<>(name, LongSerializer.INSTANCE, values));
        backend.setCurrentKey(key);
        state.setCurrentNamespace("n");
        return state;
    }

    private InternalMapState<Long, String, Long, Long> longs(long key) throws Exception {
        return mapAt("longs", LongSerializer.INSTANCE, key);
    }

    /** The stored key of a user key of the current namespace "n". */
    private byte[] entryKey(long key, long userKey) throws Exception {
        return keyBuilder(key)
                .buildCompositeKeyNamesSpaceUserKey(
                        "n", StringSerializer.INSTANCE, userKey, LongSerializer.INSTANCE);
    }

    private NativeColumnFamily column(String name) {
        return backend.nativeColumns().get(name);
    }

    /** The map of {@code key}, with {@code userKeys} put (each user key times ten) and read. */
    private InternalMapState<Long, String, Long, Long> withCachedEntries(long key, long... userKeys)
            throws Exception {
        InternalMapState<Long, String, Long, Long> map = longs(key);
        for (long userKey : userKeys) {
            map.put(userKey, userKey * 10);
        }
        for (long userKey : userKeys) {
            map.get(userKey);
        }
        return map;
    }

    /** Deletes every stored entry of the state behind the cache's back. */
    private void forgetInRocksDb(String name, long key, long... userKeys) throws Exception {
        for (long userKey : userKeys) {
            column(name).delete(entryKey(key, userKey));
        }
    }

    @Test
    void aReadEntryIsServedByTheCache() throws Exception {
        InternalMapState<Long, String, Long, Long> map = longs(1);
        map.put(10L, 100L);
        assertEquals(100L, map.get(10L), "read from RocksDB, then cached");
        forgetInRocksDb("longs", 1, 10L);

        long hits = cache().stats().hitCount();
        assertEquals(100L, map.get(10L));
        assertTrue(map.contains(10L));
        assertEquals(hits + 2, cache().stats().hitCount());
    }

    @Test
    void putsAndRemovesKeepACachedEntryCurrent() throws Exception {
        InternalMapState<Long, String, Long, byte[]> map =
                mapAt("bytes", BytePrimitiveArraySerializer.INSTANCE, 2);
        map.put(20L, new byte[] {1});
        map.get(20L);
        map.put(20L, new byte[] {2, 2, 2}); // larger than the entry: weighed again
        map.put(21L, null);
        map.get(21L);
        forgetInRocksDb("bytes", 2, 20L, 21L);
        assertArrayEquals(new byte[] {2, 2, 2}, map.get(20L));
        assertTrue(map.contains(21L), "a null value is present");
        assertNull(map.get(21L));

        byte[] read = map.get(20L);
        read[0] = 9;
        assertArrayEquals(new byte[] {2, 2, 2}, map.get(20L), "each read a private copy");

        map.remove(20L);
        column("bytes").put(entryKey(2, 20L), new byte[] {0, 0, 0, 0, 1, 7}); // behind its back
        assertFalse(map.contains(20L), "the removal is cached as absent");
        assertNull(map.get(20L));
    }

    @Test
    void clearMarksEveryCachedEntryOfTheMapAbsentAndNoOtherMap() throws Exception {
        withCachedEntries(4, 30L);
        withCachedEntries(3, 30L, 31L);

        longs(3).clear();
        column("longs").put(entryKey(3, 30L), new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 1});
        InternalMapState<Long, String, Long, Long> cleared = longs(3);
        assertNull(cleared.get(30L), "cached as absent, whatever RocksDB holds");
        assertFalse(cleared.contains(31L));
        cleared.put(31L, 311L);
        assertEquals(311L, cleared.get(31L));

        forgetInRocksDb("longs", 4, 30L);
        assertEquals(300L, longs(4).get(30L), "another key's map keeps its cached entry");
    }

    @Test
    void anIteratorsRemoveAndSetValueKeepCachedEntriesCurrent() throws Exception {
        InternalMapState<Long, String, Long, Long> map = withCachedEntries(5, 50L, 51L);
        Iterator<Map.Entry<Long, Long>> entries = map.iterator();
        Map.Entry<Long, Long> first = entries.next();
        first.setValue(501L);
        entries.next();
        entries.remove();

        forgetInRocksDb("longs", 5, 50L);
        assertEquals(501L, map.get(50L), "set while iterating");
        column("longs").put(entryKey(5, 51L), new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 1});
        assertNull(map.get(51L), "removed while iterating");
        assertEquals(501L, first.getValue(), "the iterated entry keeps the value it set");
    }
}
