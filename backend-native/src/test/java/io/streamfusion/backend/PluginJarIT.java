package io.streamfusion.backend;

import io.streamfusion.backend.nativelib.NativeLibrary;

import org.apache.flink.configuration.Configuration;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The plugin jar a user drops into Flink's lib/: what it holds, and that it works when loaded by a
 * class loader of its own, as Flink loads backends from the user-code class loader.
 */
class PluginJarIT {

    private static File pluginJar() {
        String path = System.getProperty("streamfusion.plugin.jar");
        assertNotNull(path, "failsafe passes the plugin jar path");
        File jar = new File(path);
        assertTrue(jar.isFile(), "plugin jar missing: " + jar);
        return jar;
    }

    @Test
    void holdsOurClassesTheAliasAndTheNativeLibraryAndNothingUnrelocated() throws Exception {
        List<String> foreign = new ArrayList<>();
        boolean alias = false;
        boolean library = false;
        try (JarFile jar = new JarFile(pluginJar())) {
            for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
                String name = entries.nextElement().getName();
                alias |= name.equals("streamfusion.class");
                library |=
                        name.equals(
                                "streamfusion/native/"
                                        + NativeLibrary.platform()
                                        + "/libstreamfusion.so");
                // Arrow keeps its packages: the JNI library of its C Data Interface names them.
                if (name.endsWith(".class")
                        && !name.equals("streamfusion.class")
                        && !name.startsWith("io/streamfusion/")
                        && !name.startsWith("org/apache/arrow/")
                        && !name.startsWith("META-INF/versions/")) {
                    foreign.add(name);
                }
            }
        }
        assertTrue(alias, "the short-name class 'streamfusion' is in the unnamed package");
        assertTrue(library, "the native library is packed under its platform folder");
        assertEquals(
                List.of(),
                foreign,
                "third-party classes but Arrow's must be relocated under io.streamfusion.shaded");
    }

    @Test
    void loadsFromAFreshClassLoaderAndCreatesTheBackendByShortName() throws Exception {
        try (URLClassLoader loader =
                new ChildFirstLoader(pluginJar(), getClass().getClassLoader())) {
            Class<?> alias = Class.forName("streamfusion", false, loader);
            assertSame(loader, alias.getClassLoader(), "the alias must come from the plugin jar");
            Object factory = alias.getConstructor().newInstance();
            Object backend =
                    alias.getMethod(
                                    "createFromConfig",
                                    org.apache.flink.configuration.ReadableConfig.class,
                                    ClassLoader.class)
                            .invoke(factory, new Configuration(), loader);
            assertEquals(StreamFusionStateBackend.class.getName(), backend.getClass().getName());
            assertSame(loader, backend.getClass().getClassLoader());

            Class<?> library = Class.forName(NativeLibrary.class.getName(), true, loader);
            library.getMethod("ensureLoaded").invoke(null);
            Object loadedFrom = library.getMethod("loadedFrom").invoke(null);
            assertNotNull(loadedFrom, "the library was extracted from the plugin jar and loaded");
        }
    }

    /** Loads our classes from the jar first, everything else (Flink) from the parent. */
    private static final class ChildFirstLoader extends URLClassLoader {
        ChildFirstLoader(File jar, ClassLoader parent) throws Exception {
            super(new URL[] {jar.toURI().toURL()}, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                if (name.equals("streamfusion") || name.startsWith("io.streamfusion.")) {
                    Class<?> loaded = findLoadedClass(name);
                    if (loaded == null) {
                        loaded = findClass(name);
                    }
                    if (resolve) {
                        resolveClass(loaded);
                    }
                    return loaded;
                }
                return super.loadClass(name, resolve);
            }
        }

        @Override
        public URL getResource(String name) {
            URL own = findResource(name);
            return own != null ? own : super.getResource(name);
        }
    }
}
