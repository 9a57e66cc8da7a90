package io.streamfusion.migration;

import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.backend.StreamFusionStateBackend;

import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A canonical savepoint passed hashmap -> streamfusion -> rocksdb -> streamfusion, with every state
 * kind and timers. Each backend restores the previous one's savepoint, checks every key's state,
 * adds one update per key, and takes a canonical savepoint for the next. The last step also
 * rescales 1 -> 2 and fires the timers. This exercises Flink's and our Flink-format readers and
 * writers in both directions, in one JVM with Flink's frocksdb beside our RocksDB.
 */
class SavepointInterchangeTest {

    private static final long KEYS = 100;

    @TempDir Path dir;

    @Test
    void canonicalSavepointTravelsBetweenAllThreeBackends() throws Exception {
        StateBackend[] chain = {
            new HashMapStateBackend(), streamFusion(), rocksDb(), streamFusion()
        };
        OperatorSubtaskState savepoint = null;
        for (int step = 0; step < chain.length - 1; step++) {
            try (KeyedOneInputStreamOperatorTestHarness<Long, Tuple2<Long, Long>, String> harness =
                    KeyedHarnesses.harness(chain[step], 1, 0)) {
                if (savepoint != null) {
                    harness.initializeState(savepoint);
                }
                harness.open();
                List<Long> keys = KeyedHarnesses.keysOf(KEYS, 1, 0);
                assertEquals(
                        expected(keys, step),
                        probe(harness, keys),
                        "state after restore into " + chain[step]);
                for (long key : keys) {
                    harness.processElement(Tuple2.of(key, KeyedHarnesses.value(key, step + 1)), 0);
                }
                savepoint =
                        harness.snapshotWithLocalState(
                                        step + 1,
                                        step + 1,
                                        SavepointType.savepoint(SavepointFormatType.CANONICAL))
                                .getJobManagerOwnedState();
            }
        }
        int updates = chain.length - 1;
        long restoredKeys = 0;
        for (int subtask = 0; subtask < 2; subtask++) {
            try (KeyedOneInputStreamOperatorTestHarness<Long, Tuple2<Long, Long>, String> harness =
                    KeyedHarnesses.harness(chain[chain.length - 1], 2, subtask)) {
                harness.initializeState(
                        AbstractStreamOperatorTestHarness.repartitionOperatorState(
                                savepoint, KeyedHarnesses.MAX_PARALLELISM, 1, 2, subtask));
                harness.open();
                List<Long> keys = KeyedHarnesses.keysOf(KEYS, 2, subtask);
                assertEquals(
                        expected(keys, updates),
                        probe(harness, keys),
                        "state in subtask " + subtask);
                harness.processWatermark(Long.MAX_VALUE);
                List<String> timers = new ArrayList<>();
                for (long key : keys) {
                    timers.add(
                            "timer "
                                    + key
                                    + " at "
                                    + AllStateKindsFunction.timerTime(key)
                                    + " count="
                                    + updates);
                }
                List<String> output = harness.extractOutputValues();
                assertEquals(
                        timers,
                        output.subList(keys.size(), output.size()).stream()
                                .sorted(
                                        java.util.Comparator.comparingLong(
                                                line -> Long.parseLong(line.split(" ")[1])))
                                .toList());
                restoredKeys += keys.size();
            }
        }
        assertEquals(KEYS, restoredKeys);
    }

    private static List<String> expected(List<Long> keys, int updates) {
        List<String> lines = new ArrayList<>();
        for (long key : keys) {
            lines.add(
                    updates == 0
                            ? AllStateKindsFunction.describe(
                                    key, null, List.of(), java.util.Map.of(), null, null)
                            : KeyedHarnesses.expectedState(key, updates));
        }
        return lines;
    }

    private static List<String> probe(
            KeyedOneInputStreamOperatorTestHarness<Long, Tuple2<Long, Long>, String> harness,
            List<Long> keys)
            throws Exception {
        int before = harness.extractOutputValues().size();
        for (long key : keys) {
            harness.processElement(Tuple2.of(key, AllStateKindsFunction.PROBE), 0);
        }
        List<String> output = harness.extractOutputValues();
        return new ArrayList<>(output.subList(before, output.size()));
    }

    private StateBackend streamFusion() {
        Configuration config = new Configuration();
        config.setString(
                StreamFusionOptions.LOCAL_DIRECTORIES.key(),
                dir.resolve("streamfusion").toString());
        return new StreamFusionStateBackend().configure(config, getClass().getClassLoader());
    }

    private StateBackend rocksDb() {
        Configuration config = new Configuration();
        config.setString(RocksDBOptions.LOCAL_DIRECTORIES.key(), dir.resolve("rocksdb").toString());
        return new EmbeddedRocksDBStateBackend().configure(config, getClass().getClassLoader());
    }
}
