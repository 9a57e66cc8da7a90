package io.streamfusion.backend.nativelib;

/**
 * The {@code native} methods of the Rust library, one per JNI entry point in
 * native/src/jni/entry_points.rs. Nothing outside this package calls them: the handle classes
 * ({@link NativeStore}, {@link NativeStateColumn}, {@link NativeKeyGroupScan}) wrap them with
 * ownership and use-after-close checks.
 */
final class NativeMethods {

    private NativeMethods() {}

    static native int abiVersion();

    static native void checkJavaAbi(int javaAbiVersion);

    /** Makes the native side panic; proves in tests that a panic becomes an exception. */
    static native void triggerPanic(String message);

    static native long openSharedMemory(long totalBytes, double writeBufferRatio, long writeBufferSize);

    static native void closeSharedMemory(long memory);

    static native long[] sharedMemoryUsage(long memory);

    static native long openStore(String path, long memory);

    static native void closeStore(long store);

    static native void flushStore(long store);

    static native long openColumn(long store, String name);

    static native void closeColumn(long column);

    static native byte[] get(long column, byte[] key);

    static native void put(long column, byte[] key, byte[] value);

    static native void delete(long column, byte[] key);

    static native void merge(long column, byte[] key, byte[] value);

    static native byte[] scanPrefix(long column, byte[] prefix, byte[] resumeAfter, int maxBytes);

    static native long deletePrefix(long column, byte[] prefix);

    static native byte[] lastKeyWithPrefix(long column, byte[] prefix, byte[] before);

    static native byte[] multiGet(long column, byte[] keyList);

    static native int deleteAll(long column, byte[] keyList);

    static native long countEntries(long column);

    static native long columnIntProperty(long column, String name);

    static native int applyBatch(long store, long[] columns, byte[] batch);

    static native long openScan(long store, long[] columns, int keyGroupPrefixBytes);

    static native byte[] scanNextBatch(long scan, int maxBytes);

    static native void closeScan(long scan);

    static native void checkpointStore(long store, String targetDirectory);

    static native void deleteKeyRanges(long store, byte[] rangeBounds);

    static native long copyKeyRange(long store, String sourceDirectory, byte[] begin, byte[] end);

    static native void configureTtlCompactionFilter(
            long column,
            int layoutCode,
            int elementBytes,
            long ttlMillis,
            long queryTimeAfterEntries,
            long periodicCompactionSeconds,
            NativeTtlClock clock,
            NativeListElementScanner listScanner);

    static native void compactColumn(long column);
}
