package io.streamfusion.backend.memory;

import io.streamfusion.backend.cache.BlockCacheLender;
import io.streamfusion.backend.nativelib.NativeSlotMemory;

/** The slot's native block cache as the lender of its decoded-value cache. */
final class SlotBlockCacheLender implements BlockCacheLender {

    private final NativeSlotMemory memory;

    SlotBlockCacheLender(NativeSlotMemory memory) {
        this.memory = memory;
    }

    @Override
    public long blockCacheCapacity() {
        return memory.cacheCapacity();
    }

    @Override
    public long idleBlockCacheBytes() {
        return memory.idleCacheBytes();
    }

    @Override
    public long lentBytes() {
        return memory.lentBytes();
    }

    @Override
    public long lend(long bytes) {
        return memory.lendToValueCache(bytes);
    }
}
