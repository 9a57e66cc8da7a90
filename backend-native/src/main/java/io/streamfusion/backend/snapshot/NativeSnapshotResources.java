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
 * What the synchronous phase of a native snapshot captures: the native checkpoint directory of
 * hard-linked files, the state meta infos at that moment, and the files of the last confirmed
 * checkpoint that the upload may reference. Releasing deletes the directory.
 */
final class NativeSnapshotResources implements SnapshotResources {

    private static final Logger LOG = LoggerFactory.getLogger(NativeSnapshotResources.class);

    final SnapshotDirectory directory;
    final List<StateMetaInfoSnapshot> stateMetaInfos;
    final Map<String, UploadedFile> reusableFiles;

    NativeSnapshotResources(
            SnapshotDirectory directory,
            List<StateMetaInfoSnapshot> stateMetaInfos,
            Map<String, UploadedFile> reusableFiles) {
        this.directory = directory;
        this.stateMetaInfos = stateMetaInfos;
        this.reusableFiles = reusableFiles;
    }

    @Override
    public void release() {
        try {
            if (directory.exists() && !directory.cleanup()) {
                LOG.warn("Could not delete the native checkpoint directory {}", directory);
            }
        } catch (IOException e) {
            LOG.warn("Could not delete the native checkpoint directory {}", directory, e);
        }
    }
}
