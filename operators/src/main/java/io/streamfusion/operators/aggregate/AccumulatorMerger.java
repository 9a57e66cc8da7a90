package io.streamfusion.operators.aggregate;

import io.streamfusion.operators.batch.MiniBatchBundle;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.generated.AggsHandleFunction;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import javax.annotation.Nullable;

/**
 * Merges the local accumulators a two-phase aggregation's global half receives for one key in one
 * bundle, with the planner's own local handler, as {@code MiniBatchGlobalGroupAggFunction.addInput}
 * does; the bundle hands the merged accumulators on as binary rows.
 */
final class AccumulatorMerger implements MiniBatchBundle.Merger, AutoCloseable {

    private final AggsHandleFunction localMerge;
    private final RowDataSerializer accumulators;

    AccumulatorMerger(AggsHandleFunction localMerge, RowDataSerializer accumulators) {
        this.localMerge = localMerge;
        this.accumulators = accumulators;
    }

    @Override
    public RowData merge(@Nullable RowData merged, BinaryRowData row) throws Exception {
        localMerge.setAccumulators(merged == null ? localMerge.createAccumulators() : merged);
        localMerge.merge(row);
        return localMerge.getAccumulators();
    }

    @Override
    public BinaryRowData toBinary(RowData merged) {
        return accumulators.toBinaryRow(merged).copy();
    }

    @Override
    public void close() throws Exception {
        localMerge.close();
    }
}
