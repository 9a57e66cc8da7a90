package io.streamfusion.backend.nativelib;

import io.streamfusion.api.columnar.AggregateCall;
import io.streamfusion.api.columnar.GroupAggregatorSpec;

import javax.annotation.Nullable;

import java.util.List;

/**
 * The native group aggregator of one operator instance (native/src/columnar/group_agg), over the
 * column family of its accumulator state. It holds its own reference to the store, and its share of
 * the slot budget until it is closed.
 */
public final class NativeGroupAggregator extends NativeCachingKernel {

    /**
     * The column families of one element table: its map, and its NULL element's count (null for a
     * table without one).
     */
    public record ElementTable(NativeColumnFamily map, @Nullable NativeColumnFamily nulls) {}

    private NativeGroupAggregator(long handle, String stateName, NativeKernelStats stats) {
        super(handle, "StreamFusion group aggregator of state '" + stateName + "'", stats);
    }

    /**
     * Opens an aggregator.
     *
     * @param elementTables the element tables the calls keep, in their order
     * @param ttlMillis the state's time-to-live, or 0 for none
     * @param batchSchemaAddress an exported {@code ArrowSchema} of the batches; released here
     */
    public static NativeGroupAggregator open(
            NativeColumnFamily columnFamily,
            List<ElementTable> elementTables,
            GroupAggregatorSpec spec,
            long ttlMillis,
            int keyGroupPrefixBytes,
            int maxParallelism,
            int firstKeyGroup,
            int lastKeyGroup,
            long batchSchemaAddress) {
        long[] tables = new long[elementTables.size() * 2];
        for (int i = 0; i < elementTables.size(); i++) {
            ElementTable table = elementTables.get(i);
            tables[2 * i] = table.map().handle();
            tables[2 * i + 1] = table.nulls() == null ? 0 : table.nulls().handle();
        }
        int[] calls = new int[spec.calls().size() * 7];
        int at = 0;
        for (AggregateCall call : spec.calls()) {
            calls[at++] = call.function().ordinal();
            calls[at++] = call.argumentField();
            calls[at++] = call.argumentType() == null ? -1 : call.argumentType().ordinal();
            calls[at++] = call.filterField();
            calls[at++] = call.decimalPrecision();
            calls[at++] = call.decimalScale();
            calls[at++] = call.elementTable();
        }
        NativeKernelStats stats = new NativeKernelStats();
        long handle =
                NativeMethods.openGroupAggregator(
                        columnFamily.handle(),
                        tables,
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
