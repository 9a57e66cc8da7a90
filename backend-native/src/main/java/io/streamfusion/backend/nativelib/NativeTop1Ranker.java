package io.streamfusion.backend.nativelib;

import io.streamfusion.api.columnar.SortField;
import io.streamfusion.api.columnar.Top1RankerSpec;

import javax.annotation.Nullable;

/**
 * The native Top-1 ranker of one operator instance (native/src/columnar/top1.rs), over the column
 * family of its winner state. It holds its own reference to the store, and its share of the slot
 * budget until it is closed.
 */
public final class NativeTop1Ranker extends NativeCachingKernel {

    private NativeTop1Ranker(long handle, String stateName, NativeKernelStats stats) {
        super(handle, "StreamFusion Top-1 ranker of state '" + stateName + "'", stats);
    }

    /**
     * Opens a ranker.
     *
     * @param ttlMillis the state's time-to-live, or 0 for none
     * @param emittedFlags the emitted flags of a ranker whose winners wait for timers, or null
     * @param emittedTtlMillis the flags' time-to-live, or 0 for none
     * @param batchSchemaAddress an exported {@code ArrowSchema} of the batches; released here
     */
    public static NativeTop1Ranker open(
            NativeColumnFamily columnFamily,
            Top1RankerSpec spec,
            long ttlMillis,
            @Nullable NativeColumnFamily emittedFlags,
            long emittedTtlMillis,
            int keyGroupPrefixBytes,
            int maxParallelism,
            int firstKeyGroup,
            int lastKeyGroup,
            long batchSchemaAddress) {
        int[] fields = new int[spec.sortFields().size() * 4];
        int at = 0;
        for (SortField field : spec.sortFields()) {
            fields[at++] = field.position();
            fields[at++] = field.type().ordinal();
            fields[at++] = field.ascending() ? 1 : 0;
            fields[at++] = field.nullsLast() ? 1 : 0;
        }
        NativeKernelStats stats = new NativeKernelStats();
        long handle =
                NativeMethods.openTop1Ranker(
                        columnFamily.handle(),
                        spec.rowArity(),
                        fields,
                        spec.replacement().ordinal(),
                        spec.keepsRows(),
                        spec.returnReplacedWinners(),
                        spec.restampsSeenKeys(),
                        spec.cacheBytes(),
                        spec.batchMemoryBytes(),
                        ttlMillis,
                        emittedFlags == null ? 0 : emittedFlags.handle(),
                        emittedTtlMillis,
                        keyGroupPrefixBytes,
                        maxParallelism,
                        firstKeyGroup,
                        lastKeyGroup,
                        batchSchemaAddress,
                        stats.buffer());
        return new NativeTop1Ranker(handle, columnFamily.stateName(), stats);
    }

    /** Ranks one exported batch into the given empty result structs (see {@code Top1Ranker}). */
    public void rank(
            long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress, long now) {
        NativeMethods.rankTop1Batch(
                handle(), batchArrayAddress, resultArrayAddress, resultSchemaAddress, now);
    }

    /** Takes the winners of one exported batch of fired timers (see {@code Top1Ranker}). */
    public void takeWinners(
            long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress, long now) {
        NativeMethods.takeTop1Winners(
                handle(), batchArrayAddress, resultArrayAddress, resultSchemaAddress, now);
    }

    /** Writes the winners only the cache holds. */
    public void flush() {
        NativeMethods.flushTop1Ranker(handle());
    }

    @Override
    void free(long handle) {
        NativeMethods.closeTop1Ranker(handle);
    }
}
