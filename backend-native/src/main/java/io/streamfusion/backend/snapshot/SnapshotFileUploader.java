package io.streamfusion.backend.snapshot;

import io.streamfusion.snapshot.format.ChecksummedCopy;

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
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the files of a native snapshot into checkpoint storage: the checkpoint directory's files,
 * each with its CRC32C computed on the way, and the meta document. Streams are registered with the
 * snapshot's registry, so cancelling the snapshot stops a write; every finished file is registered
 * for discarding with {@code uploadedResources}, which the snapshot closes if it does not complete.
 */
final class SnapshotFileUploader {

    /** Writes the contents of one stored file. */
    @FunctionalInterface
    interface Contents<T> {
        T writeTo(OutputStream out) throws IOException;
    }

    /** A stored file's handle and what writing it returned. */
    record Written<T>(StreamStateHandle handle, T result) {}

    private SnapshotFileUploader() {}

    static UploadedFile upload(
            Path file,
            CheckpointStreamFactory streamFactory,
            CheckpointedStateScope scope,
            CloseableRegistry snapshotRegistry,
            CloseableRegistry uploadedResources)
            throws IOException {
        InputStream in = Files.newInputStream(file);
        snapshotRegistry.registerCloseable(in);
        try {
            Written<ChecksummedCopy.Copied> written =
                    write(
                            "file " + file,
                            streamFactory,
                            scope,
                            snapshotRegistry,
                            uploadedResources,
                            out -> ChecksummedCopy.copy(in, out));
            return new UploadedFile(
                    HandleAndLocalPath.of(written.handle(), file.getFileName().toString()),
                    written.result().size(),
                    written.result().crc32c());
        } finally {
            if (snapshotRegistry.unregisterCloseable(in)) {
                IOUtils.closeQuietly(in);
            }
        }
    }

    /** Writes one file of checkpoint storage with {@code contents}. */
    static <T> Written<T> write(
            String what,
            CheckpointStreamFactory streamFactory,
            CheckpointedStateScope scope,
            CloseableRegistry snapshotRegistry,
            CloseableRegistry uploadedResources,
            Contents<T> contents)
            throws IOException {
        CheckpointStateOutputStream out = streamFactory.createCheckpointStateOutputStream(scope);
        snapshotRegistry.registerCloseable(out);
        try {
            T result = contents.writeTo(out);
            if (!snapshotRegistry.unregisterCloseable(out)) {
                throw new IOException("Writing " + what + " to checkpoint storage was cancelled");
            }
            StreamStateHandle handle = out.closeAndGetHandle();
            out = null;
            uploadedResources.registerCloseable(() -> StateUtil.discardStateObjectQuietly(handle));
            return new Written<>(handle, result);
        } finally {
            if (out != null && snapshotRegistry.unregisterCloseable(out)) {
                IOUtils.closeQuietly(out);
            }
        }
    }
}
