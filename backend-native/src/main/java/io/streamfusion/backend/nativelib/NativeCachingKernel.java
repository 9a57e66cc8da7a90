package io.streamfusion.backend.nativelib;

/**
 * A native kernel with a cache, which reports its statistics after each batch in a {@link
 * NativeKernelStats} block: metric threads read them here, never calling into the library.
 */
abstract class NativeCachingKernel extends NativeHandle {

    private final NativeKernelStats stats;

    NativeCachingKernel(long handle, String description, NativeKernelStats stats) {
        super(handle, description);
        this.stats = stats;
    }

    /** Cache hits since the kernel opened, as of its last batch; readable from any thread. */
    public final long cacheHits() {
        return stats.cacheHits();
    }

    /** Cache misses since the kernel opened, as of its last batch; readable from any thread. */
    public final long cacheMisses() {
        return stats.cacheMisses();
    }

    /** Bytes of the slot budget the kernel reserved. */
    public final long reservedBytes() {
        return stats.reservedBytes();
    }
}
