package io.streamfusion.backend.nativelib;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Finds, extracts and loads the Rust library, then checks that it was built from the same source as
 * this Java code.
 *
 * <p>The library is loaded once per class loader that holds this class. With the plugin jar in
 * Flink's {@code lib/} that is once per JVM, however many user-code class loaders the jobs have.
 * The JVM refuses to bind one library file to two class loaders, so each loader that does load this
 * class (tests do) extracts its own copy of the file.
 *
 * <p>A failure is remembered: every later call throws the same clear error rather than a bare
 * {@link UnsatisfiedLinkError} at some random native call.
 */
public final class NativeLibrary {

    /** Must equal {@code ABI_VERSION} in native/src/abi.rs. */
    public static final int ABI_VERSION = NativeAbi.VERSION;

    /** Overrides the library file; for development and for tests of broken libraries. */
    public static final String LIBRARY_PATH_PROPERTY = "streamfusion.native.library";

    static final String LIBRARY_FILE = "libstreamfusion.so";

    private static final String BUILD_HINT =
            "Build it with 'mvn package' from the StreamFusion source tree (needs cargo), or use"
                    + " the plugin jar streamfusion-backend-native-*-plugin.jar, which carries it.";

    private static Path loadedFrom;
    private static NativeLibraryException failure;

    private NativeLibrary() {}

    /** Loads the library if this class loader has not yet done so. Thread-safe. */
    public static synchronized void ensureLoaded() {
        if (loadedFrom != null) {
            return;
        }
        if (failure != null) {
            throw failure;
        }
        try {
            Path file = locate();
            loadFile(file);
            loadedFrom = file;
        } catch (NativeLibraryException e) {
            failure = e;
            throw e;
        }
    }

    /** Where the library was loaded from, for diagnostics; null before loading. */
    public static synchronized Path loadedFrom() {
        return loadedFrom;
    }

    /** The platform folder inside the jar, such as {@code linux-x86_64}. */
    public static String platform() {
        String os = System.getProperty("os.name", "unknown").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "unknown").toLowerCase(Locale.ROOT);
        String osName = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "darwin" : os;
        String archName =
                arch.equals("amd64") || arch.equals("x86_64")
                        ? "x86_64"
                        : arch.equals("aarch64") || arch.equals("arm64") ? "aarch64" : arch;
        return osName + "-" + archName;
    }

    static String resourcePath(String platform) {
        return "streamfusion/native/" + platform + "/" + LIBRARY_FILE;
    }

    private static Path locate() {
        String override = System.getProperty(LIBRARY_PATH_PROPERTY);
        if (override != null && !override.isEmpty()) {
            Path path = Paths.get(override);
            if (!Files.isRegularFile(path)) {
                throw new NativeLibraryException(
                        "StreamFusion native library not found at '"
                                + path
                                + "' (set by system property "
                                + LIBRARY_PATH_PROPERTY
                                + "). Point the property at a built "
                                + LIBRARY_FILE
                                + " or unset it to use the bundled library.");
            }
            return path;
        }
        return extractBundled();
    }

    private static Path extractBundled() {
        String platform = platform();
        String resource = resourcePath(platform);
        ClassLoader loader = NativeLibrary.class.getClassLoader();
        URL url =
                loader == null
                        ? ClassLoader.getSystemResource(resource)
                        : loader.getResource(resource);
        if (url == null) {
            throw new NativeLibraryException(
                    "StreamFusion native library not found for platform "
                            + platform
                            + ": no resource '"
                            + resource
                            + "' on the class path of "
                            + loader
                            + ". "
                            + BUILD_HINT);
        }
        try (InputStream in = url.openStream()) {
            Path dir = Files.createTempDirectory("streamfusion-native-");
            Path file = dir.resolve(LIBRARY_FILE);
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            file.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new NativeLibraryException(
                    "Could not extract the StreamFusion native library from "
                            + url
                            + " to a temporary directory (java.io.tmpdir="
                            + System.getProperty("java.io.tmpdir")
                            + "): "
                            + e.getMessage(),
                    e);
        }
    }

    private static void loadFile(Path file) {
        try {
            System.load(file.toAbsolutePath().toString());
        } catch (UnsatisfiedLinkError e) {
            throw new NativeLibraryException(
                    "Could not load the StreamFusion native library '"
                            + file
                            + "' on platform "
                            + platform()
                            + ": "
                            + e.getMessage()
                            + ". The file may be corrupt or built for another platform. "
                            + BUILD_HINT,
                    e);
        }
        int nativeAbi;
        try {
            nativeAbi = NativeMethods.abiVersion();
        } catch (UnsatisfiedLinkError e) {
            throw new NativeLibraryException(
                    "'"
                            + file
                            + "' loaded but is not a StreamFusion native library (it lacks"
                            + " StreamFusion's JNI functions). "
                            + BUILD_HINT,
                    e);
        }
        if (nativeAbi != ABI_VERSION) {
            throw new NativeLibraryException(
                    "StreamFusion native library '"
                            + file
                            + "' has ABI version "
                            + nativeAbi
                            + " but the Java classes expect "
                            + ABI_VERSION
                            + ". The jar and the library come from different builds. "
                            + BUILD_HINT);
        }
        try {
            NativeMethods.checkJavaAbi(NativeAbi.descriptor());
        } catch (NativeStateException e) {
            throw new NativeLibraryException(e.getMessage(), e);
        }
    }

    /** Makes the native side panic. Exists to prove that panics never cross JNI. */
    static void triggerPanicForTest(String message) {
        ensureLoaded();
        NativeMethods.triggerPanic(message);
    }
}
