package io.streamfusion.backend;

import io.streamfusion.backend.cache.DecodedValueCache;
import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.state.ListDelimitedSerializer;
import org.apache.flink.runtime.state.internal.InternalListState;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ListState in the decoded-value cache: lists are cached as their stored bytes, reads of a cached
 * key need no RocksDB, and every write (update, add, addAll, clear, namespace merge) keeps the
 * entry equal to what RocksDB holds.
 */
class ListStateCacheTest extends SlotCacheTestBase {

    private static final ListDelimitedSerializer FORMAT = new ListDelimitedSerializer();

    private InternalListState<Long, String, Long> list(String name) throws Exception {
        return (InternalListState<Long, String, Long>)
                backend.getOrCreateKeyedState(
                        StringSerializer.INSTANCE,
                        new ListStateDescriptor<>(name, LongSerializer.INSTANCE));
    }

    /** The list state {@code name}, with {@code key} and namespace "n" current. */
    private InternalListState<Long, String, Long> listAt(String name, long key) throws Exception {
        InternalListState<Long, String, Long> state = list(name);
        backend.setCurrentKey(key);
        state.setCurrentNamespace("n");
        return state;
    }

    /**
     * Deletes the stored list behind the cache's back and asserts that the cache still answers
     * {@code expected}, with one hit.
     */
    private void assertServedByTheCache(
            InternalListState<Long, String, Long> state,
            String name,
            byte[] key,
            List<Long> expected)
            throws Exception {
        column(name).delete(key);
        long hits = cache().stats().hitCount();
        assertEquals(expected, state.getInternal(), "served by the cache after RocksDB lost it");
        assertEquals(hits + 1, cache().stats().hitCount());
    }

    private byte[] canonicalKey(long key, String namespace) {
        return keyBuilder(key).buildCompositeKeyNamespace(namespace, StringSerializer.INSTANCE);
    }

    private NativeColumnFamily column(String name) {
        return backend.nativeColumns().get(name);
    }

    /** Asserts RocksDB holds {@code expected} in Flink's list format under the key. */
    private void assertStored(String name, byte[] key, List<Long> expected) throws Exception {
        assertArrayEquals(
                FORMAT.serializeList(expected, LongSerializer.INSTANCE), column(name).get(key));
    }

    @Test
    void aCachedListIsReadWithoutRocksDbAndEachReadIsAPrivateCopy() throws Exception {
        InternalListState<Long, String, Long> state = listAt("l", 1L);
        state.update(List.of(1L, 2L));
        assertEquals(List.of(1L, 2L), state.get()); // misses and admits
        assertServedByTheCache(state, "l", canonicalKey(1L, "n"), List.of(1L, 2L));
        List<Long> first = state.getInternal();
        first.add(99L);
        assertEquals(List.of(1L, 2L), state.getInternal(), "user changes never reach the cache");
    }

    @Test
    void appendsToACachedListKeepItEqualToRocksDb() throws Exception {
        InternalListState<Long, String, Long> state = listAt("a", 2L);
        byte[] key = canonicalKey(2L, "n");
        state.add(0L);
        state.get(); // admitted with no room to spare
        List<Long> expected = new ArrayList<>(List.of(0L));
        for (long i = 1; i <= 200; i++) { // grows the entry's array several times
            if (i % 3 == 0) {
                state.addAll(List.of(i, -i));
                expected.add(i);
                expected.add(-i);
            } else {
                state.add(i);
                expected.add(i);
            }
        }
        assertStored("a", key, expected);
        assertServedByTheCache(state, "a", key, expected);
    }

    @Test
    void anAppendAfterAClearOfACachedListStartsANewList() throws Exception {
        InternalListState<Long, String, Long> state = listAt("c", 3L);
        byte[] key = canonicalKey(3L, "n");
        state.update(List.of(5L, 6L, 7L));
        state.get(); // admitted
        state.clear();
        assertNull(state.get(), "the deletion is cached");
        state.add(8L);
        assertStored("c", key, List.of(8L));
        state.update(List.of()); // an empty update clears, as in Flink
        assertNull(state.get());
        assertNull(column("c").get(key));
        state.addAll(List.of(9L, 10L));
        assertServedByTheCache(state, "c", key, List.of(9L, 10L));
    }

    @Test
    void aListGrownPastTheAppendLimitLeavesTheCache() throws Exception {
        InternalListState<Long, String, Long> state = listAt("big", 4L);
        byte[] key = canonicalKey(4L, "n");
        state.add(-1L);
        state.get(); // admitted
        List<Long> expected = new ArrayList<>(List.of(-1L));
        // 9 bytes per element with its delimiter: past 64 KiB after about 7,300 elements.
        for (long i = 0; i < 8_000; i++) {
            state.add(i);
            expected.add(i);
        }
        long misses = cache().stats().missCount();
        assertEquals(expected, state.getInternal());
        assertEquals(misses + 1, cache().stats().missCount(), "read from RocksDB, not the cache");
        assertStored("big", key, expected);
    }

    @Test
    void mergingNamespacesKeepsCachedListsOfSourceAndTargetCurrent() throws Exception {
        InternalListState<Long, String, Long> state = list("m");
        backend.setCurrentKey(5L);
        state.setCurrentNamespace("target");
        state.update(List.of(1L));
        state.get(); // admitted
        state.setCurrentNamespace("source");
        state.update(List.of(2L, 3L));
        state.get(); // admitted
        state.mergeNamespaces("target", List.of("source"));
        assertNull(column("m").get(canonicalKey(5L, "source")));
        assertStored("m", canonicalKey(5L, "target"), List.of(1L, 2L, 3L));
        state.setCurrentNamespace("source");
        assertNull(state.get(), "the merged source is empty in the cache too");
        state.setCurrentNamespace("target");
        assertServedByTheCache(state, "m", canonicalKey(5L, "target"), List.of(1L, 2L, 3L));
    }

    @Test
    void listsOfADisposedBackendLeaveTheSlotCache() throws Exception {
        InternalListState<Long, String, Long> state = list("d");
        state.setCurrentNamespace("n");
        for (long key = 0; key < 100; key++) {
            backend.setCurrentKey(key);
            state.update(List.of(key));
            state.get();
        }
        assertTrue(cache().entries() > 0);
        DecodedValueCache slotCache = cache();
        backend.dispose();
        assertEquals(0, slotCache.entries(), "the backend's entries went with it");
        backend = TestKeyedBackends.create(env, dir, LongSerializer.INSTANCE);
    }
}
