package io.streamfusion.migration;

import io.streamfusion.api.PriorityQueueStateType;
import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.backend.StreamFusionStateBackend;

import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CheckpointType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.checkpoint.SnapshotType;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rescaling without a cluster, with Flink's operator test harnesses: state of every kind and
 * event-time timers are written at one parallelism, snapshotted, repartitioned by Flink, and
 * restored at another, through every kind of snapshot StreamFusion takes. Every key's state must
 * arrive, whole, in the subtask that Flink's key-group assignment gives it, and every timer must
 * fire exactly once.
 */
class RescaleHarnessTest {

    private static final int MAX_PARALLELISM = KeyedHarnesses.MAX_PARALLELISM;
    private static final long KEYS = 200;

    @TempDir Path dir;

    /**
     * The snapshots a rescale can start from, and whether the backend checkpoints incrementally.
     */
    enum SnapshotKind {
        INCREMENTAL_CHECKPOINT(CheckpointType.CHECKPOINT, true),
        FULL_CHECKPOINT(CheckpointType.CHECKPOINT, false),
        NATIVE_SAVEPOINT(SavepointType.savepoint(SavepointFormatType.NATIVE), true),
        CANONICAL_SAVEPOINT(SavepointType.savepoint(SavepointFormatType.CANONICAL), true);

        final SnapshotType type;
        final boolean incremental;

        SnapshotKind(SnapshotType type, boolean incremental) {
            this.type = type;
            this.incremental = incremental;
        }
    }

    static Stream<Arguments> rescalings() {
        List<Arguments> cases = new ArrayList<>();
        for (SnapshotKind kind : SnapshotKind.values()) {
            for (PriorityQueueStateType timers : PriorityQueueStateType.values()) {
                cases.add(Arguments.of(kind, timers, new int[] {1, 2, 1}));
                cases.add(Arguments.of(kind, timers, new int[] {2, 3}));
                cases.add(Arguments.of(kind, timers, new int[] {4, 2}));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}, timers={1}, parallelism {2}")
    @MethodSource("rescalings")
    void everyKeysStateAndTimerFollowsItsKeyGroup(
            SnapshotKind kind, PriorityQueueStateType timers, int[] parallelisms) throws Exception {
        // Write: three values per key at the first parallelism.
        List<OperatorSubtaskState> snapshots = new ArrayList<>();
        int parallelism = parallelisms[0];
        for (int subtask = 0; subtask < parallelism; subtask++) {
            try (KeyedOneInputStreamOperatorTestHarness<Long, Tuple2<Long, Long>, String> harness =
                    harness(kind, timers, parallelism, subtask)) {
                harness.open();
                for (long key : keysOf(parallelism, subtask)) {
                    for (long i = 1; i <= 3; i++) {
                        harness.processElement(Tuple2.of(key, KeyedHarnesses.value(key, i)), 0);
                    }
                }
                snapshots.add(snapshot(harness, kind, 1));
            }
        }
        // Each later parallelism restores the previous one's snapshots; the last one is checked.
        for (int step = 1; step < parallelisms.length; step++) {
            OperatorSubtaskState all =
                    AbstractStreamOperatorTestHarness.repackageState(
                            snapshots.toArray(new OperatorSubtaskState[0]));
            int previous = parallelism;
            parallelism = parallelisms[step];
            boolean last = step == parallelisms.length - 1;
            snapshots = new ArrayList<>();
            Set<Long> firedKeys = new HashSet<>();
            for (int subtask = 0; subtask < parallelism; subtask++) {
                try (KeyedOneInputStreamOperatorTestHarness<Long, Tuple2<Long, Long>, String>
                        harness = harness(kind, timers, parallelism, subtask)) {
                    harness.initializeState(
                            AbstractStreamOperatorTestHarness.repartitionOperatorState(
                                    all, MAX_PARALLELISM, previous, parallelism, subtask));
                    harness.open();
                    if (!last) {
                        snapshots.add(snapshot(harness, kind, step + 1));
                        continue;
                    }
                    List<Long> owned = keysOf(parallelism, subtask);
                    for (long key : owned) {
                        harness.processElement(Tuple2.of(key, AllStateKindsFunction.PROBE), 0);
                    }
                    harness.processWatermark(Long.MAX_VALUE);
                    List<String> expected = new ArrayList<>();
                    for (long key : owned) {
                        expected.add(KeyedHarnesses.expectedState(key, 3));
                    }
                    List<String> output = harness.extractOutputValues();
                    assertEquals(
                            expected,
                            output.subList(0, owned.size()),
                            "state of subtask " + subtask);
                    List<String> timerLines = output.subList(owned.size(), output.size());
                    assertEquals(
                            owned.size(),
                            timerLines.size(),
                            "one timer per owned key in subtask " + subtask);
                    for (String line : timerLines) {
                        long key = Long.parseLong(line.split(" ")[1]);
                        assertTrue(
                                owned.contains(key),
                                "timer of key " + key + " fired in subtask " + subtask);
                        assertEquals(
                                "timer "
                                        + key
                                        + " at "
                                        + AllStateKindsFunction.timerTime(key)
                                        + " count=3",
                                line);
                        assertTrue(firedKeys.add(key), "timer of key " + key + " fired twice");
                    }
                }
            }
            if (last) {
                assertEquals(KEYS, firedKeys.size(), "every key's timer fired exactly once");
            }
        }
    }

    private static List<Long> keysOf(int parallelism, int subtask) {
        return KeyedHarnesses.keysOf(KEYS, parallelism, subtask);
    }

    private static OperatorSubtaskState snapshot(
            KeyedOneInputStreamOperatorTestHarness<Long, Tuple2<Long, Long>, String> harness,
            SnapshotKind kind,
            long id)
            throws Exception {
        return harness.snapshotWithLocalState(id, id, kind.type).getJobManagerOwnedState();
    }

    private KeyedOneInputStreamOperatorTestHarness<Long, Tuple2<Long, Long>, String> harness(
            SnapshotKind kind, PriorityQueueStateType timers, int parallelism, int subtask)
            throws Exception {
        Configuration config = new Configuration();
        config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, kind.incremental);
        config.setString(StreamFusionOptions.LOCAL_DIRECTORIES.key(), dir.toString());
        config.set(StreamFusionOptions.TIMER_SERVICE_FACTORY, timers);
        return KeyedHarnesses.harness(
                new StreamFusionStateBackend().configure(config, getClass().getClassLoader()),
                parallelism,
                subtask);
    }
}
