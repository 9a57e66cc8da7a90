package io.streamfusion.backend.restore;

import io.streamfusion.backend.nativelib.NativeSlotMemory;
import io.streamfusion.backend.nativelib.NativeStore;
import io.streamfusion.backend.snapshot.ConfirmedSnapshotFiles;
import io.streamfusion.backend.snapshot.UploadedFile;
import io.streamfusion.snapshot.format.NativeSnapshotMeta;
import io.streamfusion.snapshot.format.NativeSnapshotMetaReader;
import io.streamfusion.snapshot.format.SnapshotFileEntry;
import io.streamfusion.snapshot.format.SnapshotFormatException;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.StateSerializerProvider;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.util.FileUtils;
import org.apache.flink.util.IOUtils;
import org.apache.flink.util.StateMigrationException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;

/**
 * Restores native snapshots (incremental and full checkpoints, native savepoints) into a new store.
 *
 * <p>Without rescaling, the snapshot's files become the instance as they are. With rescaling, the
 * handle with the most key groups in common becomes the base instance and is clipped to this
 * backend's key groups with range deletes; the owned key groups of every other handle are copied in
 * from a temporary instance. Every file is checked against the manifest first.
 */
public final class NativeRestoreOperation<K> {

    private static final Logger LOG = LoggerFactory.getLogger(NativeRestoreOperation.class);

    private final KeyGroupRange keyGroupRange;
    private final int keyGroupPrefixBytes;
    private final ClassLoader userCodeClassLoader;
    private final List<IncrementalRemoteKeyedStateHandle> handles;
    private final StateSerializerProvider<K> keySerializerProvider;
    private final File workingDirectory;
    private final File storeDirectory;
    private final NativeSlotMemory memory;
    private final CloseableRegistry cancelRegistry;
    private boolean keySerializerChecked;

    public NativeRestoreOperation(
            KeyGroupRange keyGroupRange,
            int keyGroupPrefixBytes,
            ClassLoader userCodeClassLoader,
            List<IncrementalRemoteKeyedStateHandle> handles,
            StateSerializerProvider<K> keySerializerProvider,
            File workingDirectory,
            File storeDirectory,
            NativeSlotMemory memory,
            CloseableRegistry cancelRegistry) {
        this.keyGroupRange = keyGroupRange;
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.userCodeClassLoader = userCodeClassLoader;
        this.handles = List.copyOf(handles);
        this.keySerializerProvider = keySerializerProvider;
        this.workingDirectory = workingDirectory;
        this.storeDirectory = storeDirectory;
        this.memory = memory;
        this.cancelRegistry = cancelRegistry;
    }

    public NativeRestoreResult restore() throws Exception {
        IncrementalRemoteKeyedStateHandle base = BaseHandleSelector.choose(handles, keyGroupRange);
        if (!storeDirectory.mkdirs() && !storeDirectory.isDirectory()) {
            throw new IOException("Could not create the store directory " + storeDirectory);
        }
        NativeSnapshotMeta baseMeta = readMeta(base);
        Map<String, SnapshotFileEntry> baseManifest = manifestByName(baseMeta);
        download(base, baseManifest, storeDirectory);
        NativeStore store = NativeStore.open(storeDirectory, memory);
        try {
            Map<String, StateMetaInfoSnapshot> states = new LinkedHashMap<>();
            baseMeta.stateMetaInfos().forEach(state -> states.putIfAbsent(state.getName(), state));
            boolean rescaled = handles.size() > 1 || !base.getKeyGroupRange().equals(keyGroupRange);
            if (!base.getKeyGroupRange().equals(keyGroupRange)) {
                store.deleteKeyRanges(
                        KeyGroupKeyRanges.outside(
                                base.getKeyGroupRange(), keyGroupRange, keyGroupPrefixBytes));
            }
            for (IncrementalRemoteKeyedStateHandle handle : handles) {
                if (handle != base) {
                    NativeSnapshotMeta meta = readMeta(handle);
                    copyOwnedKeyGroups(store, handle, meta);
                    meta.stateMetaInfos()
                            .forEach(state -> states.putIfAbsent(state.getName(), state));
                }
            }
            if (rescaled) {
                LOG.info(
                        "Restored {} native snapshot(s) into key groups {} by clipping and merging",
                        handles.size(),
                        keyGroupRange.prettyPrintInterval());
                return new NativeRestoreResult(
                        store, List.copyOf(states.values()), UUID.randomUUID(), null);
            }
            return new NativeRestoreResult(
                    store,
                    List.copyOf(states.values()),
                    base.getBackendIdentifier(),
                    new ConfirmedSnapshotFiles(
                            base.getCheckpointId(), restoredSharedFiles(base, baseManifest)));
        } catch (Throwable t) {
            IOUtils.closeQuietly(store);
            throw t;
        }
    }

    private void copyOwnedKeyGroups(
            NativeStore store, IncrementalRemoteKeyedStateHandle handle, NativeSnapshotMeta meta)
            throws Exception {
        KeyGroupRange owned = handle.getKeyGroupRange().getIntersection(keyGroupRange);
        if (owned.getNumberOfKeyGroups() == 0) {
            return;
        }
        File temporary = new File(workingDirectory, "restore-" + UUID.randomUUID());
        try {
            if (!temporary.mkdirs()) {
                throw new IOException(
                        "Could not create the temporary restore directory " + temporary);
            }
            download(handle, manifestByName(meta), temporary);
            long copied =
                    store.copyKeyRange(temporary, KeyGroupKeyRanges.of(owned, keyGroupPrefixBytes));
            LOG.debug(
                    "Copied {} entries of key groups {} from checkpoint {}",
                    copied,
                    owned,
                    handle.getCheckpointId());
        } finally {
            FileUtils.deleteDirectoryQuietly(temporary);
        }
    }

    private NativeSnapshotMeta readMeta(IncrementalRemoteKeyedStateHandle handle) throws Exception {
        String source =
                "meta "
                        + SnapshotFileNames.describe(handle.getMetaDataStateHandle())
                        + " of checkpoint "
                        + handle.getCheckpointId();
        NativeSnapshotMeta meta =
                SnapshotFileDownloader.read(
                        handle.getMetaDataStateHandle(),
                        "The " + source,
                        cancelRegistry,
                        in -> {
                            try {
                                return NativeSnapshotMetaReader.read(
                                        in,
                                        handle.getMetaDataStateHandle().getStateSize(),
                                        userCodeClassLoader,
                                        source);
                            } catch (SnapshotFormatException e) {
                                throw new IOException(
                                        e.getMessage() + " " + SnapshotFileNames.WHAT_TO_DO, e);
                            }
                        });
        checkMetaMatchesHandle(meta, handle, source);
        if (meta.keyGroupPrefixBytes() != keyGroupPrefixBytes) {
            throw new IOException(
                    "The "
                            + source
                            + " was written with "
                            + meta.keyGroupPrefixBytes()
                            + "-byte key-group prefixes,"
                            + " but this job's maximum parallelism needs "
                            + keyGroupPrefixBytes
                            + ". Keep the maximum parallelism of the job that took the snapshot.");
        }
        checkKeySerializer(meta.keySerializerSnapshot());
        return meta;
    }

    /**
     * The handle comes from the checkpoint's metadata, the meta document from the snapshot
     * directory; a meta that describes another snapshot means files were mixed up or overwritten.
     */
    private static void checkMetaMatchesHandle(
            NativeSnapshotMeta meta, IncrementalRemoteKeyedStateHandle handle, String source)
            throws IOException {
        String mismatch = null;
        if (meta.checkpointId() != handle.getCheckpointId()) {
            mismatch = "checkpoint " + meta.checkpointId();
        } else if (!meta.backendIdentifier().equals(handle.getBackendIdentifier())) {
            mismatch =
                    "backend "
                            + meta.backendIdentifier()
                            + ", not "
                            + handle.getBackendIdentifier();
        } else if (!meta.keyGroupRange().equals(handle.getKeyGroupRange())) {
            mismatch = "key groups " + meta.keyGroupRange() + ", not " + handle.getKeyGroupRange();
        }
        if (mismatch != null) {
            throw new IOException(
                    "The "
                            + source
                            + " describes "
                            + mismatch
                            + ", so it belongs to another snapshot: its files were mixed up or"
                            + " overwritten. "
                            + SnapshotFileNames.WHAT_TO_DO);
        }
    }

    @SuppressWarnings("unchecked")
    private void checkKeySerializer(TypeSerializerSnapshot<?> previous)
            throws StateMigrationException {
        if (keySerializerChecked) {
            return;
        }
        // Read before the compatibility check, which makes an incompatible provider refuse it.
        TypeSerializer<K> current = keySerializerProvider.currentSchemaSerializer();
        TypeSerializerSchemaCompatibility<K> compatibility =
                keySerializerProvider.setPreviousSerializerSnapshotForRestoredState(
                        (TypeSerializerSnapshot<K>) previous);
        if (compatibility.isCompatibleAfterMigration() || compatibility.isIncompatible()) {
            throw new StateMigrationException(
                    "The new key serializer ("
                            + current
                            + ") must be compatible with the previous key serializer ("
                            + keySerializerProvider.previousSchemaSerializer()
                            + ").");
        }
        keySerializerChecked = true;
    }

    /**
     * Downloads every file of {@code handle}, checking each against the manifest, and recreates the
     * empty files that the manifest alone records.
     */
    private void download(
            IncrementalRemoteKeyedStateHandle handle,
            Map<String, SnapshotFileEntry> manifest,
            File directory)
            throws IOException {
        Map<String, SnapshotFileEntry> notYetRestored = new HashMap<>(manifest);
        List<HandleAndLocalPath> files = new ArrayList<>(handle.getSharedState());
        files.addAll(handle.getPrivateState());
        for (HandleAndLocalPath file : files) {
            if (cancelRegistry.isClosed()) {
                throw new CancellationException("StreamFusion restore cancelled");
            }
            SnapshotFileEntry expected = notYetRestored.remove(file.getLocalPath());
            if (expected == null) {
                throw new IOException(
                        "Snapshot file "
                                + file.getLocalPath()
                                + " of checkpoint "
                                + handle.getCheckpointId()
                                + " is not in the manifest of its meta document. "
                                + SnapshotFileNames.WHAT_TO_DO);
            }
            SnapshotFileDownloader.download(
                    file, expected, directory, handle.getCheckpointId(), cancelRegistry);
        }
        for (SnapshotFileEntry entry : notYetRestored.values()) {
            if (entry.size() != 0) {
                throw new IOException(
                        "The manifest of checkpoint "
                                + handle.getCheckpointId()
                                + " lists "
                                + entry.name()
                                + " ("
                                + entry.size()
                                + " bytes), but the checkpoint has no such file. "
                                + SnapshotFileNames.WHAT_TO_DO);
            }
            Files.createFile(new File(directory, entry.name()).toPath());
        }
    }

    private static Map<String, SnapshotFileEntry> manifestByName(NativeSnapshotMeta meta) {
        Map<String, SnapshotFileEntry> byName = new HashMap<>();
        meta.files().forEach(entry -> byName.put(entry.name(), entry));
        return byName;
    }

    private static List<UploadedFile> restoredSharedFiles(
            IncrementalRemoteKeyedStateHandle handle, Map<String, SnapshotFileEntry> manifest) {
        return handle.getSharedState().stream()
                .map(
                        file -> {
                            SnapshotFileEntry entry = manifest.get(file.getLocalPath());
                            return new UploadedFile(file, entry.size(), entry.crc32c());
                        })
                .toList();
    }
}
