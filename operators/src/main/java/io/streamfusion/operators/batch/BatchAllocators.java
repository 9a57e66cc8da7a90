package io.streamfusion.operators.batch;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The JVM's one Arrow root allocator, and a bounded child of it per operator instance, as Arrow
 * recommends. A child is capped at the operator's {@code streamfusion.operators.batch-memory};
 * closing it fails loudly if any buffer was not released, so a leak cannot go unnoticed.
 */
public final class BatchAllocators {

    private static final RootAllocator ROOT = new RootAllocator(Long.MAX_VALUE);

    private BatchAllocators() {}

    /** A new allocator named {@code owner} that allocates at most {@code limitBytes}. */
    public static BufferAllocator forOperator(String owner, long limitBytes) {
        return ROOT.newChildAllocator(owner, 0, limitBytes);
    }

    /** Bytes held by every operator's Arrow buffers in this JVM; for tests and metrics. */
    public static long allocatedBytes() {
        return ROOT.getAllocatedMemory();
    }
}
