package io.streamfusion.backend;

import io.streamfusion.api.CandidateIndexState;
import io.streamfusion.backend.nativelib.EntryBatchReader;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.state.StateCorruptionException;
import io.streamfusion.backend.state.StreamFusionCandidateIndexState;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyedStateBackendParametersImpl;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The disk-backed candidate index: order, retraction by value, capacity, snapshots and rescaling.
 */
class CandidateIndexTest extends MockEnvironmentTestBase {

    /** The operator budget of the capacity case in TARGETS.md. */
    private static final int BUDGET_BYTES = 16 << 10;

    @TempDir File dir;

    private StreamFusionKeyedStateBackend<Long> backend(
            String name, KeyGroupRange range, List<KeyedStateHandle> handles) throws Exception {
        return TestKeyedBackends.in(env, new File(dir, name))
                .keyGroups(range)
                .restoring(handles)
                .build(LongSerializer.INSTANCE);
    }

    private static KeyGroupRange all() {
        return new KeyGroupRange(0, TestKeyedBackends.KEY_GROUPS - 1);
    }

    private KeyedStateHandle firstCheckpoint(StreamFusionKeyedStateBackend<Long> backend)
            throws Exception {
        return TestSnapshots.checkpoint(
                backend, 1, TestSnapshots.fileStreams(new File(dir, "storage"), 1));
    }

    private static CandidateIndexState<String> index(StreamFusionKeyedStateBackend<Long> backend)
            throws Exception {
        return backend.getCandidateIndexState("candidates", StringSerializer.INSTANCE);
    }

    private static <T> List<T> list(Iterable<T> values) {
        List<T> out = new ArrayList<>();
        values.forEach(out::add);
        return out;
    }

    @Test
    void keepsAppendOrderAndRetractsTheOldestEqualCandidate() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend = backend("work", all(), List.of());
        try {
            CandidateIndexState<String> index = index(backend);
            backend.setCurrentKey(1L);
            assertNull(index.latest());
            for (String candidate : List.of("a", "b", "a", "c")) {
                index.append(candidate);
            }
            backend.setCurrentKey(2L);
            index.append("other key");
            backend.setCurrentKey(1L);
            assertEquals(4, index.count());
            assertEquals("c", index.latest());
            assertTrue(index.retract("a"));
            assertEquals(List.of("b", "a", "c"), list(index.candidates()));
            assertTrue(index.retract("c"));
            assertEquals("a", index.latest());
            assertFalse(index.retract("never appended"));
            index.clear();
            assertEquals(0, index.count());
            assertNull(index.latest());
            backend.setCurrentKey(2L);
            assertEquals(List.of("other key"), list(index.candidates()));
        } finally {
            backend.dispose();
        }
    }

    @Test
    void valuesSharingAHashAreToldApartByTheirBytes() throws Exception {
        // "Aa" and "BB" have the same Java hash, and so have their serialized bytes (and every
        // concatenation of the two): all four share one hash entry.
        List<String> colliding = List.of("AaAa", "AaBB", "BBAa", "BBBB");
        for (String candidate : colliding) {
            assertEquals(
                    StreamFusionCandidateIndexState.hash(serialized(colliding.get(0))),
                    StreamFusionCandidateIndexState.hash(serialized(candidate)),
                    candidate + " shares the index hash of " + colliding.get(0));
        }
        StreamFusionKeyedStateBackend<Long> backend = backend("collisions", all(), List.of());
        try {
            CandidateIndexState<String> index = index(backend);
            backend.setCurrentKey(1L);
            for (String candidate : colliding) {
                index.append(candidate);
            }
            index.append("AaBB");
            assertTrue(index.retract("AaBB"));
            assertEquals(List.of("AaAa", "BBAa", "BBBB", "AaBB"), list(index.candidates()));
            assertFalse(index.retract("AaAb"));
            assertTrue(index.retract("AaBB"));
            assertEquals("BBBB", index.latest());
            assertTrue(index.retract("BBBB"));
            assertEquals("BBAa", index.latest());
            assertFalse(index.retract("AaBB"));
            assertTrue(index.retract("AaAa"));
            assertTrue(index.retract("BBAa"));
            assertEquals(0, index.count());
            assertNull(index.latest());
            assertEquals(List.of(), list(index.candidates()));
        } finally {
            backend.dispose();
        }
    }

    @Test
    void manyInterleavedKeysMatchAReferenceModelAlsoAfterACheckpoint() throws Exception {
        // More keys than the counter memo keeps, visited at random: written-back, remembered and
        // re-read counters must agree with a plain list per key, and a checkpoint taken while
        // counters are still only remembered must carry them.
        int keys = 3_000;
        Random random = new Random(42);
        List<List<String>> expected = new ArrayList<>();
        for (int key = 0; key < keys; key++) {
            expected.add(new ArrayList<>());
        }
        KeyedStateHandle checkpoint;
        StreamFusionKeyedStateBackend<Long> backend = backend("interleaved", all(), List.of());
        try {
            CandidateIndexState<String> index = index(backend);
            for (int step = 0; step < 40_000; step++) {
                int key = random.nextInt(keys);
                List<String> model = expected.get(key);
                backend.setCurrentKey((long) key);
                String value = "v" + random.nextInt(4);
                int action = random.nextInt(10);
                if (action < 6) {
                    index.append(value);
                    model.add(value);
                } else if (action < 9) {
                    assertEquals(model.remove(value), index.retract(value));
                } else {
                    index.clear();
                    model.clear();
                }
                assertEquals(model.size(), index.count());
                assertEquals(model.isEmpty() ? null : model.get(model.size() - 1), index.latest());
            }
            for (int key = 0; key < keys; key += 97) {
                backend.setCurrentKey((long) key);
                assertEquals(expected.get(key), list(index.candidates()));
            }
            checkpoint = firstCheckpoint(backend);
        } finally {
            backend.dispose();
        }
        StreamFusionKeyedStateBackend<Long> restored =
                backend("interleaved-restored", all(), List.of(checkpoint));
        try {
            CandidateIndexState<String> index = index(restored);
            for (int key = 0; key < keys; key++) {
                restored.setCurrentKey((long) key);
                List<String> model = expected.get(key);
                assertEquals(model.size(), index.count(), "key " + key);
                assertEquals(
                        model.isEmpty() ? null : model.get(model.size() - 1),
                        index.latest(),
                        "key " + key);
                // Sequences continue after the restored ones: a new candidate is the latest.
                index.append("after restore");
                model.add("after restore");
                assertEquals(model, list(index.candidates()), "key " + key);
            }
        } finally {
            restored.dispose();
        }
    }

    @Test
    void everyViewOfAnIndexSeesTheOthersWrites() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend = backend("views", all(), List.of());
        try {
            CandidateIndexState<String> first = index(backend);
            CandidateIndexState<String> second = index(backend);
            backend.setCurrentKey(1L);
            first.append("a");
            assertEquals("a", first.latest());
            second.append("b");
            assertEquals("b", first.latest());
            assertEquals(2, first.count());
            assertTrue(first.retract("b"));
            assertEquals("a", second.latest());
            second.clear();
            assertNull(first.latest());
            assertEquals(0, first.count());
        } finally {
            backend.dispose();
        }
    }

    @Test
    void aKeysWholeIndexExpiresAfterItsTtlAndIsDeletedOnAccess() throws Exception {
        long[] now = {0};
        StreamFusionKeyedStateBackend<Long> backend =
                TestKeyedBackends.in(env, new File(dir, "ttl"))
                        .ttlTime(() -> now[0])
                        .build(LongSerializer.INSTANCE);
        try {
            CandidateIndexState<String> index =
                    backend.getCandidateIndexState(
                            "candidates",
                            StringSerializer.INSTANCE,
                            StateTtlConfig.newBuilder(Duration.ofMillis(100)).build());
            backend.setCurrentKey(1L);
            index.append("a");
            index.append("b");
            now[0] = 60;
            backend.setCurrentKey(2L);
            index.append("c");
            now[0] = 99;
            backend.setCurrentKey(1L);
            assertEquals("b", index.latest());

            now[0] = 100;
            assertNull(index.latest());
            assertEquals(0, index.count());
            assertEquals(List.of(), list(index.candidates()));
            assertFalse(index.retract("a"));
            assertEquals(0, rawEntries(backend), "the expired index is deleted, not only hidden");
            backend.setCurrentKey(2L);
            assertEquals("c", index.latest(), "written at 60, so alive until 160");

            backend.setCurrentKey(1L);
            index.append("d");
            assertEquals(List.of("d"), list(index.candidates()));
            now[0] = 160;
            backend.setCurrentKey(2L);
            assertFalse(index.retract("c"), "expired at 160 even for a retraction");
        } finally {
            backend.dispose();
        }
    }

    @Test
    void accessesToOneKeyDeleteTheExpiredIndexesOfKeysNeverTouchedAgain() throws Exception {
        long[] now = {0};
        // Flink's default TTL config: cleanup in background, 5 keys per access.
        StateTtlConfig ttl = StateTtlConfig.newBuilder(Duration.ofMillis(100)).build();
        KeyedStateHandle checkpoint;
        StreamFusionKeyedStateBackend<Long> backend =
                TestKeyedBackends.in(env, new File(dir, "sweep"))
                        .ttlTime(() -> now[0])
                        .build(LongSerializer.INSTANCE);
        try {
            CandidateIndexState<String> index =
                    backend.getCandidateIndexState("candidates", StringSerializer.INSTANCE, ttl);
            for (long key = 0; key < 50; key++) {
                backend.setCurrentKey(key);
                index.append("old " + key);
                index.append("older " + key);
            }
            now[0] = 60;
            backend.setCurrentKey(500L);
            index.append("young");
            NativeColumnFamily columnFamily = backend.nativeColumns().get("candidates");
            assertEquals(
                    50 * 4 + 2,
                    columnFamily.countEntries(),
                    "candidate and hash entries; counters are still in the memo");
            checkpoint = firstCheckpoint(backend);
            now[0] = 120; // keys 0..49 expired at 100; key 500 lives until 160
            // Counters known from the memo.
            assertOnlyTheYoungKeySurvivesAccessesToAnotherKey(backend, index);
        } finally {
            backend.dispose();
        }
        StreamFusionKeyedStateBackend<Long> restored =
                TestKeyedBackends.in(env, new File(dir, "sweep-restored"))
                        .ttlTime(() -> now[0])
                        .restoring(List.of(checkpoint))
                        .build(LongSerializer.INSTANCE);
        try {
            // Counters read from their stored entries.
            assertOnlyTheYoungKeySurvivesAccessesToAnotherKey(
                    restored,
                    restored.getCandidateIndexState("candidates", StringSerializer.INSTANCE, ttl));
        } finally {
            restored.dispose();
        }
    }

    /** A stored counter: the map-value header and four longs. */
    private static final int COUNTER_ENTRY_BYTES = 5 + 4 * Long.BYTES;

    @Test
    void aCorruptCounterFailsOnlyItsOwnKeyAndTheSweepStepsOverIt() throws Exception {
        StateTtlConfig ttl = StateTtlConfig.newBuilder(Duration.ofMillis(100)).build();
        KeyedStateHandle checkpoint;
        StreamFusionKeyedStateBackend<Long> backend =
                TestKeyedBackends.in(env, new File(dir, "corrupt"))
                        .ttlTime(() -> 0)
                        .build(LongSerializer.INSTANCE);
        try {
            CandidateIndexState<String> index =
                    backend.getCandidateIndexState("candidates", StringSerializer.INSTANCE, ttl);
            for (long key = 0; key < 50; key++) {
                backend.setCurrentKey(key);
                index.append("v" + key);
            }
            checkpoint = firstCheckpoint(backend);
        } finally {
            backend.dispose();
        }
        // Restored, so no counter is in the memo and every one is read from its stored entry.
        StreamFusionKeyedStateBackend<Long> restored =
                TestKeyedBackends.in(env, new File(dir, "corrupt-restored"))
                        .ttlTime(() -> 0)
                        .restoring(List.of(checkpoint))
                        .build(LongSerializer.INSTANCE);
        try {
            CandidateIndexState<String> index =
                    restored.getCandidateIndexState("candidates", StringSerializer.INSTANCE, ttl);
            NativeColumnFamily columnFamily = restored.nativeColumns().get("candidates");
            EntryBatchReader entries =
                    new EntryBatchReader(columnFamily.scanPrefix(new byte[0], null, 1 << 20));
            byte[] damagedKey = null;
            while (damagedKey == null && entries.advance()) {
                if (entries.value().length == COUNTER_ENTRY_BYTES) {
                    damagedKey = entries.key();
                    // Cut by one byte: no longer the 4-long layout, and not the legacy 3-long one.
                    columnFamily.put(
                            damagedKey, Arrays.copyOf(entries.value(), COUNTER_ENTRY_BYTES - 1));
                }
            }
            assertNotNull(damagedKey, "no stored counter found");

            restored.setCurrentKey(1_000L);
            for (int access = 0; access < 10; access++) {
                index.count(); // 10 accesses of 5 keys each pass the 50 stored keys once
            }
            assertEquals(1, restored.skippedCorruptEntries().count());

            List<Long> failing = new ArrayList<>();
            for (long key = 0; key < 50; key++) {
                restored.setCurrentKey(key);
                try {
                    assertEquals(1, index.count());
                } catch (StateCorruptionException e) {
                    failing.add(key);
                    assertThat(e.getMessage())
                            .contains(
                                    "state 'candidates', key group "
                                            + (damagedKey[0] & 0xFF)
                                            + ": a candidate index counter of 36 bytes, expected 37")
                            .contains("restore the job from an earlier checkpoint or a savepoint");
                }
            }
            assertEquals(1, failing.size(), "keys whose operations failed: " + failing);
        } finally {
            restored.dispose();
        }
    }

    private static void assertOnlyTheYoungKeySurvivesAccessesToAnotherKey(
            StreamFusionKeyedStateBackend<Long> backend, CandidateIndexState<String> index)
            throws Exception {
        NativeColumnFamily columnFamily = backend.nativeColumns().get("candidates");
        backend.setCurrentKey(1_000L);
        for (int access = 0; access < 20; access++) {
            index.count(); // 20 accesses of 5 keys each pass every stored key
        }
        // The checkpoint stored every counter: the young key keeps its candidate, hash and counter.
        assertEquals(3, columnFamily.countEntries());
        backend.setCurrentKey(500L);
        assertEquals(List.of("young"), list(index.candidates()));
        backend.setCurrentKey(7L);
        assertEquals(0, index.count());
        assertNull(index.latest());
        assertEquals(3, columnFamily.countEntries());
    }

    @Test
    void readsRenewTheTtlOnlyWithOnReadAndWrite() throws Exception {
        long[] now = {0};
        StreamFusionKeyedStateBackend<Long> backend =
                TestKeyedBackends.in(env, new File(dir, "ttl-read"))
                        .ttlTime(() -> now[0])
                        .build(LongSerializer.INSTANCE);
        try {
            CandidateIndexState<String> renewing =
                    backend.getCandidateIndexState(
                            "renewing",
                            StringSerializer.INSTANCE,
                            StateTtlConfig.newBuilder(Duration.ofMillis(100))
                                    .setUpdateType(StateTtlConfig.UpdateType.OnReadAndWrite)
                                    .build());
            CandidateIndexState<String> writeOnly =
                    backend.getCandidateIndexState(
                            "write-only",
                            StringSerializer.INSTANCE,
                            StateTtlConfig.newBuilder(Duration.ofMillis(100)).build());
            backend.setCurrentKey(1L);
            renewing.append("r");
            writeOnly.append("w");
            now[0] = 80;
            assertEquals("r", renewing.latest());
            assertEquals("w", writeOnly.latest());
            now[0] = 150;
            assertEquals(1, renewing.count(), "read at 80 renewed it until 180");
            assertNull(writeOnly.latest(), "reads do not renew OnCreateAndWrite");
            now[0] = 250;
            assertNull(renewing.latest(), "last read at 150, expired at 250");
        } finally {
            backend.dispose();
        }
    }

    /** Entries of the index's backing map state under the current key, read around the index. */
    private static int rawEntries(StreamFusionKeyedStateBackend<Long> backend) throws Exception {
        MapState<byte[], byte[]> raw =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new MapStateDescriptor<>(
                                "candidates",
                                BytePrimitiveArraySerializer.INSTANCE,
                                BytePrimitiveArraySerializer.INSTANCE));
        int entries = 0;
        for (Object ignored : raw.entries()) {
            entries++;
        }
        return entries;
    }

    private static String candidate(int i) {
        return String.format("candidate-%05d-with-a-payload-of-some-length", i);
    }

    @Test
    void tenThousandCandidatesUnderOneKeySurviveACheckpointAndRetraction() throws Exception {
        int candidates = 10_000;
        int survivor = 4_321;
        KeyedStateHandle checkpoint;
        StreamFusionKeyedStateBackend<Long> backend = backend("source", all(), List.of());
        try {
            CandidateIndexState<String> index = index(backend);
            backend.setCurrentKey(7L);
            for (int i = 0; i < candidates; i++) {
                index.append(candidate(i));
            }
            checkpoint = firstCheckpoint(backend);
        } finally {
            backend.dispose();
        }
        StreamFusionKeyedStateBackend<Long> restored =
                backend("restored", all(), List.of(checkpoint));
        try {
            CandidateIndexState<String> index = index(restored);
            restored.setCurrentKey(7L);
            assertEquals(candidates, index.count());
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < candidates; i++) {
                if (i != survivor) {
                    order.add(i);
                }
            }
            Collections.shuffle(order, new Random(42));
            for (int i : order) {
                assertTrue(index.retract(candidate(i)), "candidate " + i);
            }
            assertEquals(1, index.count());
            assertEquals(candidate(survivor), index.latest());
            assertEquals(List.of(candidate(survivor)), list(index.candidates()));

            // No access ever loads more than one candidate: the largest stored value is one.
            int largest = 0;
            EntryBatchReader entries =
                    new EntryBatchReader(
                            restored.nativeColumns()
                                    .get("candidates")
                                    .scanPrefix(new byte[0], null, 64 << 20));
            while (entries.advance()) {
                largest = Math.max(largest, entries.value().length);
            }
            assertTrue(largest < 100, "largest stored value " + largest);
        } finally {
            restored.dispose();
        }
        // The same candidates as one heap list value are far beyond the 16 KiB budget.
        List<String> all = new ArrayList<>();
        for (int i = 0; i < candidates; i++) {
            all.add(candidate(i));
        }
        DataOutputSerializer out = new DataOutputSerializer(1 << 20);
        new ListSerializer<>(StringSerializer.INSTANCE).serialize(all, out);
        assertTrue(
                out.length() > 20 * BUDGET_BYTES,
                "a list of them takes " + out.length() + " bytes");
    }

    @Test
    void eachKeyFollowsItsKeyGroupOnRescalingAndCanonicalSavepointsAreMapState() throws Exception {
        long lowKey = keyInGroups(0, 63);
        long highKey = keyInGroups(64, 127);
        KeyedStateHandle checkpoint;
        KeyedStateHandle savepoint;
        StreamFusionKeyedStateBackend<Long> backend = backend("source", all(), List.of());
        try {
            CandidateIndexState<String> index = index(backend);
            for (long key : new long[] {lowKey, highKey}) {
                backend.setCurrentKey(key);
                index.append("first of " + key);
                index.append("last of " + key);
            }
            checkpoint = firstCheckpoint(backend);
            // Its counter is only remembered when the savepoint starts: the savepoint must write
            // it.
            backend.setCurrentKey(highKey);
            index.append("after the checkpoint");
            savepoint =
                    TestSnapshots.canonicalSavepoint(
                            backend, 2, TestSnapshots.fileStreams(new File(dir, "storage"), 2));
        } finally {
            backend.dispose();
        }
        StreamFusionKeyedStateBackend<Long> lower =
                backend("lower", new KeyGroupRange(0, 63), List.of(checkpoint));
        try {
            CandidateIndexState<String> index = index(lower);
            lower.setCurrentKey(lowKey);
            assertEquals("last of " + lowKey, index.latest());
            assertEquals(2, index.count());
            // The other key's entries were clipped away with its key groups.
            assertEquals(1 + 2 + 2, lower.nativeColumns().get("candidates").countEntries());
        } finally {
            lower.dispose();
        }
        // Flink's heap backend reads the index from a canonical savepoint as ordinary map state.
        CheckpointableKeyedStateBackend<Long> heap = heapBackend(List.of(savepoint));
        try {
            MapState<byte[], byte[]> entries =
                    heap.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new MapStateDescriptor<>(
                                    "candidates",
                                    BytePrimitiveArraySerializer.INSTANCE,
                                    BytePrimitiveArraySerializer.INSTANCE));
            heap.setCurrentKey(highKey);
            assertEquals(1 + 3 + 3, list(entries.keys()).size());
            // The counter entry (user key [0x00]; byte-array keys compare by identity on the heap)
            // holds the count as its second long.
            long count = -1;
            for (Map.Entry<byte[], byte[]> entry : entries.entries()) {
                if (entry.getKey().length == 1 && entry.getKey()[0] == 0) {
                    count = ByteBuffer.wrap(entry.getValue()).getLong(Long.BYTES);
                }
            }
            assertEquals(3, count);
        } finally {
            heap.dispose();
        }
    }

    private static long keyInGroups(int first, int last) {
        for (long key = 0; ; key++) {
            int group = KeyGroupRangeAssignment.assignToKeyGroup(key, TestKeyedBackends.KEY_GROUPS);
            if (group >= first && group <= last) {
                return key;
            }
        }
    }

    private CheckpointableKeyedStateBackend<Long> heapBackend(List<KeyedStateHandle> handles)
            throws Exception {
        return new HashMapStateBackend()
                .createKeyedStateBackend(
                        new KeyedStateBackendParametersImpl<>(
                                env,
                                new JobID(),
                                "heap",
                                LongSerializer.INSTANCE,
                                TestKeyedBackends.KEY_GROUPS,
                                all(),
                                env.getTaskKvStateRegistry(),
                                TtlTimeProvider.DEFAULT,
                                new UnregisteredMetricsGroup(),
                                (name, value) -> {},
                                handles,
                                new CloseableRegistry(),
                                1.0));
    }

    private static byte[] serialized(String candidate) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(16);
        StringSerializer.INSTANCE.serialize(candidate, out);
        return out.getCopyOfBuffer();
    }
}
