package io.streamfusion.backend.cache;

import io.streamfusion.backend.nativelib.NativeSharedMemory;

import javax.annotation.Nullable;

/**
 * Everything a slot's memory budget pays for: RocksDB's shared cache and write buffers, and the
 * decoded-value cache (null when disabled or refused). Freed when the slot's last keyed backend
 * releases it.
 */
public final class SlotResources implements AutoCloseable {

    private final NativeSharedMemory nativeMemory;
    @Nullable private final DecodedValueCache valueCache;

    public SlotResources(NativeSharedMemory nativeMemory, @Nullable DecodedValueCache valueCache) {
        this.nativeMemory = nativeMemory;
        this.valueCache = valueCache;
    }

    public NativeSharedMemory nativeMemory() {
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
