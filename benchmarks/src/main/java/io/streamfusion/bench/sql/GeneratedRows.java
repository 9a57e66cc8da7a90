package io.streamfusion.bench.sql;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.types.Row;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rows every SQL benchmark reads: {@code (g BIGINT, k BIGINT, v BIGINT, payload STRING)} for
 * row number {@code i}. {@code g = i mod groups} is the upstream group, {@code k = g mod keys} the
 * key, and {@code v} grows with {@code i} for improving arrivals (each row beats the current Top-1
 * winner of its key) or shrinks for rejected ones (each row loses to it).
 *
 * <p>Rows are counted in a JVM-wide counter because the benchmark runs the job on an embedded
 * MiniCluster: the source's rate under backpressure is the job's throughput.
 */
public final class GeneratedRows implements GeneratorFunction<Long, Row> {

    private static final long serialVersionUID = 1L;
    private static final AtomicLong EMITTED = new AtomicLong();

    private final long groups;
    private final long keys;
    private final boolean improving;
    private final int payloadChars;
    private transient char[] payload;

    public GeneratedRows(long groups, long keys, boolean improving, int payloadChars) {
        if (groups < keys || keys <= 0 || payloadChars < 1) {
            throw new IllegalArgumentException(
                    "Need groups >= keys > 0 and a payload of at least one character");
        }
        this.groups = groups;
        this.keys = keys;
        this.improving = improving;
        this.payloadChars = payloadChars;
    }

    public static TypeInformation<Row> type() {
        return Types.ROW_NAMED(
                new String[] {"g", "k", "v", "payload"},
                Types.LONG,
                Types.LONG,
                Types.LONG,
                Types.STRING);
    }

    /** Rows emitted by every generator in this JVM since it started. */
    public static long emitted() {
        return EMITTED.get();
    }

    @Override
    public Row map(Long index) {
        long i = index;
        long group = i % groups;
        EMITTED.incrementAndGet();
        return Row.of(group, group % keys, improving ? i : -i, payload(i));
    }

    /** A fixed-width payload that differs per row: the row number's digits at the end. */
    private String payload(long i) {
        if (payload == null) {
            payload = new char[payloadChars];
            Arrays.fill(payload, 'p');
        }
        long rest = i;
        for (int at = payloadChars - 1; at >= 0 && rest > 0; at--) {
            payload[at] = (char) ('0' + rest % 10);
            rest /= 10;
        }
        return new String(payload);
    }
}
