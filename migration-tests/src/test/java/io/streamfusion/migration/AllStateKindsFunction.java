package io.streamfusion.migration;

import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.AggregatingState;
import org.apache.flink.api.common.state.AggregatingStateDescriptor;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReducingState;
import org.apache.flink.api.common.state.ReducingStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Keeps one state of every kind per key, plus an event-time timer, so a test can check after a
 * restore or rescale that each key's whole state arrived where Flink's key-group assignment puts
 * it. Input {@code (key, value)} with {@code value >= 0} updates the states; {@code value == PROBE}
 * emits the key's state as a line, and a timer emits a line when it fires.
 */
public class AllStateKindsFunction extends KeyedProcessFunction<Long, Tuple2<Long, Long>, String> {

    private static final long serialVersionUID = 1L;

    public static final long PROBE = -1;

    private transient ValueState<Long> count;
    private transient ListState<Long> values;
    private transient MapState<Long, Long> valueCounts;
    private transient ReducingState<Long> sum;
    private transient AggregatingState<Long, Long> max;

    /**
     * Timer time for a key: distinct per key so firings can be told apart, and later than any event
     * the tests send, so every timer fires at the end of input, after all updates.
     */
    public static long timerTime(long key) {
        return 1_000_000_000L + key;
    }

    @Override
    public void open(OpenContext openContext) {
        count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        values = getRuntimeContext().getListState(new ListStateDescriptor<>("values", Types.LONG));
        valueCounts =
                getRuntimeContext()
                        .getMapState(
                                new MapStateDescriptor<>("value-counts", Types.LONG, Types.LONG));
        sum =
                getRuntimeContext()
                        .getReducingState(
                                new ReducingStateDescriptor<>("sum", Long::sum, Types.LONG));
        max =
                getRuntimeContext()
                        .getAggregatingState(
                                new AggregatingStateDescriptor<>("max", new Max(), Types.LONG));
    }

    @Override
    public void processElement(Tuple2<Long, Long> event, Context ctx, Collector<String> out)
            throws Exception {
        if (event.f1 == PROBE) {
            out.collect(describe(event.f0));
            return;
        }
        Long current = count.value();
        count.update(current == null ? 1 : current + 1);
        values.add(event.f1);
        Long seen = valueCounts.get(event.f1 % 3);
        valueCounts.put(event.f1 % 3, seen == null ? 1 : seen + 1);
        sum.add(event.f1);
        max.add(event.f1);
        ctx.timerService().registerEventTimeTimer(timerTime(event.f0));
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<String> out)
            throws Exception {
        out.collect(
                "timer " + ctx.getCurrentKey() + " at " + timestamp + " count=" + count.value());
    }

    private String describe(long key) throws Exception {
        List<Long> list = new ArrayList<>();
        Iterable<Long> stored = values.get();
        if (stored != null) {
            stored.forEach(list::add);
        }
        Map<Long, Long> map = new TreeMap<>();
        for (Map.Entry<Long, Long> e : valueCounts.entries()) {
            map.put(e.getKey(), e.getValue());
        }
        return describe(key, count.value(), list, map, sum.get(), max.get());
    }

    /** The line a probe emits; tests build the expected one with the same method. */
    public static String describe(
            long key, Long count, List<Long> list, Map<Long, Long> map, Long sum, Long max) {
        return "key=" + key + " count=" + count + " list=" + list + " map=" + map + " sum=" + sum
                + " max=" + max;
    }

    /** Maximum as an AggregateFunction, to exercise AggregatingState. */
    public static final class Max implements AggregateFunction<Long, Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long createAccumulator() {
            return Long.MIN_VALUE;
        }

        @Override
        public Long add(Long value, Long accumulator) {
            return Math.max(value, accumulator);
        }

        @Override
        public Long getResult(Long accumulator) {
            return accumulator;
        }

        @Override
        public Long merge(Long a, Long b) {
            return Math.max(a, b);
        }
    }
}
