package io.streamfusion.demo;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.tuple.Tuple2;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps the highest count seen per key. Replayed records after a restore carry the same counts, so
 * the maximum is exact if and only if state was neither lost nor counted twice.
 */
final class MaxCountSink implements Sink<Tuple2<Long, Long>> {

    private static final long serialVersionUID = 1L;

    /** Shared with the demo driver; the MiniCluster runs in the same JVM. */
    static final Map<Long, Long> MAX_COUNTS = new ConcurrentHashMap<>();

    @Override
    public SinkWriter<Tuple2<Long, Long>> createWriter(WriterInitContext context) {
        return new SinkWriter<>() {
            @Override
            public void write(Tuple2<Long, Long> element, Context context) {
                MAX_COUNTS.merge(element.f0, element.f1, Math::max);
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
