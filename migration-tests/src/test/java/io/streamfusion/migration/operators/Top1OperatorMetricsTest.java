package io.streamfusion.migration.operators;

import io.streamfusion.operators.OperatorOptions;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The Top-1 operator's metrics as a reporter sees them, read after the job ended (the reporter
 * retains them), so also after the ranker behind the cache gauge was closed.
 */
class Top1OperatorMetricsTest {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            OperatorTestClusters.oneTaskManager(
                    1, "512m", REPORTER.addToConfiguration(new Configuration()));

    @TempDir Path dir;

    @Test
    void theCacheAnswersEveryLookupAfterAKeysFirst() throws Exception {
        int keys = 8;
        int batches = 100;
        // Every batch holds each key once, so each batch looks every key up once; only the first
        // batch's lookups go to the state, the later ones find the winners it wrote in the cache.
        List<Row> rows = new ArrayList<>();
        for (int batch = 0; batch < batches; batch++) {
            for (int key = 0; key < keys; key++) {
                rows.add(Row.of(key, (long) batch));
            }
        }
        String run = "metrics-" + UUID.randomUUID();
        JobClient job =
                ScriptedTop1Job.submit(
                        dir.resolve("work"),
                        run,
                        rows,
                        Long.MAX_VALUE,
                        -1,
                        Map.of(
                                OperatorOptions.BATCH_ROWS.key(),
                                String.valueOf(keys),
                                OperatorOptions.BATCH_LATENCY.key(),
                                "1 h"));
        job.getJobExecutionResult().get();
        JobID id = job.getJobID();

        assertEquals(keys * batches, counter(id, "streamfusionRowsProcessed"));
        assertEquals(batches, counter(id, "streamfusionBatchesProcessed"));
        assertEquals(
                (batches - 1) / (double) batches,
                (Double) ((Gauge<?>) metric(id, "topn\\.cache\\.hitRate")).getValue(),
                1e-12);
        ScriptedRows.forget(run);
        CollectingSinkFactory.forget(run);
    }

    private static long counter(JobID job, String name) {
        return ((Counter) metric(job, name)).getCount();
    }

    private static Metric metric(JobID job, String name) {
        Map<String, Metric> found = REPORTER.findMetrics(job, ".*\\." + name);
        assertEquals(1, found.size(), "metrics named " + name + ": " + found.keySet());
        return found.values().iterator().next();
    }
}
