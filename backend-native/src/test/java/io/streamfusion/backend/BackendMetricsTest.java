package io.streamfusion.backend;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.fs.Path;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.RunnableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The backend's gauges report real native figures, and zero once it is disposed. */
class BackendMetricsTest {

    @TempDir File dir;

    private static long value(Map<String, Metric> metrics, String name) {
        Metric metric = metrics.get("streamfusion." + name);
        assertTrue(metric != null, "gauge " + name + " registered; have " + metrics.keySet());
        return (Long) ((Gauge<?>) metric).getValue();
    }

    @Test
    void gaugesFollowTheNativeStore() throws Exception {
        Map<String, Metric> metrics = new HashMap<>();
        MockEnvironment env = TestKeyedBackends.environment();
        StreamFusionKeyedStateBackend<Long> backend =
                TestKeyedBackends.in(env, dir)
                        .metrics(new CapturingMetricGroup(metrics))
                        .build(LongSerializer.INSTANCE);
        try {
            assertEquals(
                    backend.slotMemory().totalBytes(), value(metrics, "slotMemoryBudgetBytes"));
            assertEquals(-1, value(metrics, "lastCheckpointSyncMillis"));
            ValueState<String> state =
                    backend.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new ValueStateDescriptor<>("v", StringSerializer.INSTANCE));
            String payload = "x".repeat(200);
            for (long key = 0; key < 10_000; key++) {
                backend.setCurrentKey(key);
                state.update(payload);
            }
            assertTrue(value(metrics, "memtableBytes") > 0);
            assertTrue(value(metrics, "writeBufferUsageBytes") > 0);
            assertEquals(0, value(metrics, "sstBytes"));
            backend.nativeStore().flush();
            assertTrue(value(metrics, "sstBytes") > 0);

            RunnableFuture<SnapshotResult<KeyedStateHandle>> snapshot =
                    backend.snapshot(
                            1L,
                            1L,
                            new FileSystemCheckpointStorage(
                                            new Path(new File(dir, "cp").toURI()), 0, -1)
                                    .createCheckpointStorage(new JobID())
                                    .resolveCheckpointStorageLocation(
                                            1L, CheckpointStorageLocationReference.getDefault()),
                            CheckpointOptions.forCheckpointWithDefaultLocation());
            snapshot.run();
            snapshot.get();
            assertTrue(value(metrics, "lastCheckpointSyncMillis") >= 0);
            assertTrue(value(metrics, "lastCheckpointAsyncMillis") >= 0);
        } finally {
            backend.dispose();
            env.close();
        }
        assertEquals(0, value(metrics, "sstBytes"));
    }
}
