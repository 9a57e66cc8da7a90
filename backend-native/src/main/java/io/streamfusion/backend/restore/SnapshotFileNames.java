package io.streamfusion.backend.restore;

import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;

/** Names snapshot files in error messages the way a user finds them in checkpoint storage. */
final class SnapshotFileNames {

    /** What every restore error tells the user to do. */
    static final String WHAT_TO_DO =
            "Restore from an earlier retained checkpoint or from a savepoint (flink run -s <path>).";

    private SnapshotFileNames() {}

    static String describe(StreamStateHandle handle) {
        if (handle instanceof FileStateHandle file) {
            return "file " + file.getFilePath();
        }
        if (handle instanceof ByteStreamStateHandle bytes) {
            return "in-memory state '" + bytes.getHandleName() + "'";
        }
        return String.valueOf(handle);
    }

    static String describe(KeyedStateHandle handle) {
        if (handle instanceof KeyGroupsStateHandle keyGroups) {
            return describe(keyGroups.getDelegateStateHandle());
        }
        return String.valueOf(handle);
    }
}
