package io.streamfusion.backend.nativelib;

/**
 * A failure inside the native library: a RocksDB error (its status text is in the message), a
 * malformed batch, or a contained Rust panic. Thrown by the native side itself.
 */
public class NativeStateException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public NativeStateException(String message) {
        super(message);
    }
}
