package io.streamfusion.backend.memory;

import io.streamfusion.backend.cache.DecodedValueCache;
import io.streamfusion.backend.nativelib.NativeSlotMemory;

import javax.annotation.Nullable;

/**
 * Everything a slot's memory budget pays for: RocksDB's shared cache and write buffers, and the
 * decoded-value cache (null when disabled or refused). Freed when the slot's last keyed backend
 * releases it.
 */
public final class SlotMemory implements AutoCloseable {

    private final NativeSlotMemory nativeMemory;
    @Nullable private final DecodedValueCache valueCache;

    public SlotMemory(NativeSlotMemory nativeMemory, @Nullable DecodedValueCache valueCache) {
        this.nativeMemory = nativeMemory;
        this.valueCache = valueCache;
    }

    public NativeSlotMemory nativeMemory() {
        return nativeMemory;
    }

    @Nullable
    public DecodedValueCache valueCache() {
        return valueCache;
    }

    @Override
    public void close() {
        nativeMemory.close();
    }
}
