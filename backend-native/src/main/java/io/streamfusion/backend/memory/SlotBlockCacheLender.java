package io.streamfusion.backend.memory;

import io.streamfusion.backend.cache.BlockCacheLender;
import io.streamfusion.backend.cache.BlockCacheRoom;
import io.streamfusion.backend.nativelib.NativeSlotMemory;
import io.streamfusion.backend.nativelib.SlotMemoryUsage;

/** The slot's native block cache as the lender of its decoded-value cache. */
final class SlotBlockCacheLender implements BlockCacheLender {

    private final NativeSlotMemory memory;

    SlotBlockCacheLender(NativeSlotMemory memory) {
        this.memory = memory;
    }

    @Override
    public BlockCacheRoom room() {
        SlotMemoryUsage usage = memory.usageIfOpen();
        return new BlockCacheRoom(usage.cacheCapacity(), usage.idleCacheBytes(), usage.lentBytes());
    }

    @Override
    public long lend(long bytes) {
        return memory.lendToValueCache(bytes);
    }

    @Override
    public long accept(long bytes) {
        return memory.acceptFromValueCache(bytes);
    }
}
