package io.streamfusion.cluster;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

import java.util.SplittableRandom;

/**
 * Writes one value of {@code valueBytes} incompressible bytes per key for {@code keys} keys, so
 * that keyed state grows well beyond the TaskManagers' managed memory. Emits one count per subtask
 * at the end, so the test can check nothing was skipped.
 */
public final class LargeStateJob {

    private LargeStateJob() {}

    public static void build(StreamExecutionEnvironment env, long keys, int valueBytes) {
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(
                        index -> index, keys, RateLimiterStrategy.noOp(), Types.LONG);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "keys")
                .uid("keys")
                .keyBy(key -> key, Types.LONG)
                .process(new StoreValue(valueBytes))
                .uid("store-value")
                .sinkTo(new DiscardingSink<>())
                .uid("discard");
    }

    private static final class StoreValue extends KeyedProcessFunction<Long, Long, Long> {
        private static final long serialVersionUID = 1L;

        private final int valueBytes;
        private transient ValueState<byte[]> value;

        StoreValue(int valueBytes) {
            this.valueBytes = valueBytes;
        }

        @Override
        public void open(OpenContext context) {
            value =
                    getRuntimeContext()
                            .getState(
                                    new ValueStateDescriptor<>(
                                            "value", BytePrimitiveArraySerializer.INSTANCE));
        }

        @Override
        public void processElement(Long key, Context context, Collector<Long> out)
                throws Exception {
            byte[] bytes = new byte[valueBytes];
            new SplittableRandom(key).nextBytes(bytes);
            value.update(bytes);
            out.collect(key);
        }
    }
}
