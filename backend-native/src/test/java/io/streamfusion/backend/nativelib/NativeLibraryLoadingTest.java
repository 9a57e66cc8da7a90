package io.streamfusion.backend.nativelib;

import io.streamfusion.api.columnar.BinaryFieldType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Loading the library as Flink would: from fresh class loaders, with the library missing, corrupt,
 * or present, and from several loaders in one JVM.
 */
class NativeLibraryLoadingTest {

    @TempDir Path dir;

    private static URL classesRoot() {
        return NativeLibrary.class.getProtectionDomain().getCodeSource().getLocation();
    }

    private static URL nativeLibraryRoot() throws Exception {
        String resource = NativeLibrary.resourcePath(NativeLibrary.platform());
        URL url = NativeLibrary.class.getClassLoader().getResource(resource);
        assertNotNull(url, "the test class path must hold the built native library");
        String s = url.toString();
        String root = s.substring(0, s.length() - resource.length());
        if (root.startsWith("jar:") && root.endsWith("!/")) {
            root = root.substring(4, root.length() - 2);
        }
        return new URL(root);
    }

    /** A loader that sees our classes (and maybe the library) but nothing of the test's loader. */
    private static URLClassLoader isolatedLoader(boolean withLibrary) throws Exception {
        // The plugin jar holds backend-api too: the ABI descriptor names its codes.
        URL api = BinaryFieldType.class.getProtectionDomain().getCodeSource().getLocation();
        URL[] urls =
                withLibrary
                        ? new URL[] {classesRoot(), api, nativeLibraryRoot()}
                        : new URL[] {classesRoot(), api};
        return new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
    }

    private static Throwable loadFailure(ClassLoader loader) throws Exception {
        Method ensureLoaded =
                loader.loadClass(NativeLibrary.class.getName()).getMethod("ensureLoaded");
        InvocationTargetException e =
                assertThrows(InvocationTargetException.class, () -> ensureLoaded.invoke(null));
        return e.getCause();
    }

    @Test
    void missingLibraryNamesPlatformPathAndFix() throws Exception {
        try (URLClassLoader loader = isolatedLoader(false)) {
            Throwable failure = loadFailure(loader);
            assertEquals(NativeLibraryException.class.getName(), failure.getClass().getName());
            String message = failure.getMessage();
            assertTrue(
                    message.contains("not found for platform " + NativeLibrary.platform()),
                    message);
            assertTrue(
                    message.contains(NativeLibrary.resourcePath(NativeLibrary.platform())),
                    message);
            assertTrue(message.contains("mvn package"), message);
            // The failure is remembered, with the same message, instead of a bare link error later.
            assertEquals(message, loadFailure(loader).getMessage());
        }
    }

    @Test
    void corruptLibraryNamesTheFile() throws Exception {
        Path corrupt = dir.resolve("libstreamfusion.so");
        Files.write(corrupt, new byte[] {0x7f, 'E', 'L', 'F', 1, 2, 3, 4, 5, 6, 7, 8});
        System.setProperty(NativeLibrary.LIBRARY_PATH_PROPERTY, corrupt.toString());
        try (URLClassLoader loader = isolatedLoader(true)) {
            Throwable failure = loadFailure(loader);
            assertEquals(NativeLibraryException.class.getName(), failure.getClass().getName());
            assertTrue(
                    failure.getMessage()
                            .contains("Could not load the StreamFusion native library '" + corrupt),
                    failure.getMessage());
            assertTrue(failure.getMessage().contains("corrupt"), failure.getMessage());
        } finally {
            System.clearProperty(NativeLibrary.LIBRARY_PATH_PROPERTY);
        }
    }

    @Test
    void foreignLibraryIsRejectedAsNotOurs() throws Exception {
        Path libc = Path.of("/lib/x86_64-linux-gnu/libc.so.6");
        if (!Files.exists(libc)) {
            libc = Path.of("/usr/lib/x86_64-linux-gnu/libc.so.6");
        }
        System.setProperty(NativeLibrary.LIBRARY_PATH_PROPERTY, libc.toString());
        try (URLClassLoader loader = isolatedLoader(false)) {
            Throwable failure = loadFailure(loader);
            assertTrue(
                    failure.getMessage().contains("is not a StreamFusion native library"),
                    failure.getMessage());
        } finally {
            System.clearProperty(NativeLibrary.LIBRARY_PATH_PROPERTY);
        }
    }

    @Test
    void severalClassLoadersEachLoadTheLibrary() throws Exception {
        NativeLibrary.ensureLoaded();
        try (URLClassLoader first = isolatedLoader(true);
                URLClassLoader second = isolatedLoader(true)) {
            Object[] paths = new Object[2];
            int i = 0;
            for (ClassLoader loader : new ClassLoader[] {first, second}) {
                Class<?> library = loader.loadClass(NativeLibrary.class.getName());
                library.getMethod("ensureLoaded").invoke(null);
                paths[i++] = library.getMethod("loadedFrom").invoke(null);
                Method abi =
                        loader.loadClass(NativeMethods.class.getName())
                                .getDeclaredMethod("abiVersion");
                abi.setAccessible(true);
                assertEquals(NativeLibrary.ABI_VERSION, abi.invoke(null));
            }
            assertInstanceOf(Path.class, paths[0]);
            assertNotSame(paths[0], paths[1]);
        }
    }
}
