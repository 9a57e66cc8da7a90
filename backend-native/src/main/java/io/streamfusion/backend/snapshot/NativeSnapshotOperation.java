package io.streamfusion.backend.snapshot;

import io.streamfusion.snapshot.format.NativeSnapshotMeta;
import io.streamfusion.snapshot.format.NativeSnapshotMetaWriter;
import io.streamfusion.snapshot.format.SnapshotFileEntry;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.util.IOUtils;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The asynchronous phase of one native snapshot: uploads the checkpoint directory's files (or
 * references confirmed ones), then writes the meta document with their manifest. If anything fails
 * or the snapshot is cancelled, every file it uploaded is discarded again.
 */
final class NativeSnapshotOperation<K> {

    private static final Logger LOG = LoggerFactory.getLogger(NativeSnapshotOperation.class);
    private static final String SST_SUFFIX = ".sst";

    /** The handle of the snapshot and the SST files it references as shared state. */
    record Result(IncrementalRemoteKeyedStateHandle handle, List<UploadedFile> sharedFiles) {}

    private final long checkpointId;
    private final UUID backendIdentifier;
    private final KeyGroupRange keyGroupRange;
    private final int keyGroupPrefixBytes;
    private final TypeSerializer<K> keySerializer;
    private final NativeSnapshotResources resources;
    private final CheckpointStreamFactory streamFactory;
    private final boolean shareSstFiles;
    private final Map<String, UploadedFile> reusableFiles;
    private final CheckpointedStateScope fileScope;

    NativeSnapshotOperation(
            long checkpointId,
            UUID backendIdentifier,
            KeyGroupRange keyGroupRange,
            int keyGroupPrefixBytes,
            TypeSerializer<K> keySerializer,
            NativeSnapshotResources resources,
            CheckpointStreamFactory streamFactory,
            boolean shareSstFiles,
            Map<String, UploadedFile> reusableFiles,
            CheckpointedStateScope fileScope) {
        this.checkpointId = checkpointId;
        this.backendIdentifier = backendIdentifier;
        this.keyGroupRange = keyGroupRange;
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.keySerializer = keySerializer;
        this.resources = resources;
        this.streamFactory = streamFactory;
        this.shareSstFiles = shareSstFiles;
        this.reusableFiles = reusableFiles;
        this.fileScope = fileScope;
    }

    Result run(CloseableRegistry snapshotRegistry) throws Exception {
        CloseableRegistry uploaded = new CloseableRegistry();
        List<StreamStateHandle> reused = new ArrayList<>();
        boolean completed = false;
        try {
            List<UploadedFile> shared = new ArrayList<>();
            List<UploadedFile> exclusive = new ArrayList<>();
            // Checkpoint storage has no handle for an empty file (the unused WAL, for one):
            // the manifest alone records it, and restore recreates it.
            List<SnapshotFileEntry> emptyFiles = new ArrayList<>();
            long persistedBytes = 0;
            for (Path file : listFiles()) {
                String name = file.getFileName().toString();
                if (Files.size(file) == 0) {
                    emptyFiles.add(new SnapshotFileEntry(name, 0, 0));
                    continue;
                }
                boolean sst = shareSstFiles && name.endsWith(SST_SUFFIX);
                UploadedFile previous = sst ? reusableFiles.get(name) : null;
                if (previous != null && streamFactory.couldReuseStateHandle(previous.handle())) {
                    shared.add(previous);
                    reused.add(previous.handle());
                    continue;
                }
                UploadedFile upload =
                        SnapshotFileUploader.upload(
                                file, streamFactory, fileScope, snapshotRegistry, uploaded);
                persistedBytes += upload.handle().getStateSize();
                (sst ? shared : exclusive).add(upload);
            }
            StreamStateHandle meta =
                    writeMeta(manifest(shared, exclusive, emptyFiles), snapshotRegistry, uploaded);
            persistedBytes += meta.getStateSize();
            IncrementalRemoteKeyedStateHandle handle =
                    new IncrementalRemoteKeyedStateHandle(
                            backendIdentifier,
                            keyGroupRange,
                            checkpointId,
                            freshCopies(shared),
                            freshCopies(exclusive),
                            meta,
                            persistedBytes);
            completed = true;
            return new Result(handle, shared);
        } finally {
            if (completed) {
                streamFactory.reusePreviousStateHandle(reused);
            } else {
                LOG.debug(
                        "Native snapshot {} did not complete; discarding its uploaded files",
                        checkpointId);
                IOUtils.closeQuietly(uploaded);
            }
        }
    }

    private List<Path> listFiles() throws IOException {
        Path[] files = resources.directory.listDirectory();
        if (files == null) {
            throw new IOException(
                    "The native checkpoint directory " + resources.directory + " vanished");
        }
        return Arrays.stream(files).sorted(Comparator.comparing(Path::getFileName)).toList();
    }

    private static List<SnapshotFileEntry> manifest(
            List<UploadedFile> shared,
            List<UploadedFile> exclusive,
            List<SnapshotFileEntry> emptyFiles) {
        return Stream.concat(
                        Stream.concat(shared.stream(), exclusive.stream())
                                .map(UploadedFile::manifestEntry),
                        emptyFiles.stream())
                .toList();
    }

    /**
     * The JobManager may replace the handles inside {@link HandleAndLocalPath}s it registers; the
     * handle gets its own instances, so the records kept for reuse stay as they were.
     */
    private static List<HandleAndLocalPath> freshCopies(List<UploadedFile> files) {
        return files.stream().map(f -> HandleAndLocalPath.of(f.handle(), f.localName())).toList();
    }

    private StreamStateHandle writeMeta(
            List<SnapshotFileEntry> manifest,
            CloseableRegistry snapshotRegistry,
            CloseableRegistry uploaded)
            throws IOException {
        NativeSnapshotMeta meta =
                new NativeSnapshotMeta(
                        checkpointId,
                        backendIdentifier,
                        keyGroupRange,
                        keyGroupPrefixBytes,
                        keySerializer.snapshotConfiguration(),
                        resources.stateMetaInfos,
                        manifest);
        return SnapshotFileUploader.write(
                        "the meta document of snapshot " + checkpointId,
                        streamFactory,
                        CheckpointedStateScope.EXCLUSIVE,
                        snapshotRegistry,
                        uploaded,
                        out -> {
                            NativeSnapshotMetaWriter.write(meta, out);
                            return null;
                        })
                .handle();
    }
}
