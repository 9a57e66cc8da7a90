package io.streamfusion.backend.snapshot;

import io.streamfusion.snapshot.format.SnapshotFileEntry;

import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.StreamStateHandle;

/**
 * A file of a native checkpoint directory as it is stored in checkpoint storage: its handle (or a
 * placeholder for a handle of a confirmed checkpoint), its local name, and the CRC32C that the
 * manifest records for it.
 */
public record UploadedFile(HandleAndLocalPath handleAndLocalPath, long size, int crc32c) {

    public String localName() {
        return handleAndLocalPath.getLocalPath();
    }

    public StreamStateHandle handle() {
        return handleAndLocalPath.getHandle();
    }

    public SnapshotFileEntry manifestEntry() {
        return new SnapshotFileEntry(localName(), size, crc32c);
    }
}
