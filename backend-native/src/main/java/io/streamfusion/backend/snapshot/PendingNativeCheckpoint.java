package io.streamfusion.backend.snapshot;

import io.streamfusion.backend.nativelib.NativeStore;

import org.apache.flink.util.ResourceGuard;

import java.io.File;

/**
 * A native checkpoint between Flink's two snapshot phases: begun on the task thread at the barrier,
 * where it only switches the memtables, and given its files in the asynchronous phase, which waits
 * for their flushes. It is completed exactly once, by the upload or, if that never runs, by the
 * release of the snapshot's resources, so that no directory is linked after its owner deleted it.
 */
final class PendingNativeCheckpoint {

    private final NativeStore store;
    private final ResourceGuard storeGuard;
    private final File target;

    private boolean completed;
    private Exception failure;

    private PendingNativeCheckpoint(NativeStore store, ResourceGuard storeGuard, File target) {
        this.store = store;
        this.storeGuard = storeGuard;
        this.target = target;
    }

    /** Begins a checkpoint of {@code store} into {@code target}; call on the task thread. */
    static PendingNativeCheckpoint begin(NativeStore store, ResourceGuard storeGuard, File target)
            throws Exception {
        try (ResourceGuard.Lease ignored = storeGuard.acquireResource()) {
            store.beginCheckpoint(target);
        }
        return new PendingNativeCheckpoint(store, storeGuard, target);
    }

    /**
     * Returns once the checkpoint's files are in its directory; throws if they could not be
     * written, or if the backend was disposed before they were.
     */
    synchronized void awaitFiles() throws Exception {
        if (!completed) {
            completed = true;
            try (ResourceGuard.Lease ignored = storeGuard.acquireResource()) {
                store.completeCheckpoint(target);
            } catch (Exception e) {
                failure = e;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
