package io.streamfusion.bench.sql;

import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rows every SQL benchmark reads: {@code (g BIGINT, k BIGINT, v BIGINT, payload)} for row
 * number {@code i}. {@code g = i mod groups} is the upstream group, {@code k = g mod keys} the key,
 * and {@code v} grows with {@code i} for improving arrivals (each row beats the current Top-1
 * winner of its key) or shrinks for rejected ones (each row loses to it).
 *
 * <p>Rows are Flink's internal {@code BinaryRowData}, as a table connector's format produces them,
 * so the source's own cost is small next to the operators the suites measure: an external {@code
 * Row} with a {@code String} payload cost the source thread its conversion and a UTF-8 encoding of
 * the payload per row.
 *
 * <p>Rows are counted in a JVM-wide counter because the benchmark runs the job on an embedded
 * MiniCluster: the source's rate under backpressure is the job's throughput.
 */
public final class GeneratedRows implements GeneratorFunction<Long, RowData> {

    private static final long serialVersionUID = 1L;
    private static final AtomicLong EMITTED = new AtomicLong();
    private static final String[] FIELD_NAMES = {"g", "k", "v", "payload"};

    private final long groups;
    private final long keys;
    private final boolean improving;
    private final int payloadChars;
    private transient byte[] payload;

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

    /** The rows' type, with {@code payload} of the given SQL type (a string type). */
    public static InternalTypeInfo<RowData> type(String payloadType) {
        LogicalType[] fields = {
            new BigIntType(),
            new BigIntType(),
            new BigIntType(),
            LogicalTypeParser.parse(payloadType, GeneratedRows.class.getClassLoader())
        };
        return InternalTypeInfo.of(RowType.of(fields, FIELD_NAMES));
    }

    /** Rows emitted by every generator in this JVM since it started. */
    public static long emitted() {
        return EMITTED.get();
    }

    @Override
    public RowData map(Long index) {
        long i = index;
        long group = i % groups;
        EMITTED.incrementAndGet();
        BinaryRowData row = new BinaryRowData(FIELD_NAMES.length);
        BinaryRowWriter writer = new BinaryRowWriter(row, payloadChars);
        writer.writeLong(0, group);
        writer.writeLong(1, group % keys);
        writer.writeLong(2, improving ? i : -i);
        writer.writeString(3, BinaryStringData.fromBytes(payload(i)));
        writer.complete();
        return row;
    }

    /**
     * A fixed-width ASCII payload that differs per row: the row number's digits at the end. The
     * buffer is reused; the writer copies it into each row.
     */
    private byte[] payload(long i) {
        if (payload == null) {
            payload = new byte[payloadChars];
            Arrays.fill(payload, (byte) 'p');
        }
        long rest = i;
        for (int at = payloadChars - 1; at >= 0 && rest > 0; at--) {
            payload[at] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        return payload;
    }
}
