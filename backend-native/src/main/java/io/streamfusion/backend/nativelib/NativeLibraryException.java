package io.streamfusion.backend.nativelib;

/**
 * The native library could not be found, loaded, or matched to this Java code. The message names
 * the platform, the path that was tried, and what to do about it.
 */
public class NativeLibraryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public NativeLibraryException(String message) {
        super(message);
    }

    public NativeLibraryException(String message, Throwable cause) {
        super(message, cause);
    }
}
