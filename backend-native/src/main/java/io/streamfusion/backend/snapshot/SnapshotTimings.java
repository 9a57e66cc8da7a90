package io.streamfusion.backend.snapshot;

/**
 * Durations of the latest checkpoint's synchronous and asynchronous phases, for metrics. Written by
 * the snapshot strategy, read by the metric reporter thread.
 */
public final class SnapshotTimings {

    private volatile long lastSyncMillis = -1;
    private volatile long lastAsyncMillis = -1;

    void recordSync(long startNanos) {
        lastSyncMillis = (System.nanoTime() - startNanos) / 1_000_000;
    }

    void recordAsync(long startNanos) {
        lastAsyncMillis = (System.nanoTime() - startNanos) / 1_000_000;
    }

    /** Milliseconds of the latest synchronous phase, or -1 before the first checkpoint. */
    public long lastSyncMillis() {
        return lastSyncMillis;
    }

    /** Milliseconds of the latest completed asynchronous phase, or -1 before the first one. */
    public long lastAsyncMillis() {
        return lastAsyncMillis;
    }
}
