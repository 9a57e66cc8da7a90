package io.streamfusion.backend;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CheckpointType;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.state.CheckpointStateOutputStream;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PlaceholderStreamStateHandle;
import org.apache.flink.runtime.state.SharedStateRegistryImpl;
import org.apache.flink.runtime.state.StreamStateHandle;
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
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Incremental checkpoints reference the SST files of the last confirmed checkpoint instead of
 * uploading them again, and only those; savepoints and full checkpoints share nothing; a failed
 * upload leaves nothing behind.
 */
class IncrementalCheckpointTest extends MockEnvironmentTestBase {

    private static final long KEYS = 20_000;

    @TempDir File dir;
    private final ValueStateDescriptor<Long> descriptor =
            new ValueStateDescriptor<>("values", LongSerializer.INSTANCE);

    private StreamFusionKeyedStateBackend<Long> backend(
            boolean incremental, Collection<KeyedStateHandle> handles) throws Exception {
        Configuration config = new Configuration();
        config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, incremental);
        return TestKeyedBackends.in(env, new File(dir, "work"))
                .restoring(handles)
                .config(config)
                .build(LongSerializer.INSTANCE);
    }

    private void write(
            StreamFusionKeyedStateBackend<Long> backend, long fromKey, long toKey, long factor)
            throws Exception {
        ValueState<Long> state = state(backend);
        for (long key = fromKey; key < toKey; key++) {
            backend.setCurrentKey(key);
            state.update(key * factor);
        }
    }

    private ValueState<Long> state(StreamFusionKeyedStateBackend<Long> backend) throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    private CheckpointStreamFactory streams(long checkpointId) throws IOException {
        return TestSnapshots.fileStreams(new File(dir, "checkpoints"), checkpointId);
    }

    private static IncrementalRemoteKeyedStateHandle checkpoint(
            StreamFusionKeyedStateBackend<?> backend, long id, CheckpointStreamFactory streams)
            throws Exception {
        return (IncrementalRemoteKeyedStateHandle) TestSnapshots.checkpoint(backend, id, streams);
    }

    private static long placeholders(IncrementalRemoteKeyedStateHandle handle) {
        return Stream.concat(handle.getSharedState().stream(), handle.getPrivateState().stream())
                .filter(file -> file.getHandle() instanceof PlaceholderStreamStateHandle)
                .count();
    }

    private static long sstFiles(List<HandleAndLocalPath> files) {
        return files.stream().filter(file -> file.getLocalPath().endsWith(".sst")).count();
    }

    @Test
    void confirmedFilesAreReferencedAndTheChainRestores() throws Exception {
        SharedStateRegistryImpl registry = new SharedStateRegistryImpl();
        StreamFusionKeyedStateBackend<Long> backend = backend(true, List.of());
        IncrementalRemoteKeyedStateHandle second;
        IncrementalRemoteKeyedStateHandle first;
        try {
            write(backend, 0, KEYS, 2);
            first = checkpoint(backend, 1, streams(1));
            first.registerSharedStates(registry, 1);
            backend.notifyCheckpointComplete(1);
            // 1% of the keys change.
            write(backend, 0, KEYS / 100, 3);
            second = checkpoint(backend, 2, streams(2));
        } finally {
            backend.dispose();
        }
        assertEquals(0, placeholders(first));
        assertEquals(
                sstFiles(first.getSharedState()),
                placeholders(second),
                "every SST of checkpoint 1 is referenced");
        assertTrue(
                second.getCheckpointedSize() < first.getCheckpointedSize() / 4,
                "checkpoint 2 uploaded "
                        + second.getCheckpointedSize()
                        + " bytes, checkpoint 1 "
                        + first.getCheckpointedSize());

        // The JobManager replaces placeholders with the handles it holds; then the chain restores.
        second.registerSharedStates(registry, 2);
        StreamFusionKeyedStateBackend<Long> restored = backend(true, List.of(second));
        try {
            ValueState<Long> state = state(restored);
            for (long key : new long[] {0, KEYS / 100 - 1, KEYS / 100, KEYS - 1}) {
                restored.setCurrentKey(key);
                assertEquals(key * (key < KEYS / 100 ? 3 : 2), state.value(), "key " + key);
            }
            assertEquals(KEYS, restored.numKeyValueStateEntries());
            // Without rescaling, the next checkpoint continues the restored chain.
            IncrementalRemoteKeyedStateHandle third = checkpoint(restored, 3, streams(3));
            assertEquals(second.getBackendIdentifier(), third.getBackendIdentifier());
            // Checkpoint 2 holds two flushed level-0 files, the count at which level 0 compacts,
            // so the restored store may rewrite them before this checkpoint. Whatever is left of
            // checkpoint 2 is referenced, not uploaded again, and whatever was written is uploaded.
            Set<String> uploadedBefore =
                    second.getSharedState().stream()
                            .map(HandleAndLocalPath::getLocalPath)
                            .collect(Collectors.toSet());
            assertTrue(sstFiles(third.getSharedState()) > 0);
            for (HandleAndLocalPath file : third.getSharedState()) {
                assertEquals(
                        uploadedBefore.contains(file.getLocalPath()),
                        file.getHandle() instanceof PlaceholderStreamStateHandle,
                        file.getLocalPath());
            }
        } finally {
            restored.dispose();
        }
    }

    @Test
    void afterANoClaimRestoreTheFirstCheckpointReferencesNothingRestored() throws Exception {
        SharedStateRegistryImpl registry = new SharedStateRegistryImpl();
        IncrementalRemoteKeyedStateHandle restoredFrom;
        StreamFusionKeyedStateBackend<Long> backend = backend(true, List.of());
        try {
            write(backend, 0, KEYS, 2);
            restoredFrom = checkpoint(backend, 1, streams(1));
            restoredFrom.registerSharedStates(registry, 1);
        } finally {
            backend.dispose();
        }
        StreamFusionKeyedStateBackend<Long> restored = backend(true, List.of(restoredFrom));
        try {
            // In NO_CLAIM mode Flink triggers the first checkpoint as FULL_CHECKPOINT (FORWARD).
            IncrementalRemoteKeyedStateHandle first =
                    (IncrementalRemoteKeyedStateHandle)
                            TestSnapshots.snapshot(
                                    restored, 2, streams(2), CheckpointType.FULL_CHECKPOINT);
            assertEquals(0, placeholders(first));
            first.registerSharedStates(registry, 2);
            restored.notifyCheckpointComplete(2);
            // Later checkpoints build on that one, not on the restored files.
            IncrementalRemoteKeyedStateHandle second = checkpoint(restored, 3, streams(3));
            assertEquals(sstFiles(first.getSharedState()), placeholders(second));
        } finally {
            restored.dispose();
        }
    }

    @Test
    void pendingAndAbortedCheckpointsAreNeverReferenced() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend = backend(true, List.of());
        try {
            write(backend, 0, KEYS, 2);
            checkpoint(backend, 1, streams(1));
            // Checkpoint 1 is still pending: the JobManager may yet discard its files.
            assertEquals(0, placeholders(checkpoint(backend, 2, streams(2))));
            backend.notifyCheckpointAborted(2);
            // A late confirmation of an aborted checkpoint changes nothing.
            backend.notifyCheckpointComplete(2);
            assertEquals(0, placeholders(checkpoint(backend, 3, streams(3))));
        } finally {
            backend.dispose();
        }
    }

    @Test
    void savepointsAndFullCheckpointsShareNothing() throws Exception {
        StreamFusionKeyedStateBackend<Long> incremental = backend(true, List.of());
        try {
            write(incremental, 0, KEYS, 2);
            checkpoint(incremental, 1, streams(1));
            incremental.notifyCheckpointComplete(1);
            IncrementalRemoteKeyedStateHandle savepoint =
                    (IncrementalRemoteKeyedStateHandle)
                            TestSnapshots.snapshot(
                                    incremental,
                                    2,
                                    streams(2),
                                    SavepointType.savepoint(SavepointFormatType.NATIVE));
            assertEquals(0, placeholders(savepoint));
            assertTrue(sstFiles(savepoint.getSharedState()) > 0);
        } finally {
            incremental.dispose();
        }
        StreamFusionKeyedStateBackend<Long> full = backend(false, List.of());
        try {
            write(full, 0, KEYS, 2);
            IncrementalRemoteKeyedStateHandle first = checkpoint(full, 1, streams(1));
            full.notifyCheckpointComplete(1);
            IncrementalRemoteKeyedStateHandle second = checkpoint(full, 2, streams(2));
            for (IncrementalRemoteKeyedStateHandle handle : List.of(first, second)) {
                assertTrue(
                        handle.getSharedState().isEmpty(), "full checkpoints have no shared state");
                assertTrue(sstFiles(handle.getPrivateState()) > 0);
                assertEquals(0, placeholders(handle));
            }
        } finally {
            full.dispose();
        }
    }

    @Test
    void aFailedUploadDiscardsWhatItUploaded() throws Exception {
        StreamFusionKeyedStateBackend<Long> backend = backend(true, List.of());
        try {
            write(backend, 0, KEYS, 2);
            CheckpointStreamFactory failing = new FailingAfter(streams(1), 2);
            Exception e = assertThrows(Exception.class, () -> checkpoint(backend, 1, failing));
            assertTrue(String.valueOf(e.getCause()).contains("injected"), String.valueOf(e));
            assertEquals(
                    List.of(),
                    filesUnder(new File(dir, "checkpoints")),
                    "uploads left in checkpoint storage");
            assertEquals(
                    List.of(),
                    chkDirectories(new File(dir, "work")),
                    "native checkpoint directories left behind");
            // The backend is still usable: the next checkpoint succeeds.
            assertTrue(sstFiles(checkpoint(backend, 2, streams(2)).getSharedState()) > 0);
        } finally {
            backend.dispose();
        }
    }

    private static List<Path> filesUnder(File root) throws IOException {
        try (Stream<Path> paths = Files.walk(root.toPath())) {
            return paths.filter(Files::isRegularFile).toList();
        }
    }

    private static List<Path> chkDirectories(File root) throws IOException {
        try (Stream<Path> paths = Files.walk(root.toPath())) {
            return paths.filter(
                            p ->
                                    Files.isDirectory(p)
                                            && p.getFileName().toString().startsWith("chk-"))
                    .toList();
        }
    }

    /** Lets {@code allowed} streams through, then fails as a full disk or lost connection would. */
    private static final class FailingAfter implements CheckpointStreamFactory {
        private final CheckpointStreamFactory delegate;
        private int allowed;

        FailingAfter(CheckpointStreamFactory delegate, int allowed) {
            this.delegate = delegate;
            this.allowed = allowed;
        }

        @Override
        public CheckpointStateOutputStream createCheckpointStateOutputStream(
                CheckpointedStateScope scope) throws IOException {
            if (allowed-- <= 0) {
                throw new IOException("injected upload failure");
            }
            return delegate.createCheckpointStateOutputStream(scope);
        }

        @Override
        public boolean canFastDuplicate(
                StreamStateHandle stateHandle, CheckpointedStateScope scope) {
            return false;
        }

        @Override
        public List<StreamStateHandle> duplicate(
                List<StreamStateHandle> stateHandles, CheckpointedStateScope scope) {
            throw new UnsupportedOperationException();
        }
    }
}
