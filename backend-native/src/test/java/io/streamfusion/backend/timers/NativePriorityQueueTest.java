package io.streamfusion.backend.timers;

import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeSlotMemory;
import io.streamfusion.backend.nativelib.NativeStore;

import org.apache.flink.runtime.state.InternalPriorityQueue;
import org.apache.flink.runtime.state.InternalPriorityQueueTestBase;
import org.apache.flink.util.IOUtils;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Flink's priority-queue conformance suite ({@link InternalPriorityQueueTestBase}) against the
 * native timer queue. The per-key-group cache holds only four elements, so most operations also
 * exercise the on-disk part of the queue.
 */
class NativePriorityQueueTest extends InternalPriorityQueueTestBase {

    private static final int SMALL_CACHE = 4;

    @TempDir File dir;

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    @Override
    protected InternalPriorityQueue<TestElement> newPriorityQueue(int initialCapacity) {
        NativeSlotMemory memory = NativeSlotMemory.allocate(8 << 20, 0.5, 4 << 20, 64 << 10);
        resources.push(memory);
        NativeStore store = NativeStore.open(new File(dir, "store-" + resources.size()), memory);
        resources.push(store);
        NativeColumnFamily columnFamily = store.openColumnFamily("timers");
        resources.push(columnFamily);
        return new NativePriorityQueueSetFactory(
                        KEY_GROUP_RANGE, KEY_GROUP_RANGE.getNumberOfKeyGroups(), 1, SMALL_CACHE)
                .create(columnFamily, TestElementSerializer.INSTANCE);
    }

    @Override
    protected boolean testSetSemanticsAgainstDuplicateElements() {
        return true;
    }

    @AfterEach
    void closeStores() {
        while (!resources.isEmpty()) {
            IOUtils.closeQuietly(resources.pop());
        }
    }
}
