package io.streamfusion.backend;

import io.streamfusion.api.BatchValueState;
import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.backend.cache.DecodedValueCache;
import io.streamfusion.backend.cache.StateValueCache;
import io.streamfusion.backend.memory.SlotMemoryProvider;

import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.state.AggregatingState;
import org.apache.flink.api.common.state.AggregatingStateDescriptor;
import org.apache.flink.api.common.state.ReducingState;
import org.apache.flink.api.common.state.ReducingStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The decoded-value cache: hits without JNI, copies for mutable types, write-through, bounds. */
class DecodedValueCacheTest extends SlotCacheTestBase {

    private <V> ValueState<V> state(ValueStateDescriptor<V> descriptor) throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    private byte[] canonicalKey(long key) {
        return keyBuilder(key)
                .buildCompositeKeyNamespace(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE);
    }

    @Test
    void repeatedReadsAreServedFromTheCacheWithoutTouchingRocksDb() throws Exception {
        ValueState<Long> state = state(new ValueStateDescriptor<>("v", LongSerializer.INSTANCE));
        backend.setCurrentKey(7L);
        state.update(70L);
        long misses = cache().stats().missCount();
        assertEquals(70L, state.value()); // writes never admit: this read misses and admits
        assertEquals(misses + 1, cache().stats().missCount());
        // Remove the entry natively behind the cache's back: only a cache hit can still answer.
        backend.nativeColumns().get("v").delete(canonicalKey(7L));
        long hits = cache().stats().hitCount();
        assertEquals(70L, state.value());
        assertEquals(hits + 1, cache().stats().hitCount());
    }

    @Test
    void reducingAccumulatorsOfAnImmutableTypeAreServedFromTheCache() throws Exception {
        ReducingState<Long> sums =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ReducingStateDescriptor<>("sums", Long::sum, LongSerializer.INSTANCE));
        backend.setCurrentKey(5L);
        sums.add(1L);
        sums.add(2L); // the first add's read missed; this one's read admits what is stored
        long hits = cache().stats().hitCount();
        sums.add(3L); // read from the cache, written through
        assertEquals(hits + 1, cache().stats().hitCount());
        assertEquals(6L, sums.get());
        // What RocksDB holds is the written-through sum, not something only the cache knows.
        assertEquals(6L, backend.nativeColumns().get("sums").get(canonicalKey(5L))[7]);
        sums.clear();
        assertEquals(null, sums.get());
    }

    @Test
    void mutableAggregatingAccumulatorsStayOutOfTheCache() throws Exception {
        AggregatingState<Long, Long> totals =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new AggregatingStateDescriptor<>(
                                "totals",
                                new MutableSum(),
                                new org.apache.flink.api.java.typeutils.runtime.kryo
                                        .KryoSerializer<>(
                                        long[].class,
                                        new org.apache.flink.api.common.serialization
                                                .SerializerConfigImpl())));
        backend.setCurrentKey(6L);
        long weighted = cache().weightedBytes();
        for (long i = 1; i <= 4; i++) {
            totals.add(i);
        }
        assertEquals(10L, totals.get());
        assertEquals(weighted, cache().weightedBytes(), "no mutable accumulator entered the cache");
    }

    /** Mutates its accumulator in place, as many aggregate functions do. */
    private static final class MutableSum implements AggregateFunction<Long, long[], Long> {
        @Override
        public long[] createAccumulator() {
            return new long[1];
        }

        @Override
        public long[] add(Long value, long[] accumulator) {
            accumulator[0] += value;
            return accumulator;
        }

        @Override
        public Long getResult(long[] accumulator) {
            return accumulator[0];
        }

        @Override
        public long[] merge(long[] a, long[] b) {
            a[0] += b[0];
            return a;
        }
    }

    @Test
    void writesToACachedKeyReplaceItsValue() throws Exception {
        ValueState<Long> state = state(new ValueStateDescriptor<>("v", LongSerializer.INSTANCE));
        backend.setCurrentKey(8L);
        state.update(1L);
        assertEquals(1L, state.value()); // admitted
        state.update(2L); // written through and replaced in the cache
        assertEquals(2L, backend.nativeColumns().get("v").get(canonicalKey(8L))[7]);
        backend.nativeColumns().get("v").delete(canonicalKey(8L));
        assertEquals(2L, state.value()); // served by the cache, with the new value
    }

    @Test
    void aDeleteOfACachedKeyIsServedAsAbsentUntilTheNextWrite() throws Exception {
        ValueState<Long> state = state(new ValueStateDescriptor<>("d", LongSerializer.INSTANCE));
        backend.setCurrentKey(6L);
        state.update(1L);
        assertEquals(1L, state.value()); // admitted
        state.clear();
        assertNull(backend.nativeColumns().get("d").get(canonicalKey(6L)));
        long hits = cache().stats().hitCount();
        assertNull(state.value());
        assertEquals(hits + 1, cache().stats().hitCount(), "the absence is served by the cache");
        state.update(2L);
        assertEquals(2L, backend.nativeColumns().get("d").get(canonicalKey(6L))[7]);
        backend.nativeColumns().get("d").delete(canonicalKey(6L));
        assertEquals(2L, state.value(), "the write after the delete filled the entry again");
    }

    @Test
    void aWrittenValueLargerThanItsEntryIsWeighedAgain() throws Exception {
        ValueState<String> state =
                state(new ValueStateDescriptor<>("s", StringSerializer.INSTANCE));
        backend.setCurrentKey(7L);
        state.update("a");
        assertEquals("a", state.value()); // admitted, weighed at a two-byte string
        long small = cache().weightedBytes();
        state.update("x".repeat(1_000));
        assertTrue(cache().weightedBytes() >= small + 998, "weighed at the larger value");
        state.update("b");
        assertEquals("b", state.value());
    }

    @Test
    void writesReachRocksDbBeforeTheCache() throws Exception {
        ValueState<Long> state = state(new ValueStateDescriptor<>("v", LongSerializer.INSTANCE));
        backend.setCurrentKey(3L);
        state.update(30L);
        byte[] stored = backend.nativeColumns().get("v").get(canonicalKey(3L));
        assertEquals(8, stored.length);
        state.clear();
        assertNull(backend.nativeColumns().get("v").get(canonicalKey(3L)));
        assertNull(state.value());
    }

    @Test
    void userCodeNeverSeesACachedMutableValueChange() throws Exception {
        ValueState<List<Long>> state =
                state(
                        new ValueStateDescriptor<>(
                                "list", new ListSerializer<>(LongSerializer.INSTANCE)));
        backend.setCurrentKey(1L);
        List<Long> written = new ArrayList<>(List.of(1L, 2L));
        state.update(written);
        written.add(99L); // the caller keeps mutating its own object
        List<Long> first = state.value();
        assertEquals(List.of(1L, 2L), first);
        first.add(100L); // and mutates what it read
        List<Long> second = state.value();
        assertEquals(List.of(1L, 2L), second);
        assertNotSame(first, second);
    }

    @Test
    void aReadModifyWriteOfAMutableValueKeepsHittingTheCacheWithItsOwnCopy() throws Exception {
        ValueState<List<Long>> state =
                state(
                        new ValueStateDescriptor<>(
                                "rmw", new ListSerializer<>(LongSerializer.INSTANCE)));
        backend.setCurrentKey(4L);
        state.update(new ArrayList<>(List.of(1L)));
        state.value(); // admitted by the read
        for (long i = 2; i <= 5; i++) {
            long hits = cache().stats().hitCount();
            List<Long> value = state.value();
            assertEquals(hits + 1, cache().stats().hitCount(), "read " + i + " hits the cache");
            value.add(i);
            state.update(value); // replaces the cached value with a copy
            value.add(-1L); // the caller's later changes never reach the cache
        }
        backend.nativeColumns().get("rmw").delete(canonicalKey(4L));
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), state.value(), "served by the cache");
    }

    @Test
    void aCachedMutableValueWrittenShorterThenDeletedThenWrittenAgainReadsBackExactly()
            throws Exception {
        ValueState<List<Long>> state =
                state(
                        new ValueStateDescriptor<>(
                                "shrink", new ListSerializer<>(LongSerializer.INSTANCE)));
        backend.setCurrentKey(6L);
        state.update(new ArrayList<>(List.of(1L, 2L, 3L)));
        state.value(); // admitted by the read, as the bytes of three elements
        state.update(new ArrayList<>(List.of(7L))); // copied into the entry's longer array
        backend.nativeColumns().get("shrink").delete(canonicalKey(6L));
        long hits = cache().stats().hitCount();
        assertEquals(List.of(7L), state.value(), "the shorter value, copied into the entry");
        assertEquals(hits + 1, cache().stats().hitCount(), "served by the cache");
        state.clear();
        assertNull(state.value(), "deleted while cached");
        state.update(new ArrayList<>(List.of(8L, 9L)));
        backend.nativeColumns().get("shrink").delete(canonicalKey(6L));
        assertEquals(List.of(8L, 9L), state.value(), "a write after a delete is present again");
    }

    @Test
    void batchWritesInvalidateCachedValues() throws Exception {
        ValueStateDescriptor<Long> descriptor =
                new ValueStateDescriptor<>("v", LongSerializer.INSTANCE);
        ValueState<Long> state = state(descriptor);
        backend.setCurrentKey(5L);
        state.update(1L);
        assertEquals(1L, state.value());
        BatchValueState<Long, Long> batch = backend.getBatchValueState(descriptor);
        batch.putAll(List.of(5L), List.of(2L));
        assertEquals(2L, state.value());
        batch.removeAll(List.of(5L));
        assertNull(state.value());
    }

    @Test
    void cacheIsBoundedInBytes() {
        DecodedValueCache small = new DecodedValueCache(1 << 20);
        StateValueCache<Long> view = new StateValueCache<>(small, 1, LongSerializer.INSTANCE);
        for (long key = 0; key < 50_000; key++) {
            view.admitRead(canonicalKey(key), key, new byte[8]);
        }
        assertTrue(small.weightedBytes() <= small.capacityBytes(), "bytes within capacity");
        assertTrue(small.stats().evictionCount() > 0, "a full cache evicts");
    }

    @Test
    void aFullCacheAdmitsAKeyOnItsSecondMissOnly() throws Exception {
        DecodedValueCache small = new DecodedValueCache(1 << 20);
        StateValueCache<Long> view = new StateValueCache<>(small, 1, LongSerializer.INSTANCE);
        view.admitRead(canonicalKey(-1L), -1L, new byte[8]);
        assertEquals(
                -1L, view.get(canonicalKey(-1L)), "a cache with room admits on the first miss");
        for (long key = 0; key < 50_000; key++) {
            view.admitRead(canonicalKey(key), key, new byte[8]);
        }
        assertTrue(small.stats().evictionCount() > 0, "the cache is full");

        byte[] newcomer = canonicalKey(1_000_000L);
        view.admitRead(newcomer, 7L, new byte[8]);
        assertNull(view.get(newcomer), "a full cache turns a key away on its first miss");
        view.admitRead(newcomer, 7L, new byte[8]);
        assertEquals(7L, view.get(newcomer), "and admits it on its second");
    }

    @Test
    void keysThatShareTheirInlineBytesAreToldApart() throws Exception {
        StateValueCache<Long> view = new StateValueCache<>(cache(), 98, LongSerializer.INSTANCE);
        byte[] longKey = new byte[24];
        byte[] sameHead = new byte[24];
        sameHead[23] = 1; // differs only past the 16 bytes a key holds inline
        byte[] shortKey = {1, 2};
        byte[] zeroPadded = {1, 2, 0}; // packs to the same bits as {1, 2} but is longer
        view.admitRead(longKey, 1L, new byte[8]);
        view.admitRead(shortKey, 2L, new byte[8]);
        assertEquals(1L, view.get(longKey.clone()));
        assertNull(view.get(sameHead));
        assertEquals(2L, view.get(shortKey.clone()));
        assertNull(view.get(zeroPadded));
        assertNull(view.get(new byte[] {0, 1, 2}));
    }

    @Test
    void aNewSerializerNeverSeesValuesDecodedWithTheOldOne() throws Exception {
        StateValueCache<Long> view = new StateValueCache<>(cache(), 99, LongSerializer.INSTANCE);
        view.admitRead(canonicalKey(1L), 10L, new byte[8]);
        assertEquals(10L, view.get(canonicalKey(1L)));
        view.useSerializer(LongSerializer.INSTANCE.duplicate());
        assertNull(view.get(canonicalKey(1L)));
    }

    @Test
    void defaultCacheTakesAnEighthOfTheSlotBudgetUpTo64Mib() {
        StreamFusionConfig defaults = StreamFusionConfig.defaults();
        assertEquals(17L << 20, SlotMemoryProvider.cacheBytes(136L << 20, defaults));
        assertEquals(64L << 20, SlotMemoryProvider.cacheBytes(512L << 20, defaults));
        assertEquals(64L << 20, SlotMemoryProvider.cacheBytes(4L << 30, defaults));
    }

    @Test
    void cacheIsRefusedWhenTheSlotCannotSpareItAndCanBeSwitchedOff() {
        Configuration flink = new Configuration();
        flink.set(StreamFusionOptions.CACHE_SIZE, MemorySize.parse("40mb"));
        StreamFusionConfig config = StreamFusionConfig.from(flink, StreamFusionConfig.defaults());
        assertEquals(40L << 20, SlotMemoryProvider.cacheBytes(80L << 20, config));
        assertEquals(0L, SlotMemoryProvider.cacheBytes(64L << 20, config));
        flink.set(StreamFusionOptions.CACHE_ENABLED, false);
        assertEquals(
                0L,
                SlotMemoryProvider.cacheBytes(
                        1L << 30, StreamFusionConfig.from(flink, StreamFusionConfig.defaults())));
    }
}
