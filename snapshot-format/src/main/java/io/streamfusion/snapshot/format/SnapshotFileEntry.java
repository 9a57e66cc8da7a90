package io.streamfusion.snapshot.format;

import java.util.Objects;

/**
 * One file of a native snapshot, as the manifest records it: its name in the RocksDB checkpoint
 * directory, its size in bytes and the CRC32C of its contents. Restore checks every downloaded file
 * against its entry before RocksDB opens it.
 */
public record SnapshotFileEntry(String name, long size, int crc32c) {

    public SnapshotFileEntry {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.contains("/") || name.contains("\\")) {
            throw new IllegalArgumentException(
                    "A snapshot file name must be a plain file name, not '" + name + "'");
        }
        if (size < 0) {
            throw new IllegalArgumentException(
                    "Snapshot file " + name + " has a negative size " + size);
        }
    }
}
