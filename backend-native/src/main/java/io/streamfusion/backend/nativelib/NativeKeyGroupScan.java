package io.streamfusion.backend.nativelib;

/**
 * A scan over a point-in-time snapshot of several column families, handed out in encoded batches so
 * that JNI is crossed once per batch rather than once per entry. Decode batches with {@link
 * EntryBatchReader}.
 */
public final class NativeKeyGroupScan extends NativeHandle {

    NativeKeyGroupScan(long handle) {
        super(handle, "StreamFusion key-group scan");
    }

    /**
     * The next entries, about {@code maxBytes} of them encoded (always at least one entry if any
     * remain). An empty array means the scan is complete.
     */
    public byte[] nextBatch(int maxBytes) {
        return NativeMethods.scanNextBatch(handle(), maxBytes);
    }

    @Override
    void free(long handle) {
        NativeMethods.closeScan(handle);
    }
}
