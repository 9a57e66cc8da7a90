package io.streamfusion.backend.memory;

import io.streamfusion.backend.nativelib.NativeSlotMemory;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The native block cache lends within half of itself, and lends nothing once closed. */
class SlotBlockCacheLenderTest {

    private static final long MIB = 1 << 20;

    @Test
    void lendsIdleBlockCacheWithinHalfOfItAndNothingOnceClosed() {
        NativeSlotMemory memory = NativeSlotMemory.allocate(96 * MIB, 0.5, 4 * MIB, 0);
        SlotBlockCacheLender lender = new SlotBlockCacheLender(memory);
        // Flink's split: the cache 80 MiB, of which memtables may take 32 MiB; but a slot with no
        // column family open has no memtable to come. An empty cache holds its own table (the
        // hyper clock cache charges it), which is not idle.
        long capacity = memory.usageIfOpen().cacheCapacity();
        long table = memory.usageIfOpen().cacheUsage();
        assertEquals(80 * MIB, capacity);
        assertEquals(
                80 * MIB - table,
                lender.room().idleBytes(),
                "no column family, no memtable to come");

        assertEquals(10 * MIB, lender.lend(10 * MIB));
        assertEquals(70 * MIB, lender.room().capacity());
        assertEquals(70 * MIB - table, lender.room().idleBytes());
        assertEquals(10 * MIB, lender.room().lentBytes());
        assertEquals(40 * MIB, lender.lend(100 * MIB), "at most half of the block cache");
        assertEquals(0, lender.lend(0));
        assertEquals(capacity, lender.room().capacity());

        memory.close();
        assertEquals(0, lender.lend(MIB));
        assertEquals(0, lender.room().capacity());
    }
}
