package io.streamfusion.backend;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.BackendBuildingException;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.RunnableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A checkpoint file that is missing or truncated fails the restore with an error naming the file. */
class CorruptSnapshotTest {

    @TempDir File dir;
    private MockEnvironment env;

    @BeforeEach
    void createEnvironment() {
        env = TestKeyedBackends.environment();
    }

    @AfterEach
    void closeEnvironment() throws Exception {
        env.close();
    }

    private final ValueStateDescriptor<Long> descriptor = new ValueStateDescriptor<>("count", LongSerializer.INSTANCE);

    /** Writes 1,000 keys and takes a full checkpoint to files; returns its handle. */
    private KeyedStateHandle checkpoint() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend =
                TestKeyedBackends.create(env, new File(dir, "work"), LongSerializer.INSTANCE);
        try {
            ValueState<Long> state =
                    backend.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
            for (long key = 0; key < 1_000; key++) {
                backend.setCurrentKey(key);
                state.update(key * 2);
            }
            CheckpointStreamFactory streams =
                    new FileSystemCheckpointStorage(new Path(new File(dir, "checkpoints").toURI()), 0, -1)
                            .createCheckpointStorage(new JobID())
                            .resolveCheckpointStorageLocation(1L, CheckpointStorageLocationReference.getDefault());
            RunnableFuture<SnapshotResult<KeyedStateHandle>> snapshot =
                    backend.snapshot(1L, 1L, streams, CheckpointOptions.forCheckpointWithDefaultLocation());
            snapshot.run();
            return snapshot.get().getJobManagerOwnedSnapshot();
        } finally {
            backend.dispose();
        }
    }

    private static File fileOf(KeyedStateHandle handle) {
        return new File(((FileStateHandle) ((KeyGroupsStateHandle) handle).getDelegateStateHandle()).getFilePath().getPath());
    }

    private void assertRestoreNamesFile(KeyedStateHandle handle, File file) {
        BackendBuildingException e =
                assertThrows(
                        BackendBuildingException.class,
                        () -> TestKeyedBackends.restore(env, new File(dir, "restored"), LongSerializer.INSTANCE, List.of(handle)));
        assertTrue(e.getMessage().contains(file.getPath()), e.getMessage());
        assertTrue(e.getMessage().contains("missing, truncated or corrupt"), e.getMessage());
    }

    @Test
    void intactCheckpointRestores() throws Exception {
        StreamFusionKeyedStateBackend<Long> restored =
                TestKeyedBackends.restore(env, new File(dir, "restored"), LongSerializer.INSTANCE, List.of(checkpoint()));
        try {
            ValueState<Long> state =
                    restored.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
            restored.setCurrentKey(321L);
            assertEquals(642L, state.value());
            assertEquals(1_000, restored.numKeyValueStateEntries());
        } finally {
            restored.dispose();
        }
    }

    @Test
    void truncatedCheckpointFileIsNamed() throws Exception {
        KeyedStateHandle handle = checkpoint();
        File file = fileOf(handle);
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw")) {
            raf.setLength(file.length() / 2);
        }
        assertRestoreNamesFile(handle, file);
    }

    @Test
    void missingCheckpointFileIsNamed() throws Exception {
        KeyedStateHandle handle = checkpoint();
        File file = fileOf(handle);
        Files.delete(file.toPath());
        assertRestoreNamesFile(handle, file);
    }
}
