package io.streamfusion.backend.snapshot;

import io.streamfusion.backend.nativelib.NativeStore;

import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SnapshotType.SharingFilesStrategy;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotDirectory;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.SnapshotStrategy;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.util.ResourceGuard;

import javax.annotation.Nonnull;
import javax.annotation.Nullable;

import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Checkpoints and native savepoints in StreamFusion's native format: RocksDB's own files plus a
 * meta document from the snapshot-format module, expressed as Flink's {@code
 * IncrementalRemoteKeyedStateHandle}.
 *
 * <p>The synchronous phase only applies held writes and switches the memtables ({@link
 * PendingNativeCheckpoint}). The asynchronous phase waits for their flushes, takes a native RocksDB
 * checkpoint, which hard-links the live files, and uploads them. In incremental mode, SST files of
 * the last confirmed checkpoint are referenced instead of uploaded again; in full mode (Flink's
 * incremental switch set to false) every file is uploaded as private state of the checkpoint.
 * Savepoints never share files with checkpoints.
 */
public final class NativeSnapshotStrategy<K>
        implements SnapshotStrategy<KeyedStateHandle, NativeSnapshotResources>, CheckpointListener {

    private final NativeStore store;
    private final ResourceGuard storeGuard;
    private final Supplier<List<StateMetaInfoSnapshot>> stateMetaInfos;
    private final TypeSerializer<K> keySerializer;
    private final KeyGroupRange keyGroupRange;
    private final int keyGroupPrefixBytes;
    private final File workingDirectory;
    private final UUID backendIdentifier;

    /** Null in full mode, which never reuses files. */
    @Nullable private final ConfirmedSnapshotFiles confirmedFiles;

    private final SnapshotTimings timings = new SnapshotTimings();

    /** Tells apart directories of snapshots that share a checkpoint id, as Flink's tests do. */
    private final AtomicLong directorySequence = new AtomicLong();

    public NativeSnapshotStrategy(
            NativeStore store,
            ResourceGuard storeGuard,
            Supplier<List<StateMetaInfoSnapshot>> stateMetaInfos,
            TypeSerializer<K> keySerializer,
            KeyGroupRange keyGroupRange,
            int keyGroupPrefixBytes,
            File workingDirectory,
            UUID backendIdentifier,
            @Nullable ConfirmedSnapshotFiles confirmedFiles) {
        this.store = store;
        this.storeGuard = storeGuard;
        this.stateMetaInfos = stateMetaInfos;
        this.keySerializer = keySerializer;
        this.keyGroupRange = keyGroupRange;
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.workingDirectory = workingDirectory;
        this.backendIdentifier = backendIdentifier;
        this.confirmedFiles = confirmedFiles;
    }

    public String getDescription() {
        return isIncremental()
                ? "StreamFusion incremental native snapshot"
                : "StreamFusion full native snapshot";
    }

    public boolean isIncremental() {
        return confirmedFiles != null;
    }

    public SnapshotTimings timings() {
        return timings;
    }

    @Override
    public NativeSnapshotResources syncPrepareResources(long checkpointId) throws Exception {
        long start = System.nanoTime();
        // Taken before the native checkpoint, so that nothing can fail after it but the
        // checkpoint itself; the task thread registers no state in between.
        List<StateMetaInfoSnapshot> metaInfos = stateMetaInfos.get();
        Map<String, UploadedFile> reusable =
                confirmedFiles == null ? Map.of() : confirmedFiles.reusable();
        File target =
                new File(
                        workingDirectory,
                        "chk-" + checkpointId + "-" + directorySequence.incrementAndGet());
        SnapshotDirectory directory = SnapshotDirectory.temporary(target);
        PendingNativeCheckpoint checkpoint;
        try {
            checkpoint = PendingNativeCheckpoint.begin(store, storeGuard, target);
        } catch (Exception e) {
            directory.cleanup();
            throw e;
        }
        NativeSnapshotResources resources =
                new NativeSnapshotResources(checkpoint, directory, metaInfos, reusable);
        timings.recordSync(start);
        return resources;
    }

    @Override
    public SnapshotResultSupplier<KeyedStateHandle> asyncSnapshot(
            NativeSnapshotResources resources,
            long checkpointId,
            long timestamp,
            @Nonnull CheckpointStreamFactory streamFactory,
            @Nonnull CheckpointOptions checkpointOptions) {
        if (resources.stateMetaInfos.isEmpty()) {
            // The runner releases the resources in either case.
            return registry -> SnapshotResult.empty();
        }
        SharingFilesStrategy sharing =
                checkpointOptions.getCheckpointType().getSharingFilesStrategy();
        boolean shareSstFiles = isIncremental();
        boolean sharesWithCheckpoints =
                isIncremental() && sharing != SharingFilesStrategy.NO_SHARING;
        NativeSnapshotOperation<K> operation =
                new NativeSnapshotOperation<>(
                        checkpointId,
                        backendIdentifier,
                        keyGroupRange,
                        keyGroupPrefixBytes,
                        keySerializer,
                        resources,
                        streamFactory,
                        shareSstFiles,
                        sharing == SharingFilesStrategy.FORWARD_BACKWARD
                                ? resources.reusableFiles
                                : Map.of(),
                        sharesWithCheckpoints
                                ? CheckpointedStateScope.SHARED
                                : CheckpointedStateScope.EXCLUSIVE);
        return registry -> {
            long start = System.nanoTime();
            resources.checkpoint.awaitFiles();
            NativeSnapshotOperation.Result result = operation.run(registry);
            if (sharesWithCheckpoints && confirmedFiles != null) {
                confirmedFiles.recordUploaded(checkpointId, result.sharedFiles());
            }
            timings.recordAsync(start);
            return SnapshotResult.of(result.handle());
        };
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        if (confirmedFiles != null) {
            confirmedFiles.confirm(checkpointId);
        }
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        if (confirmedFiles != null) {
            confirmedFiles.abort(checkpointId);
        }
    }
}
