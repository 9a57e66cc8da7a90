package io.streamfusion.migration.operators;

import io.streamfusion.operators.OperatorOptions;
import io.streamfusion.operators.batch.BatchAllocators;

import org.apache.flink.core.execution.JobClient;
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
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every Arrow buffer of a columnar operator is released when its task ends, not only on success: a
 * cancelled job whose operator still holds an unfinished batch, and a job that fails while the
 * operator is emitting, leave no Arrow memory behind (the operators' allocators would also fail the
 * task on a buffer released twice or never).
 */
class ArrowMemoryReleaseTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = OperatorTestClusters.oneTaskManager(2, "512m");

    @TempDir Path dir;

    @Test
    void aCancelledJobReleasesTheBatchItHeld() throws Exception {
        String run = "cancelled-" + UUID.randomUUID();
        // Rows wait in the batch: it is neither full nor old enough to be processed.
        JobClient job = submit(run, 1_000, OperatorOptions.BATCH_LATENCY.key(), "1 h", -1);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (BatchAllocators.allocatedBytes() == 0) {
            assertTrue(System.nanoTime() < deadline, "the operator never held a batch");
            Thread.sleep(5);
        }
        job.cancel().get();
        while (!job.getJobStatus().get().isGloballyTerminalState()) {
            Thread.sleep(5);
        }
        assertEquals(
                0, BatchAllocators.allocatedBytes(), "Arrow bytes left after the cancelled job");
        ScriptedRows.forget(run);
    }

    @Test
    void aFailedJobReleasesEveryBuffer() throws Exception {
        String run = "failed-" + UUID.randomUUID();
        JobClient job = submit(run, Long.MAX_VALUE, OperatorOptions.BATCH_ROWS.key(), "16", 3);
        assertThrows(ExecutionException.class, () -> job.getJobExecutionResult().get());
        assertEquals(0, BatchAllocators.allocatedBytes(), "Arrow bytes left after the failed job");
        ScriptedRows.forget(run);
        CollectingSinkFactory.forget(run);
    }

    private JobClient submit(
            String run, long openRows, String optionKey, String optionValue, int sinkFailsAfter) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            rows.add(Row.of(i % 97, (long) i));
        }
        return ScriptedTop1Job.submit(
                dir.resolve("work"),
                run,
                rows,
                openRows,
                sinkFailsAfter,
                Map.of(optionKey, optionValue));
    }
}
