package io.streamfusion.api;

/**
 * Where StreamFusion keeps timers; the values of {@code
 * state.backend.streamfusion.timer-service.factory}.
 */
public enum PriorityQueueStateType {
    /**
     * In the native store, ordered on disk by key group and timestamp, with a small heap cache per
     * key group.
     */
    NATIVE,
    /** In Flink's heap priority queues, as Flink's rocksdb backend does with {@code HEAP}. */
    HEAP
}
