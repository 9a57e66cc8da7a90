package io.streamfusion.backend.nativelib;

import java.nio.ByteBuffer;

/**
 * The {@code native} methods of the Rust library, one per JNI entry point in
 * native/src/jni/entry_points.rs. Nothing outside this package calls them: the handle classes
 * ({@link NativeStore}, {@link NativeColumnFamily}, {@link NativeKeyGroupScan}) wrap them with
 * ownership and use-after-close checks.
 */
final class NativeMethods {

    private NativeMethods() {}

    static native int abiVersion();

    /**
     * Fails unless {@code javaDescriptor} equals the library's own {@link NativeAbi#descriptor()}.
     */
    static native void checkJavaAbi(String javaDescriptor);

    /** Makes the native side panic; proves in tests that a panic becomes an exception. */
    static native void triggerPanic(String message);

    static native long openSlotMemory(
            long totalBytes, double writeBufferRatio, long writeBufferSize);

    static native void closeSlotMemory(long memory);

    static native long[] slotMemoryUsage(long memory);

    static native long lendToValueCache(long memory, long bytes);

    static native long acceptFromValueCache(long memory, long bytes);

    static native long openStore(String path, long memory, long writeBackBytes);

    static native void closeStore(long store);

    static native void flushStore(long store);

    static native long openColumnFamily(long store, String name);

    static native void closeColumnFamily(long columnFamily);

    static native byte[] get(long columnFamily, byte[] key);

    static native void put(long columnFamily, byte[] key, byte[] value);

    static native void delete(long columnFamily, byte[] key);

    static native void merge(long columnFamily, byte[] key, byte[] value);

    static native byte[] scanPrefix(
            long columnFamily, byte[] prefix, byte[] resumeAfter, int maxBytes);

    static native long deletePrefix(long columnFamily, byte[] prefix);

    static native byte[] lastKeyWithPrefix(long columnFamily, byte[] prefix, byte[] before);

    static native byte[] multiGet(long columnFamily, byte[] keyList);

    static native int deleteAll(long columnFamily, byte[] keyList);

    static native long countEntries(long columnFamily);

    static native long columnFamilyIntProperty(long columnFamily, String name);

    static native int applyBatch(long store, long[] columnFamilies, byte[] batch);

    static native long openScan(long store, long[] columnFamilies, int keyGroupPrefixBytes);

    static native byte[] scanNextBatch(long scan, int maxBytes);

    static native void closeScan(long scan);

    static native void beginCheckpoint(long store, String targetDirectory);

    static native void completeCheckpoint(long store, String targetDirectory);

    static native void deleteKeyRanges(long store, byte[] rangeBounds);

    static native long copyKeyRange(long store, String sourceDirectory, byte[] begin, byte[] end);

    static native void configureTtlCompactionFilter(
            long columnFamily,
            int layoutCode,
            int elementBytes,
            long ttlMillis,
            long queryTimeAfterEntries,
            long periodicCompactionSeconds,
            NativeTtlClock clock,
            NativeListElementScanner listScanner);

    static native void compactColumnFamily(long columnFamily);

    static native long openTop1Ranker(
            long columnFamily,
            int arity,
            int[] sortFields,
            int replacement,
            boolean keepsRows,
            boolean returnReplaced,
            boolean restampsSeenKeys,
            long cacheBytes,
            long batchMemoryBytes,
            long ttlMillis,
            long emittedColumnFamily,
            long emittedTtlMillis,
            int keyGroupPrefixBytes,
            int maxParallelism,
            int firstKeyGroup,
            int lastKeyGroup,
            long batchSchemaAddress,
            ByteBuffer statsBuffer);

    static native void rankTop1Batch(
            long ranker,
            long batchArrayAddress,
            long resultArrayAddress,
            long resultSchemaAddress,
            long nowMillis);

    static native void takeTop1Winners(
            long ranker,
            long batchArrayAddress,
            long resultArrayAddress,
            long resultSchemaAddress,
            long nowMillis);

    static native void flushTop1Ranker(long ranker);

    static native void closeTop1Ranker(long ranker);

    static native long openGroupAggregator(
            long columnFamily,
            long[] elementTables,
            int inputArity,
            int[] calls,
            int valueArity,
            int countStarField,
            int mergedFrom,
            boolean perKeyRuns,
            boolean generateUpdateBefore,
            long cacheBytes,
            long batchMemoryBytes,
            long ttlMillis,
            int keyGroupPrefixBytes,
            int maxParallelism,
            int firstKeyGroup,
            int lastKeyGroup,
            long batchSchemaAddress,
            ByteBuffer statsBuffer);

    static native void aggregateGroupBatch(
            long aggregator,
            long batchArrayAddress,
            long resultArrayAddress,
            long resultSchemaAddress,
            long nowMillis);

    static native void flushGroupAggregator(long aggregator);

    static native void closeGroupAggregator(long aggregator);

    static native long openUpsertMaterializer(
            long candidateColumnFamily,
            long flinkListColumnFamily,
            int flinkListFormat,
            int arity,
            int[] upsertKeyFields,
            long cacheBytes,
            long batchMemoryBytes,
            long ttlMillis,
            int keyGroupPrefixBytes,
            int maxParallelism,
            int firstKeyGroup,
            int lastKeyGroup,
            long batchSchemaAddress);

    static native void materializeUpsertBatch(
            long materializer,
            long batchArrayAddress,
            long resultArrayAddress,
            long resultSchemaAddress,
            long nowMillis);

    static native void flushUpsertMaterializer(long materializer);

    static native void closeUpsertMaterializer(long materializer);

    static native long openSinkConstraints(
            int arity,
            int[] notNullFields,
            int notNullMode,
            int[] charFields,
            int[] binaryFields,
            int lengthMode,
            int[] variableFields,
            long batchSchemaAddress);

    static native void enforceSinkConstraints(
            long constraints,
            long batchArrayAddress,
            long resultArrayAddress,
            long resultSchemaAddress);

    static native void closeSinkConstraints(long constraints);
}
