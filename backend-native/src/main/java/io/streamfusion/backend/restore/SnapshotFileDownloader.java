package io.streamfusion.backend.restore;

import io.streamfusion.snapshot.format.ChecksummedCopy;
import io.streamfusion.snapshot.format.SnapshotFileEntry;

import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.util.IOUtils;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;

/**
 * Copies a snapshot file from checkpoint storage into a local directory and checks its size and
 * CRC32C against the manifest, so RocksDB never opens a damaged file. Streams are registered with
 * the restore's cancel registry.
 */
final class SnapshotFileDownloader {

    private SnapshotFileDownloader() {}

    /** Reads one stored file. */
    @FunctionalInterface
    interface Reader<T> {
        T read(FSDataInputStream in) throws IOException;
    }

    /**
     * Opens {@code handle}, registered with the restore's cancel registry while {@code reader}
     * runs; a file that cannot be opened fails with an error naming {@code where}.
     */
    static <T> T read(
            StreamStateHandle handle,
            String where,
            CloseableRegistry cancelRegistry,
            Reader<T> reader)
            throws IOException {
        FSDataInputStream in;
        try {
            in = handle.openInputStream();
        } catch (IOException e) {
            throw new IOException(
                    where + " is missing or unreadable: " + e + ". " + SnapshotFileNames.WHAT_TO_DO,
                    e);
        }
        cancelRegistry.registerCloseable(in);
        try {
            return reader.read(in);
        } finally {
            if (cancelRegistry.unregisterCloseable(in)) {
                IOUtils.closeQuietly(in);
            }
        }
    }

    static void download(
            HandleAndLocalPath file,
            SnapshotFileEntry expected,
            File directory,
            long checkpointId,
            CloseableRegistry cancelRegistry)
            throws IOException {
        String where =
                "Snapshot "
                        + SnapshotFileNames.describe(file.getHandle())
                        + " ("
                        + file.getLocalPath()
                        + " of checkpoint "
                        + checkpointId
                        + ")";
        ChecksummedCopy.Copied copied =
                read(
                        file.getHandle(),
                        where,
                        cancelRegistry,
                        in -> {
                            try (OutputStream out =
                                    Files.newOutputStream(
                                            new File(directory, file.getLocalPath()).toPath())) {
                                return ChecksummedCopy.copy(in, out);
                            } catch (IOException e) {
                                throw new IOException(
                                        "Could not read "
                                                + where
                                                + ": "
                                                + e
                                                + ". "
                                                + SnapshotFileNames.WHAT_TO_DO,
                                        e);
                            }
                        });
        if (copied.size() != expected.size() || copied.crc32c() != expected.crc32c()) {
            throw new IOException(
                    where
                            + " is corrupt: it has "
                            + copied.size()
                            + " bytes with CRC32C "
                            + Integer.toHexString(copied.crc32c())
                            + ", but the manifest records "
                            + expected.size()
                            + " bytes with CRC32C "
                            + Integer.toHexString(expected.crc32c())
                            + ". "
                            + SnapshotFileNames.WHAT_TO_DO);
        }
    }
}
