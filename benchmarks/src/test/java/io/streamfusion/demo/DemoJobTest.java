package io.streamfusion.demo;

import io.streamfusion.backend.StreamFusionKeyedStateBackend;

import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.state.heap.HeapKeyedStateBackend;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs the demo job, a real Flink job on a MiniCluster, with each way of selecting StreamFusion,
 * and checks what the operator actually got: the keyed backend class, checkpoints, a restore at
 * another parallelism, exact counts, and state entries counted by the native side.
 */
class DemoJobTest {

    @TempDir Path dir;

    private static DemoJob.Options small(Path dir, String backendType) {
        return new DemoJob.Options(
                backendType, 6_000, 300, 2, 3, SavepointFormatType.CANONICAL, dir);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"streamfusion", "io.streamfusion.backend.StreamFusionStateBackendFactory"})
    void jobRunsOnStreamFusionCheckpointsAndRestoresExactly(String backendType) throws Exception {
        DemoJob.Report report = DemoJob.run(small(dir, backendType));

        String ours = StreamFusionKeyedStateBackend.class.getName();
        assertEquals(List.of(ours, ours), report.before().keyedBackendClasses());
        assertEquals(List.of(ours, ours, ours), report.after().keyedBackendClasses());
        assertTrue(
                report.before().checkpointsCompleted() >= 2,
                "checkpoints: " + report.before().checkpointsCompleted());
        assertEquals(Map.of(), report.wrongCounts());
        // Every key has exactly one entry in the restored native stores; counted natively.
        assertEquals(report.options().keys(), report.after().stateEntriesAtClose());
    }

    @Test
    void nativeSavepointRestoresAtAnotherParallelism() throws Exception {
        DemoJob.Report report =
                DemoJob.run(
                        small(dir, "streamfusion").withSavepointFormat(SavepointFormatType.NATIVE));
        assertEquals(3, report.after().keyedBackendClasses().size());
        assertEquals(Map.of(), report.wrongCounts());
        assertEquals(report.options().keys(), report.after().stateEntriesAtClose());
    }

    @Test
    void injectedFailureRecoversFromTheLastCheckpointExactlyOnce() throws Exception {
        DemoJob.Report report = DemoJob.runWithInjectedFailure(small(dir, "streamfusion"));
        assertEquals(
                StreamFusionKeyedStateBackend.class.getName(),
                report.after().keyedBackendClasses().get(0));
        assertEquals(Map.of(), report.wrongCounts());
    }

    @Test
    void sameJobOnHashmapGivesTheSameCounts() throws Exception {
        DemoJob.Report report = DemoJob.run(small(dir, "hashmap"));
        assertEquals(
                HeapKeyedStateBackend.class.getName(), report.after().keyedBackendClasses().get(0));
        assertEquals(Map.of(), report.wrongCounts());
    }
}
