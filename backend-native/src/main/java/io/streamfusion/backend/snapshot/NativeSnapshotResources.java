package io.streamfusion.backend.snapshot;

import org.apache.flink.runtime.state.SnapshotDirectory;
import org.apache.flink.runtime.state.SnapshotResources;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * What the synchronous phase of a native snapshot captures: the native checkpoint whose directory
 * receives hard-linked files, the state meta infos at that moment, and the files of the last
 * confirmed checkpoint that the upload may reference. Releasing completes the checkpoint if the
 * upload did not, then deletes the directory.
 */
final class NativeSnapshotResources implements SnapshotResources {

    private static final Logger LOG = LoggerFactory.getLogger(NativeSnapshotResources.class);

    final PendingNativeCheckpoint checkpoint;
    final SnapshotDirectory directory;
    final List<StateMetaInfoSnapshot> stateMetaInfos;
    final Map<String, UploadedFile> reusableFiles;

    NativeSnapshotResources(
            PendingNativeCheckpoint checkpoint,
            SnapshotDirectory directory,
            List<StateMetaInfoSnapshot> stateMetaInfos,
            Map<String, UploadedFile> reusableFiles) {
        this.checkpoint = checkpoint;
        this.directory = directory;
        this.stateMetaInfos = stateMetaInfos;
        this.reusableFiles = reusableFiles;
    }

    @Override
    public void release() {
        try {
            checkpoint.awaitFiles();
        } catch (Exception e) {
            // The upload, if it ran, failed with the same error; the directory goes either way.
            LOG.debug("The native checkpoint into {} failed", directory, e);
        }
        try {
            if (directory.exists() && !directory.cleanup()) {
                LOG.warn("Could not delete the native checkpoint directory {}", directory);
            }
        } catch (IOException e) {
            LOG.warn("Could not delete the native checkpoint directory {}", directory, e);
        }
    }
}
