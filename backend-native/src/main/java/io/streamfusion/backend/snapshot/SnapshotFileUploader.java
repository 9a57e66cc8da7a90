package io.streamfusion.backend.snapshot;

import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.runtime.state.CheckpointStateOutputStream;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.StateUtil;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.util.IOUtils;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Copies files of a native checkpoint into checkpoint storage, computing each file's CRC32C on
 * the way. Streams are registered with the snapshot's registry, so cancelling the checkpoint
 * stops an upload; every finished upload is registered for discarding with {@code
 * uploadedResources}, which the snapshot closes if it does not complete.
 */
final class SnapshotFileUploader {

    private static final int BUFFER_BYTES = 64 << 10;

    private SnapshotFileUploader() {}

    static UploadedFile upload(
            Path file,
            CheckpointStreamFactory streamFactory,
            CheckpointedStateScope scope,
            CloseableRegistry snapshotRegistry,
            CloseableRegistry uploadedResources)
            throws IOException {
        InputStream in = null;
        CheckpointStateOutputStream out = null;
        try {
            in = Files.newInputStream(file);
            snapshotRegistry.registerCloseable(in);
            out = streamFactory.createCheckpointStateOutputStream(scope);
            snapshotRegistry.registerCloseable(out);
            CRC32C crc = new CRC32C();
            byte[] buffer = new byte[BUFFER_BYTES];
            long size = 0;
            for (int read; (read = in.read(buffer)) != -1; ) {
                crc.update(buffer, 0, read);
                out.write(buffer, 0, read);
                size += read;
            }
            if (!snapshotRegistry.unregisterCloseable(out)) {
                throw new IOException("Upload of " + file + " was cancelled");
            }
            StreamStateHandle handle = out.closeAndGetHandle();
            out = null;
            uploadedResources.registerCloseable(() -> StateUtil.discardStateObjectQuietly(handle));
            return new UploadedFile(
                    HandleAndLocalPath.of(handle, file.getFileName().toString()), size, (int) crc.getValue());
        } finally {
            if (snapshotRegistry.unregisterCloseable(in)) {
                IOUtils.closeQuietly(in);
            }
            if (snapshotRegistry.unregisterCloseable(out)) {
                IOUtils.closeQuietly(out);
            }
        }
    }
}
