package io.streamfusion.backend.snapshot;

import org.apache.flink.runtime.checkpoint.filemerging.FileMergingSnapshotManager;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.PlaceholderStreamStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The SST files that incremental checkpoints uploaded, by checkpoint, and which of them a new
 * checkpoint may reference instead of uploading again.
 *
 * <p>Only files of the last confirmed checkpoint are reused, never those of a pending one, which
 * the JobManager may still discard (FLINK-25395). Files re-uploaded by a later checkpoint are not
 * reused either: the JobManager discards the confirmed checkpoint's copy once the later one
 * subsumes it. This is the rule of Flink's RocksDB backend.
 */
public final class ConfirmedSnapshotFiles {

    private final SortedMap<Long, List<UploadedFile>> uploadedByCheckpoint = new TreeMap<>();
    private long lastConfirmedCheckpointId;

    /** Nothing uploaded or confirmed yet. */
    public ConfirmedSnapshotFiles() {
        this.lastConfirmedCheckpointId = -1L;
    }

    /**
     * Starts from a restored checkpoint, whose shared files the restored instance holds under the
     * same names and which the JobManager now owns.
     */
    public ConfirmedSnapshotFiles(
            long restoredCheckpointId, List<UploadedFile> restoredSharedFiles) {
        this.lastConfirmedCheckpointId = restoredCheckpointId;
        this.uploadedByCheckpoint.put(restoredCheckpointId, List.copyOf(restoredSharedFiles));
    }

    /** The files a checkpoint started now may reference, by local name, as placeholders. */
    public synchronized Map<String, UploadedFile> reusable() {
        List<UploadedFile> confirmed = uploadedByCheckpoint.get(lastConfirmedCheckpointId);
        if (confirmed == null) {
            return Map.of();
        }
        Map<String, UploadedFile> reusable = new HashMap<>();
        confirmed.forEach(file -> reusable.put(file.localName(), asPlaceholder(file)));
        for (Collection<UploadedFile> later :
                uploadedByCheckpoint.tailMap(lastConfirmedCheckpointId + 1).values()) {
            for (UploadedFile file : later) {
                if (!(file.handle() instanceof PlaceholderStreamStateHandle)) {
                    reusable.remove(file.localName());
                }
            }
        }
        return reusable;
    }

    private static UploadedFile asPlaceholder(UploadedFile file) {
        StreamStateHandle handle = file.handle();
        StreamStateHandle placeholder =
                handle instanceof PlaceholderStreamStateHandle
                        ? handle
                        : new PlaceholderStreamStateHandle(
                                handle.getStreamStateHandleID(),
                                handle.getStateSize(),
                                FileMergingSnapshotManager.isFileMergingHandle(handle));
        return new UploadedFile(
                HandleAndLocalPath.of(placeholder, file.localName()), file.size(), file.crc32c());
    }

    /** Records the shared files of a checkpoint whose upload finished. */
    public synchronized void recordUploaded(long checkpointId, List<UploadedFile> sharedFiles) {
        uploadedByCheckpoint.put(checkpointId, List.copyOf(sharedFiles));
    }

    public synchronized void confirm(long checkpointId) {
        if (checkpointId > lastConfirmedCheckpointId
                && uploadedByCheckpoint.containsKey(checkpointId)) {
            uploadedByCheckpoint.headMap(checkpointId).clear();
            lastConfirmedCheckpointId = checkpointId;
        }
    }

    public synchronized void abort(long checkpointId) {
        uploadedByCheckpoint.remove(checkpointId);
    }

    public synchronized long lastConfirmedCheckpointId() {
        return lastConfirmedCheckpointId;
    }
}
