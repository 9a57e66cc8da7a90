package io.streamfusion.backend;

import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.checkpoint.SnapshotType;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SavepointSnapshotStrategy;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.SnapshotStrategyRunner;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;

import java.io.File;
import java.io.IOException;
import java.util.concurrent.RunnableFuture;

import static org.apache.flink.runtime.state.SnapshotExecutionType.ASYNCHRONOUS;

/**
 * Takes snapshots of a keyed backend the way a task does, into checkpoint storage on local files.
 */
final class TestSnapshots {

    private TestSnapshots() {}

    /**
     * Streams into {@code directory}; every state goes to its own file (no inlining of small
     * state).
     */
    static CheckpointStreamFactory fileStreams(File directory, long checkpointId)
            throws IOException {
        return new FileSystemCheckpointStorage(new Path(directory.toURI()), 0, -1)
                .createCheckpointStorage(new JobID())
                .resolveCheckpointStorageLocation(
                        checkpointId, CheckpointStorageLocationReference.getDefault());
    }

    static KeyedStateHandle checkpoint(
            StreamFusionKeyedStateBackend<?> backend, long id, CheckpointStreamFactory streams)
            throws Exception {
        return run(
                backend.snapshot(
                        id, id, streams, CheckpointOptions.forCheckpointWithDefaultLocation()));
    }

    /** A checkpoint, native savepoint, or full checkpoint of the given type. */
    static KeyedStateHandle snapshot(
            StreamFusionKeyedStateBackend<?> backend,
            long id,
            CheckpointStreamFactory streams,
            SnapshotType type)
            throws Exception {
        CheckpointOptions options =
                new CheckpointOptions(type, CheckpointStorageLocationReference.getDefault());
        return run(backend.snapshot(id, id, streams, options));
    }

    static KeyedStateHandle canonicalSavepoint(
            StreamFusionKeyedStateBackend<?> backend, long id, CheckpointStreamFactory streams)
            throws Exception {
        CheckpointOptions options =
                new CheckpointOptions(
                        SavepointType.savepoint(SavepointFormatType.CANONICAL),
                        CheckpointStorageLocationReference.getDefault());
        return run(
                new SnapshotStrategyRunner<>(
                                "canonical savepoint",
                                new SavepointSnapshotStrategy<>(
                                        backend.savepoint().getSnapshotResources()),
                                new CloseableRegistry(),
                                ASYNCHRONOUS)
                        .snapshot(id, id, streams, options));
    }

    private static KeyedStateHandle run(RunnableFuture<SnapshotResult<KeyedStateHandle>> future)
            throws Exception {
        future.run();
        return future.get().getJobManagerOwnedSnapshot();
    }
}
