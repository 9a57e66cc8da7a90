package io.streamfusion.backend.nativelib;

/**
 * Owns one opaque native handle and frees it exactly once.
 *
 * <p>A second {@link #close()} does nothing; any use after close throws {@link
 * IllegalStateException} instead of passing a dangling pointer to native code. Callers that share a
 * handle between threads (a snapshot thread and the task thread) must also keep it from being
 * closed while in use; the keyed backend does this with Flink's {@code ResourceGuard}, as Flink's
 * RocksDB backend does.
 */
abstract class NativeHandle implements AutoCloseable {

    private final String description;
    private volatile long handle;

    NativeHandle(long handle, String description) {
        if (handle == 0) {
            throw new NativeStateException("native call returned no handle for " + description);
        }
        this.handle = handle;
        this.description = description;
    }

    /** The live handle, or an exception if this object was closed. */
    final long handle() {
        long current = handle;
        if (current == 0) {
            throw new IllegalStateException(description + " is already closed");
        }
        return current;
    }

    public final boolean isClosed() {
        return handle == 0;
    }

    @Override
    public final synchronized void close() {
        long current = handle;
        if (current != 0) {
            handle = 0;
            free(current);
        }
    }

    /** Releases the native object. Called at most once. */
    abstract void free(long handle);

    @Override
    public String toString() {
        return description + (isClosed() ? " (closed)" : "");
    }
}
