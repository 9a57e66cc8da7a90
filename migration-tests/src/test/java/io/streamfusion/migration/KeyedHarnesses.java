package io.streamfusion.migration;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Shared pieces of the harness-level tests: the harness, key ownership, expected state. */
final class KeyedHarnesses {

    static final int MAX_PARALLELISM = 128;

    private KeyedHarnesses() {}

    static KeyedOneInputStreamOperatorTestHarness<Long, Tuple2<Long, Long>, String> harness(
            StateBackend backend, int parallelism, int subtask) throws Exception {
        KeyedOneInputStreamOperatorTestHarness<Long, Tuple2<Long, Long>, String> harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new AllStateKindsFunction()),
                        event -> event.f0,
                        Types.LONG,
                        MAX_PARALLELISM,
                        parallelism,
                        subtask);
        harness.setStateBackend(backend);
        harness.setCheckpointStorage(new JobManagerCheckpointStorage());
        return harness;
    }

    /** Keys in {@code [0, keys)} that Flink assigns to {@code subtask}. */
    static List<Long> keysOf(long keys, int parallelism, int subtask) {
        List<Long> owned = new ArrayList<>();
        for (long key = 0; key < keys; key++) {
            if (KeyGroupRangeAssignment.assignKeyToParallelOperator(
                            key, MAX_PARALLELISM, parallelism)
                    == subtask) {
                owned.add(key);
            }
        }
        return owned;
    }

    /** The value written as the {@code i}-th (from 1) update of {@code key}. */
    static long value(long key, long i) {
        return key * 10 + i;
    }

    /** What a probe of {@code key} prints after {@code updates} updates. */
    static String expectedState(long key, int updates) {
        List<Long> list = new ArrayList<>();
        for (long i = 1; i <= updates; i++) {
            list.add(value(key, i));
        }
        Map<Long, Long> map = new TreeMap<>();
        for (long v : list) {
            map.merge(v % 3, 1L, Long::sum);
        }
        long sum = list.stream().mapToLong(Long::longValue).sum();
        return AllStateKindsFunction.describe(
                key, (long) updates, list, map, sum, value(key, updates));
    }
}
