package io.streamfusion.demo;

import org.apache.flink.api.common.functions.MapFunction;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Passes events through, but fails the task once, after the first checkpoint has completed, so that
 * the job must recover from that checkpoint. In-JVM static state: MiniCluster only.
 */
final class FailOnceAfterCheckpoint implements MapFunction<Long, Long> {

    private static final long serialVersionUID = 1L;

    static final AtomicBoolean FAILED = new AtomicBoolean();

    @Override
    public Long map(Long value) {
        if (CountPerKeyOperator.COMPLETED_CHECKPOINTS.get() >= 1
                && FAILED.compareAndSet(false, true)) {
            throw new IllegalStateException(
                    "Injected failure after a completed checkpoint (demo failover)");
        }
        return value;
    }
}
