package io.streamfusion.backend.nativelib;

import io.streamfusion.api.columnar.FlinkUpsertState;
import io.streamfusion.api.columnar.UpsertMaterializerSpec;

import javax.annotation.Nullable;

/**
 * The native sink upsert materializer of one operator instance (native/src/columnar/upsert.rs),
 * over the column family of its candidate index and, for a job restored from Flink's own operator,
 * the column family of that operator's list state. It holds its own reference to the store, and its
 * share of the slot budget until it is closed.
 */
public final class NativeUpsertMaterializer extends NativeHandle {

    private NativeUpsertMaterializer(long handle, String indexName) {
        super(handle, "StreamFusion upsert materializer of index '" + indexName + "'");
    }

    /**
     * Opens a materializer.
     *
     * @param flinkList the column family of Flink's list state to convert keys from, or null
     * @param flinkLayout the layout of that state's values (ignored without one)
     * @param ttlMillis the index's time-to-live, or 0 for none
     * @param batchSchemaAddress an exported {@code ArrowSchema} of the batches; released here
     */
    public static NativeUpsertMaterializer open(
            NativeColumnFamily candidates,
            @Nullable NativeColumnFamily flinkList,
            FlinkUpsertState.Layout flinkLayout,
            UpsertMaterializerSpec spec,
            long ttlMillis,
            int keyGroupPrefixBytes,
            int maxParallelism,
            int firstKeyGroup,
            int lastKeyGroup,
            long batchSchemaAddress) {
        int[] fields = new int[spec.upsertKey().size() * 2];
        int at = 0;
        for (UpsertMaterializerSpec.KeyField field : spec.upsertKey()) {
            fields[at++] = field.position();
            fields[at++] = field.type().ordinal();
        }
        // Codes of native/src/jni/upsert_entry_points.rs: 0 none, then the layouts in order.
        int flinkFormat = flinkList == null ? 0 : 1 + flinkLayout.ordinal();
        long handle =
                NativeMethods.openUpsertMaterializer(
                        candidates.handle(),
                        flinkList == null ? 0 : flinkList.handle(),
                        flinkFormat,
                        spec.rowArity(),
                        fields,
                        spec.cacheBytes(),
                        spec.batchMemoryBytes(),
                        ttlMillis,
                        keyGroupPrefixBytes,
                        maxParallelism,
                        firstKeyGroup,
                        lastKeyGroup,
                        batchSchemaAddress);
        return new NativeUpsertMaterializer(handle, candidates.stateName());
    }

    /** Materializes one exported batch into the given empty result structs. */
    public void materialize(
            long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress, long now) {
        NativeMethods.materializeUpsertBatch(
                handle(), batchArrayAddress, resultArrayAddress, resultSchemaAddress, now);
    }

    /** Writes the lists its cache holds unwritten. */
    public void flush() {
        NativeMethods.flushUpsertMaterializer(handle());
    }

    @Override
    void free(long handle) {
        NativeMethods.closeUpsertMaterializer(handle);
    }
}
