package io.streamfusion.backend;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.RunnableFuture;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A native checkpoint's files are linked in the asynchronous phase, after the task has gone on
 * writing: the checkpoint holds exactly the writes before the barrier, and one whose upload never
 * runs leaves no directory behind.
 */
class DeferredCheckpointTest extends MockEnvironmentTestBase {

    /** Enough updated keys to fill several memtables of the test slot after the barrier. */
    private static final long KEYS = 200_000;

    @TempDir File dir;
    private final ValueStateDescriptor<Long> descriptor =
            new ValueStateDescriptor<>("values", LongSerializer.INSTANCE);

    private StreamFusionKeyedStateBackend<Long> backend(Collection<KeyedStateHandle> handles)
            throws Exception {
        return TestKeyedBackends.in(env, new File(dir, "work"))
                .restoring(handles)
                .build(LongSerializer.INSTANCE);
    }

    private ValueState<Long> state(StreamFusionKeyedStateBackend<Long> backend) throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    private void write(StreamFusionKeyedStateBackend<Long> backend, long toKey, long factor)
            throws Exception {
        ValueState<Long> state = state(backend);
        for (long key = 0; key < toKey; key++) {
            backend.setCurrentKey(key);
            state.update(key * factor);
        }
    }

    private RunnableFuture<SnapshotResult<KeyedStateHandle>> synchronousPhase(
            StreamFusionKeyedStateBackend<Long> backend, long id) throws Exception {
        return backend.snapshot(
                id,
                id,
                TestSnapshots.fileStreams(new File(dir, "checkpoints"), id),
                CheckpointOptions.forCheckpointWithDefaultLocation());
    }

    private List<Path> checkpointDirectories() throws IOException {
        try (Stream<Path> paths = Files.walk(new File(dir, "work").toPath())) {
            return paths.filter(Files::isDirectory)
                    .filter(path -> path.getFileName().toString().startsWith("chk-"))
                    .toList();
        }
    }

    @Test
    void writesAfterTheSynchronousPhaseStayOutOfTheCheckpoint() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend = backend(List.of());
        KeyedStateHandle handle;
        try {
            write(backend, KEYS / 2, 1);
            RunnableFuture<SnapshotResult<KeyedStateHandle>> upload = synchronousPhase(backend, 1);
            write(backend, KEYS, 2);
            // A flush is a write to RocksDB too: it must link the checkpoint's files first.
            backend.nativeStore().flush();
            upload.run();
            handle = upload.get().getJobManagerOwnedSnapshot();
        } finally {
            backend.dispose();
        }
        StreamFusionKeyedStateBackend<Long> restored = backend(List.of(handle));
        try {
            ValueState<Long> state = state(restored);
            for (long key = 0; key < KEYS; key += 997) {
                restored.setCurrentKey(key);
                if (key < KEYS / 2) {
                    assertEquals(key, state.value(), "key " + key);
                } else {
                    assertNull(state.value(), "key " + key + " was written after the barrier");
                }
            }
            assertEquals(KEYS / 2, restored.numKeyValueStateEntries());
        } finally {
            restored.dispose();
        }
    }

    @Test
    void aCancelledUploadLeavesNoDirectoryAndTheNextCheckpointWorks() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend = backend(List.of());
        KeyedStateHandle handle;
        try {
            write(backend, KEYS / 10, 1);
            RunnableFuture<SnapshotResult<KeyedStateHandle>> abandoned =
                    synchronousPhase(backend, 1);
            assertTrue(abandoned.cancel(true));
            write(backend, KEYS, 3);
            backend.nativeStore().flush();
            assertEquals(List.of(), checkpointDirectories());

            RunnableFuture<SnapshotResult<KeyedStateHandle>> upload = synchronousPhase(backend, 2);
            upload.run();
            handle = upload.get().getJobManagerOwnedSnapshot();
            assertEquals(List.of(), checkpointDirectories());
        } finally {
            backend.dispose();
        }
        StreamFusionKeyedStateBackend<Long> restored = backend(List.of(handle));
        try {
            ValueState<Long> state = state(restored);
            restored.setCurrentKey(KEYS - 1);
            assertEquals((KEYS - 1) * 3, state.value());
            assertEquals(KEYS, restored.numKeyValueStateEntries());
        } finally {
            restored.dispose();
        }
    }
}
