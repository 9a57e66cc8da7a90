package io.streamfusion.migration;

import io.streamfusion.api.StreamFusionOptions;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One MiniCluster job with every state kind, event-time timers and session windows (merging
 * namespaces of list and aggregating state), run with checkpoints on StreamFusion and on {@code
 * hashmap}: the outputs must be identical.
 */
class AllStateKindsJobTest {

    private static final int KEYS = 50;
    private static final Duration SESSION_GAP = Duration.ofMillis(10);

    private static final org.apache.flink.api.common.typeinfo.TypeInformation<Tuple2<Long, Long>>
            SUM_AND_COUNT = Types.TUPLE(Types.LONG, Types.LONG);

    @TempDir Path dir;

    @Test
    void streamFusionAndHashmapProduceIdenticalResults() throws Exception {
        List<String> onStreamFusion = run("streamfusion");
        List<String> onHashmap = run("hashmap");
        // Probes and timers for every key, plus two sessions per key from each window function.
        assertEquals(KEYS * 2 + KEYS * 2 * 2, onHashmap.size(), "hashmap output: " + onHashmap);
        if (!onHashmap.equals(onStreamFusion)) {
            List<String> onlyHashmap = new ArrayList<>(onHashmap);
            onlyHashmap.removeAll(onStreamFusion);
            List<String> onlyStreamFusion = new ArrayList<>(onStreamFusion);
            onlyStreamFusion.removeAll(onHashmap);
            assertEquals(
                    onlyHashmap,
                    onlyStreamFusion,
                    "lines that differ between hashmap and streamfusion");
        }
        assertTrue(
                onStreamFusion.contains(
                        "session 7 [7000, 7018) sum=" + (70 + 71 + 72) + " count=3"),
                onStreamFusion.toString());
    }

    /**
     * Events {@code (key, value, timestamp)}: per key, three values close together, one later, then
     * a probe.
     */
    private static List<Tuple3<Long, Long, Long>> events() {
        List<Tuple3<Long, Long, Long>> events = new ArrayList<>();
        long[] offsets = {0, 5, 8, 50};
        for (long round = 0; round < offsets.length; round++) {
            for (long key = 0; key < KEYS; key++) {
                events.add(Tuple3.of(key, key * 10 + round, key * 1000 + offsets[(int) round]));
            }
        }
        for (long key = 0; key < KEYS; key++) {
            events.add(Tuple3.of(key, AllStateKindsFunction.PROBE, KEYS * 1000L + 100));
        }
        events.sort((a, b) -> Long.compare(a.f2, b.f2));
        return events;
    }

    private List<String> run(String backend) throws Exception {
        Configuration config = new Configuration();
        config.set(StateBackendOptions.STATE_BACKEND, backend);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(100));
        config.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                dir.resolve(backend).toUri().toString());
        config.setString(
                StreamFusionOptions.LOCAL_DIRECTORIES.key(),
                dir.resolve(backend + "-work").toString());
        config.setString("parallelism.default", "2");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);

        DataStream<Tuple3<Long, Long, Long>> events =
                env.fromData(events())
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy
                                        .<Tuple3<Long, Long, Long>>forMonotonousTimestamps()
                                        .withTimestampAssigner((event, previous) -> event.f2));
        DataStream<String> states =
                events.map(
                                event -> Tuple2.of(event.f0, event.f1),
                                Types.TUPLE(Types.LONG, Types.LONG))
                        // Chained to the source, so each key's updates and probe stay in order.
                        .setParallelism(1)
                        .keyBy(event -> event.f0, Types.LONG)
                        .process(new AllStateKindsFunction(), Types.STRING);
        DataStream<Tuple3<Long, Long, Long>> updates =
                events.filter(event -> event.f1 != AllStateKindsFunction.PROBE);
        DataStream<String> aggregated =
                updates.keyBy(event -> event.f0, Types.LONG)
                        .window(EventTimeSessionWindows.withGap(SESSION_GAP))
                        .aggregate(
                                new SumAndCount(),
                                new DescribeSession("session"),
                                SUM_AND_COUNT,
                                SUM_AND_COUNT,
                                Types.STRING);
        DataStream<String> listed =
                updates.keyBy(event -> event.f0, Types.LONG)
                        .window(EventTimeSessionWindows.withGap(SESSION_GAP))
                        .process(new ListSession(), Types.STRING);

        List<String> output = new ArrayList<>();
        try (CloseableIterator<String> results =
                states.union(aggregated, listed).executeAndCollect()) {
            results.forEachRemaining(output::add);
        }
        Collections.sort(output);
        return output;
    }

    /** Sum and count of a session, kept in aggregating state that session merges fold together. */
    private static final class SumAndCount
            implements AggregateFunction<
                    Tuple3<Long, Long, Long>, Tuple2<Long, Long>, Tuple2<Long, Long>> {
        @Override
        public Tuple2<Long, Long> createAccumulator() {
            return Tuple2.of(0L, 0L);
        }

        @Override
        public Tuple2<Long, Long> add(Tuple3<Long, Long, Long> event, Tuple2<Long, Long> acc) {
            return Tuple2.of(acc.f0 + event.f1, acc.f1 + 1);
        }

        @Override
        public Tuple2<Long, Long> getResult(Tuple2<Long, Long> acc) {
            return acc;
        }

        @Override
        public Tuple2<Long, Long> merge(Tuple2<Long, Long> a, Tuple2<Long, Long> b) {
            return Tuple2.of(a.f0 + b.f0, a.f1 + b.f1);
        }
    }

    private static final class DescribeSession
            extends ProcessWindowFunction<Tuple2<Long, Long>, String, Long, TimeWindow> {
        private final String label;

        DescribeSession(String label) {
            this.label = label;
        }

        @Override
        public void process(
                Long key,
                Context context,
                Iterable<Tuple2<Long, Long>> sums,
                Collector<String> out) {
            Tuple2<Long, Long> sum = sums.iterator().next();
            out.collect(
                    label
                            + " "
                            + key
                            + " ["
                            + context.window().getStart()
                            + ", "
                            + context.window().getEnd()
                            + ") sum="
                            + sum.f0
                            + " count="
                            + sum.f1);
        }
    }

    /** Lists a session's values, kept in list state that session merges append together. */
    private static final class ListSession
            extends ProcessWindowFunction<Tuple3<Long, Long, Long>, String, Long, TimeWindow> {
        @Override
        public void process(
                Long key,
                Context context,
                Iterable<Tuple3<Long, Long, Long>> events,
                Collector<String> out) {
            List<Long> values = new ArrayList<>();
            events.forEach(event -> values.add(event.f1));
            Collections.sort(values);
            out.collect(
                    "list "
                            + key
                            + " ["
                            + context.window().getStart()
                            + ", "
                            + context.window().getEnd()
                            + ") "
                            + values);
        }
    }
}
