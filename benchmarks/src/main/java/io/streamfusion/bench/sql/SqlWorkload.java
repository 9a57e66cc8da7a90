package io.streamfusion.bench.sql;

import java.util.Map;

/**
 * One end-to-end SQL job of the benchmark: the generated input, the sink table, the query, and the
 * table options it runs with. A workload with {@code rows > 0} is a complete (bounded) job measured
 * from start to end; otherwise it is an unbounded job measured over fixed windows.
 *
 * @param startupIncluded for a complete job, whether its time runs from submission (as a user waits
 *     for it) rather than over Flink's net job runtime
 * @param payloadType the SQL type the source declares for {@code payload}; a declared length the
 *     values exceed gives a sink's length constraint something to trim
 * @param rowTime whether the source declares the row-time attribute {@code rt}, {@code v} read as
 *     epoch milliseconds, with a watermark one second behind it
 */
public record SqlWorkload(
        String suite,
        String caseName,
        long keys,
        long groups,
        int payloadChars,
        boolean improving,
        long rows,
        boolean startupIncluded,
        String sinkDdl,
        String insertSql,
        Map<String, String> tableOptions,
        String payloadType,
        boolean rowTime) {

    /** A workload whose source declares {@code payload} as {@code STRING}, without row time. */
    public SqlWorkload(
            String suite,
            String caseName,
            long keys,
            long groups,
            int payloadChars,
            boolean improving,
            long rows,
            boolean startupIncluded,
            String sinkDdl,
            String insertSql,
            Map<String, String> tableOptions) {
        this(
                suite,
                caseName,
                keys,
                groups,
                payloadChars,
                improving,
                rows,
                startupIncluded,
                sinkDdl,
                insertSql,
                tableOptions,
                "STRING",
                false);
    }

    public boolean bounded() {
        return rows > 0;
    }

    GeneratedRows generator() {
        return new GeneratedRows(groups, keys, improving, payloadChars);
    }
}
