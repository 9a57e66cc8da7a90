package io.streamfusion.backend.restore;

import io.streamfusion.snapshot.format.SnapshotFileEntry;

import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.util.IOUtils;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.zip.CRC32C;

/**
 * Copies a snapshot file from checkpoint storage into a local directory and checks its size
 * and CRC32C against the manifest, so RocksDB never opens a damaged file. Streams are
 * registered with the restore's cancel registry.
 */
final class SnapshotFileDownloader {

    private static final int BUFFER_BYTES = 64 << 10;

    private SnapshotFileDownloader() {}

    static void download(
            HandleAndLocalPath file,
            SnapshotFileEntry expected,
            File directory,
            long checkpointId,
            CloseableRegistry cancelRegistry)
            throws IOException {
        String where = SnapshotFileNames.describe(file.getHandle()) + " (" + file.getLocalPath()
                + " of checkpoint " + checkpointId + ")";
        FSDataInputStream in;
        try {
            in = file.getHandle().openInputStream();
        } catch (IOException e) {
            throw new IOException(
                    "Snapshot " + where + " is missing or unreadable: " + e + ". " + SnapshotFileNames.WHAT_TO_DO, e);
        }
        CRC32C crc = new CRC32C();
        long size = 0;
        cancelRegistry.registerCloseable(in);
        try (OutputStream out = Files.newOutputStream(new File(directory, file.getLocalPath()).toPath())) {
            byte[] buffer = new byte[BUFFER_BYTES];
            for (int read; (read = in.read(buffer)) != -1; ) {
                crc.update(buffer, 0, read);
                out.write(buffer, 0, read);
                size += read;
            }
        } catch (IOException e) {
            throw new IOException("Could not read snapshot " + where + ": " + e + ". " + SnapshotFileNames.WHAT_TO_DO, e);
        } finally {
            if (cancelRegistry.unregisterCloseable(in)) {
                IOUtils.closeQuietly(in);
            }
        }
        if (size != expected.size() || (int) crc.getValue() != expected.crc32c()) {
            throw new IOException(
                    "Snapshot " + where + " is corrupt: it has " + size + " bytes with CRC32C "
                            + Integer.toHexString((int) crc.getValue()) + ", but the manifest records "
                            + expected.size() + " bytes with CRC32C " + Integer.toHexString(expected.crc32c())
                            + ". " + SnapshotFileNames.WHAT_TO_DO);
        }
    }
}
