package io.streamfusion.backend.nativelib;

import io.streamfusion.api.columnar.AggregateCall;
import io.streamfusion.api.columnar.GroupAggregatorSpec;

/**
 * The native group aggregator of one operator instance (native/src/columnar/group_agg), over the
 * column family of its accumulator state. It holds its own reference to the store, and its share of
 * the slot budget until it is closed.
 */
public final class NativeGroupAggregator extends NativeCachingKernel {

    private NativeGroupAggregator(long handle, String stateName, NativeKernelStats stats) {
        super(handle, "StreamFusion group aggregator of state '" + stateName + "'", stats);
    }

    /**
     * Opens an aggregator.
     *
     * @param ttlMillis the state's time-to-live, or 0 for none
     * @param batchSchemaAddress an exported {@code ArrowSchema} of the batches; released here
     */
    public static NativeGroupAggregator open(
            NativeColumnFamily columnFamily,
            GroupAggregatorSpec spec,
            long ttlMillis,
            int keyGroupPrefixBytes,
            int maxParallelism,
            int firstKeyGroup,
            int lastKeyGroup,
            long batchSchemaAddress) {
        int[] calls = new int[spec.calls().size() * 6];
        int at = 0;
        for (AggregateCall call : spec.calls()) {
            calls[at++] = call.function().ordinal();
            calls[at++] = call.argumentField();
            calls[at++] = call.argumentType() == null ? -1 : call.argumentType().ordinal();
            calls[at++] = call.filterField();
            calls[at++] = call.decimalPrecision();
            calls[at++] = call.decimalScale();
        }
        NativeKernelStats stats = new NativeKernelStats();
        long handle =
                NativeMethods.openGroupAggregator(
                        columnFamily.handle(),
                        spec.inputArity(),
                        calls,
                        spec.valueArity(),
                        spec.countStarField(),
                        spec.mergedFrom(),
                        spec.perKeyRuns(),
                        spec.generateUpdateBefore(),
                        spec.cacheBytes(),
                        spec.batchMemoryBytes(),
                        ttlMillis,
                        keyGroupPrefixBytes,
                        maxParallelism,
                        firstKeyGroup,
                        lastKeyGroup,
                        batchSchemaAddress,
                        stats.buffer());
        return new NativeGroupAggregator(handle, columnFamily.stateName(), stats);
    }

    /** Aggregates one exported batch into the given empty result structs. */
    public void aggregate(
            long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress, long now) {
        NativeMethods.aggregateGroupBatch(
                handle(), batchArrayAddress, resultArrayAddress, resultSchemaAddress, now);
    }

    /** Writes the accumulators only the cache holds. */
    public void flush() {
        NativeMethods.flushGroupAggregator(handle());
    }

    @Override
    void free(long handle) {
        NativeMethods.closeGroupAggregator(handle);
    }
}
