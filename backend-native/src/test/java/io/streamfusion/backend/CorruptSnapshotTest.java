package io.streamfusion.backend;

import io.streamfusion.snapshot.format.NativeSnapshotMeta;
import io.streamfusion.snapshot.format.NativeSnapshotMetaReader;
import io.streamfusion.snapshot.format.NativeSnapshotMetaWriter;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.BackendBuildingException;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A snapshot file that is missing, truncated or corrupt fails the restore with an error that names
 * the file and says what to do, for native checkpoints and canonical savepoints alike.
 */
class CorruptSnapshotTest extends MockEnvironmentTestBase {

    @TempDir File dir;

    private final ValueStateDescriptor<Long> descriptor =
            new ValueStateDescriptor<>("count", LongSerializer.INSTANCE);

    /** Writes 1,000 keys and snapshots them to files, natively or as a canonical savepoint. */
    private KeyedStateHandle snapshot(boolean canonical) throws Exception {
        StreamFusionKeyedStateBackend<Long> backend =
                TestKeyedBackends.create(env, new File(dir, "work"), LongSerializer.INSTANCE);
        try {
            ValueState<Long> state =
                    backend.getPartitionedState(
                            VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
            for (long key = 0; key < 1_000; key++) {
                backend.setCurrentKey(key);
                state.update(key * 2);
            }
            var streams = TestSnapshots.fileStreams(new File(dir, "checkpoints"), 1L);
            return canonical
                    ? TestSnapshots.canonicalSavepoint(backend, 1L, streams)
                    : TestSnapshots.checkpoint(backend, 1L, streams);
        } finally {
            backend.dispose();
        }
    }

    private static File fileOf(StreamStateHandle handle) {
        return new File(((FileStateHandle) handle).getFilePath().getPath());
    }

    private static File sstFileOf(KeyedStateHandle handle) {
        HandleAndLocalPath sst =
                ((IncrementalRemoteKeyedStateHandle) handle)
                        .getSharedState().stream()
                                .filter(file -> file.getLocalPath().endsWith(".sst"))
                                .findFirst()
                                .orElseThrow();
        return fileOf(sst.getHandle());
    }

    private void assertRestoreNamesFile(KeyedStateHandle handle, File file, String problem) {
        BackendBuildingException e =
                assertThrows(
                        BackendBuildingException.class,
                        () ->
                                TestKeyedBackends.restore(
                                        env,
                                        new File(dir, "restored"),
                                        LongSerializer.INSTANCE,
                                        List.of(handle)));
        assertTrue(e.getMessage().contains(file.getPath()), e.getMessage());
        assertTrue(e.getMessage().contains(problem), e.getMessage());
        assertTrue(
                e.getMessage().contains("Restore from an earlier retained checkpoint"),
                e.getMessage());
        // Nothing of the failed attempt is left behind.
        File[] left = new File(dir, "restored").listFiles();
        assertEquals(
                0,
                left == null ? 0 : left.length,
                "left behind: " + List.of(left == null ? new File[0] : left));
    }

    private static void truncate(File file) throws Exception {
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw")) {
            raf.setLength(file.length() / 2);
        }
    }

    @Test
    void intactCheckpointRestores() throws Exception {
        KeyedStateHandle handle = snapshot(false);
        assertTrue(handle instanceof IncrementalRemoteKeyedStateHandle, String.valueOf(handle));
        StreamFusionKeyedStateBackend<Long> restored =
                TestKeyedBackends.restore(
                        env, new File(dir, "restored"), LongSerializer.INSTANCE, List.of(handle));
        try {
            ValueState<Long> state =
                    restored.getPartitionedState(
                            VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
            restored.setCurrentKey(321L);
            assertEquals(642L, state.value());
            assertEquals(1_000, restored.numKeyValueStateEntries());
        } finally {
            restored.dispose();
        }
    }

    @Test
    void truncatedMetaFileIsNamed() throws Exception {
        KeyedStateHandle handle = snapshot(false);
        File meta = fileOf(((IncrementalRemoteKeyedStateHandle) handle).getMetaDataStateHandle());
        truncate(meta);
        assertRestoreNamesFile(handle, meta, "is truncated");
    }

    @Test
    void aHugeLengthInTheMetaHeaderIsTruncationNotAHeapError() throws Exception {
        KeyedStateHandle handle = snapshot(false);
        File meta = fileOf(((IncrementalRemoteKeyedStateHandle) handle).getMetaDataStateHandle());
        try (RandomAccessFile raf = new RandomAccessFile(meta, "rw")) {
            raf.seek(8); // magic, version, then the body length the checksum does not cover
            raf.writeInt(0x0fffffff);
        }
        assertRestoreNamesFile(handle, meta, "is truncated: its header announces");
    }

    @Test
    void aMetaOfAnotherCheckpointIsRefused() throws Exception {
        KeyedStateHandle handle = snapshot(false);
        File meta = fileOf(((IncrementalRemoteKeyedStateHandle) handle).getMetaDataStateHandle());
        NativeSnapshotMeta written;
        try (FileInputStream in = new FileInputStream(meta)) {
            written =
                    NativeSnapshotMetaReader.read(
                            in, meta.length(), getClass().getClassLoader(), meta.getPath());
        }
        NativeSnapshotMeta other =
                new NativeSnapshotMeta(
                        written.checkpointId() + 1,
                        written.backendIdentifier(),
                        written.keyGroupRange(),
                        written.keyGroupPrefixBytes(),
                        written.keySerializerSnapshot(),
                        written.stateMetaInfos(),
                        written.files());
        try (FileOutputStream out = new FileOutputStream(meta)) {
            NativeSnapshotMetaWriter.write(other, out);
        }
        assertRestoreNamesFile(handle, meta, "describes checkpoint 2, so it belongs to another");
    }

    @Test
    void missingSstFileIsNamed() throws Exception {
        KeyedStateHandle handle = snapshot(false);
        File sst = sstFileOf(handle);
        Files.delete(sst.toPath());
        assertRestoreNamesFile(handle, sst, "is missing or unreadable");
    }

    @Test
    void sstFileWithABadChecksumIsNamed() throws Exception {
        KeyedStateHandle handle = snapshot(false);
        File sst = sstFileOf(handle);
        try (RandomAccessFile raf = new RandomAccessFile(sst, "rw")) {
            raf.seek(sst.length() / 2);
            int b = raf.read();
            raf.seek(sst.length() / 2);
            raf.write(b ^ 0x40);
        }
        assertRestoreNamesFile(handle, sst, "is corrupt");
    }

    @Test
    void truncatedCanonicalSavepointIsNamed() throws Exception {
        KeyedStateHandle handle = snapshot(true);
        File file = fileOf(((KeyGroupsStateHandle) handle).getDelegateStateHandle());
        truncate(file);
        assertRestoreNamesFile(handle, file, "missing, truncated or corrupt");
    }

    @Test
    void missingCanonicalSavepointIsNamed() throws Exception {
        KeyedStateHandle handle = snapshot(true);
        File file = fileOf(((KeyGroupsStateHandle) handle).getDelegateStateHandle());
        Files.delete(file.toPath());
        assertRestoreNamesFile(handle, file, "missing, truncated or corrupt");
    }
}
