package io.streamfusion.snapshot.format;

import java.io.IOException;

/**
 * A native snapshot meta document that cannot be read: not ours, truncated, corrupt, or written by
 * a newer StreamFusion. The message names the file and what to do.
 */
public final class SnapshotFormatException extends IOException {

    public SnapshotFormatException(String message) {
        super(message);
    }

    public SnapshotFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
