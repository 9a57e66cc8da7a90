package io.streamfusion.backend.snapshot;

import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointStreamWithResultProvider;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.FullSnapshotAsyncWriter;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.SnapshotStrategy;
import org.apache.flink.util.function.SupplierWithException;

import javax.annotation.Nonnull;

import java.io.IOException;

/**
 * Full checkpoints in Flink's canonical key-grouped format, written by Flink's own {@link
 * FullSnapshotAsyncWriter} over one ordered native scan. The result is a {@code
 * KeyGroupsStateHandle} that StreamFusion restores at any parallelism. As with every Flink
 * backend, switching backends goes through a canonical savepoint, not a checkpoint: the heap
 * backend reads non-savepoint handles in its own format. The synchronous phase only takes a
 * native snapshot.
 */
public final class CanonicalFullSnapshotStrategy<K>
        implements SnapshotStrategy<KeyedStateHandle, CanonicalSnapshotResources<K>> {

    private static final String DESCRIPTION = "StreamFusion full canonical snapshot";

    /** Captures resources in the synchronous phase. */
    @FunctionalInterface
    public interface ResourcesSupplier<K> {
        CanonicalSnapshotResources<K> get() throws IOException;
    }

    private final ResourcesSupplier<K> resources;
    private final SnapshotTimings timings = new SnapshotTimings();

    public CanonicalFullSnapshotStrategy(ResourcesSupplier<K> resources) {
        this.resources = resources;
    }

    public SnapshotTimings timings() {
        return timings;
    }

    public String getDescription() {
        return DESCRIPTION;
    }

    @Override
    public CanonicalSnapshotResources<K> syncPrepareResources(long checkpointId) throws Exception {
        long start = System.nanoTime();
        CanonicalSnapshotResources<K> prepared = resources.get();
        timings.recordSync(start);
        return prepared;
    }

    @Override
    public SnapshotResultSupplier<KeyedStateHandle> asyncSnapshot(
            CanonicalSnapshotResources<K> snapshotResources,
            long checkpointId,
            long timestamp,
            @Nonnull CheckpointStreamFactory streamFactory,
            @Nonnull CheckpointOptions checkpointOptions) {
        if (snapshotResources.getMetaInfoSnapshots().isEmpty()) {
            // The runner releases the resources in either case.
            return registry -> SnapshotResult.empty();
        }
        SupplierWithException<CheckpointStreamWithResultProvider, Exception> streams =
                () ->
                        new CheckpointStreamWithResultProvider.PrimaryStreamOnly(
                                streamFactory.createCheckpointStateOutputStream(CheckpointedStateScope.EXCLUSIVE));
        SnapshotResultSupplier<KeyedStateHandle> writer =
                new FullSnapshotAsyncWriter<>(checkpointOptions.getCheckpointType(), streams, snapshotResources);
        return registry -> {
            long start = System.nanoTime();
            SnapshotResult<KeyedStateHandle> result = writer.get(registry);
            timings.recordAsync(start);
            return result;
        };
    }
}
