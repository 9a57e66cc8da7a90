package io.streamfusion.backend.nativelib;

/**
 * A bug inside the native library or in how Java called it, not a problem with the user's job or
 * data: a broken invariant, or a Rust panic, whose message gives the source location. Thrown by the
 * native side itself. Please report it with the message.
 */
public final class NativeInternalException extends NativeStateException {

    private static final long serialVersionUID = 1L;

    public NativeInternalException(String message) {
        super(message);
    }
}
