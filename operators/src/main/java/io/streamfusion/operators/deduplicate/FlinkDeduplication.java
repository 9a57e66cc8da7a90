package io.streamfusion.operators.deduplicate;

import io.streamfusion.operators.batch.MiniBatchBundle;
import io.streamfusion.operators.substitution.FlinkFields;
import io.streamfusion.operators.substitution.FlinkOperators;

import org.apache.flink.api.common.functions.Function;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.runtime.operators.bundle.trigger.CountBundleTrigger;
import org.apache.flink.table.runtime.operators.deduplicate.DeduplicateFunctionBase;
import org.apache.flink.table.runtime.operators.deduplicate.ProcTimeMiniBatchDeduplicateKeepFirstRowFunction;
import org.apache.flink.table.runtime.operators.deduplicate.ProcTimeMiniBatchDeduplicateKeepLastRowFunction;
import org.apache.flink.table.runtime.operators.deduplicate.RowTimeMiniBatchDeduplicateFunction;
import org.apache.flink.table.runtime.operators.deduplicate.RowTimeMiniBatchLatestChangeDeduplicateFunction;
import org.apache.flink.table.runtime.util.StateConfigUtil;

import javax.annotation.Nullable;

/**
 * The deduplication function at a StreamGraph node and what every variant shares, read alike with
 * and without mini-batch: the state's value type, its TTL and, with mini-batch, the bundle.
 *
 * @param function the function, in a {@code KeyedProcessOperator} or a {@code
 *     KeyedMapBundleOperator}
 * @param miniBatch the bundle of a mini-batch function, null without mini-batch
 */
record FlinkDeduplication(
        Function function,
        TypeInformation<?> stateType,
        StateTtlConfig ttl,
        @Nullable MiniBatchBundle.Spec miniBatch) {

    static final String PACKAGE = "org.apache.flink.table.runtime.operators.deduplicate";

    /** Declares the state type and retention of the mini-batch functions; package-private. */
    private static final String MINI_BATCH_BASE = PACKAGE + ".MiniBatchDeduplicateFunctionBase";

    /**
     * The deduplication at {@code node}, or null if it runs none the layer can read: no
     * deduplication, one without Flink's common base, or a mini-batch one whose bundle the layer
     * does not mirror (not count-triggered).
     */
    @Nullable
    static FlinkDeduplication of(StreamNode node) throws ClassNotFoundException {
        Function function = FlinkOperators.functionOf(node);
        if (function instanceof DeduplicateFunctionBase) {
            long retention =
                    FlinkFields.read(function, DeduplicateFunctionBase.class, "stateRetentionTime");
            return new FlinkDeduplication(
                    function,
                    FlinkFields.read(function, DeduplicateFunctionBase.class, "typeInfo"),
                    StateConfigUtil.createTtlConfig(retention),
                    null);
        }
        Function bundled = FlinkOperators.bundleFunctionOf(node);
        if (bundled == null || !bundled.getClass().getPackageName().equals(PACKAGE)) {
            return null;
        }
        MiniBatchBundle.Spec bundle = bundleOf(node, bundled);
        if (bundle == null) {
            return null;
        }
        Class<?> base = Class.forName(MINI_BATCH_BASE, false, bundled.getClass().getClassLoader());
        long retention = FlinkFields.read(bundled, base, "minRetentionTime");
        return new FlinkDeduplication(
                bundled,
                FlinkFields.read(bundled, base, "stateType"),
                StateConfigUtil.createTtlConfig(retention),
                bundle);
    }

    /** The bundle Flink keeps, if the layer mirrors it: count-triggered, of a known function. */
    @Nullable
    private static MiniBatchBundle.Spec bundleOf(StreamNode node, Function bundled) {
        Object trigger = FlinkOperators.bundleTriggerOf(node);
        if (!(trigger instanceof CountBundleTrigger)) {
            return null;
        }
        long maxCount = FlinkFields.read(trigger, CountBundleTrigger.class, "maxCount");
        if (bundled instanceof ProcTimeMiniBatchDeduplicateKeepLastRowFunction) {
            return new MiniBatchBundle.Spec(MiniBatchBundle.Keep.LAST, maxCount);
        }
        if (bundled instanceof ProcTimeMiniBatchDeduplicateKeepFirstRowFunction) {
            return new MiniBatchBundle.Spec(MiniBatchBundle.Keep.FIRST, maxCount);
        }
        if (bundled instanceof RowTimeMiniBatchDeduplicateFunction) {
            return new MiniBatchBundle.Spec(MiniBatchBundle.Keep.EVERY, maxCount);
        }
        if (bundled instanceof RowTimeMiniBatchLatestChangeDeduplicateFunction) {
            int rowtimeIndex = FlinkFields.read(bundled, bundled.getClass(), "rowtimeIndex");
            boolean keepLastRow = FlinkFields.read(bundled, bundled.getClass(), "keepLastRow");
            return new MiniBatchBundle.Spec(
                    keepLastRow
                            ? MiniBatchBundle.Keep.LATEST_ROW_TIME
                            : MiniBatchBundle.Keep.EARLIEST_ROW_TIME,
                    maxCount,
                    rowtimeIndex);
        }
        return null;
    }

    <T> T field(String name) {
        return FlinkFields.read(function, function.getClass(), name);
    }
}
