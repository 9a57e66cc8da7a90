package io.streamfusion.operators.aggregate;

import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.batch.MiniBatchBundle;
import io.streamfusion.operators.substitution.FlinkFields;
import io.streamfusion.operators.substitution.FlinkOperators;
import io.streamfusion.operators.substitution.NodeSubstitution;

import org.apache.flink.api.common.functions.Function;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.runtime.generated.AggsHandleFunction;
import org.apache.flink.table.runtime.generated.GeneratedAggsHandleFunction;
import org.apache.flink.table.runtime.operators.aggregate.GroupAggFunction;
import org.apache.flink.table.runtime.operators.aggregate.GroupAggFunctionBase;
import org.apache.flink.table.runtime.operators.aggregate.MiniBatchGlobalGroupAggFunction;
import org.apache.flink.table.runtime.operators.aggregate.MiniBatchGroupAggFunction;
import org.apache.flink.table.runtime.operators.aggregate.RecordCounter;
import org.apache.flink.table.runtime.operators.bundle.trigger.CountBundleTrigger;
import org.apache.flink.table.runtime.util.StateConfigUtil;
import org.apache.flink.table.types.logical.LogicalType;

import javax.annotation.Nullable;

import java.util.Arrays;
import java.util.List;

/**
 * Replaces Flink's {@code GroupAggFunction} (a {@code GROUP BY} without mini-batch), {@code
 * MiniBatchGroupAggFunction} (a one-phase mini-batch aggregation) and {@code
 * MiniBatchGlobalGroupAggFunction} (the global half of a two-phase mini-batch aggregation) with
 * {@link GroupAggregateOperator} when every aggregate call has a native kernel (see {@link
 * AggregateCallProbe}); keeps every other group aggregation, naming why.
 */
public final class GroupAggregateSubstitution implements NodeSubstitution {

    private static final String PACKAGE = "org.apache.flink.table.runtime.operators.aggregate";

    @Nullable
    @Override
    public String recognize(StreamNode node) {
        for (Function function :
                new Function[] {
                    FlinkOperators.functionOf(node), FlinkOperators.bundleFunctionOf(node)
                }) {
            if (function != null
                    && function.getClass().getPackageName().startsWith(PACKAGE)
                    && function.getClass().getSimpleName().contains("GroupAgg")) {
                return function.getClass().getSimpleName();
            }
        }
        return null;
    }

    @Override
    public Decision decide(StreamNode node, OperatorConfig config) throws Exception {
        Function function = FlinkOperators.functionOf(node);
        if (function instanceof GroupAggFunction) {
            return perRow(node, function, config);
        }
        Function bundled = FlinkOperators.bundleFunctionOf(node);
        if (bundled instanceof MiniBatchGlobalGroupAggFunction) {
            return globalHalf(node, bundled, config);
        }
        if (bundled instanceof MiniBatchGroupAggFunction) {
            return onePhase(node, bundled, config);
        }
        return Decision.keep(whyNot(function != null ? function : bundled));
    }

    /** {@code GroupAggFunction}: rows accumulated or retracted one by one, as they arrive. */
    private static Decision perRow(StreamNode node, Function function, OperatorConfig config)
            throws Exception {
        return accumulating(
                node,
                FlinkFields.read(function, GroupAggFunctionBase.class, "accTypes"),
                FlinkFields.read(function, GroupAggFunctionBase.class, "recordCounter"),
                FlinkFields.read(function, GroupAggFunctionBase.class, "genAggsHandler"),
                FlinkFields.read(function, GroupAggFunctionBase.class, "generateUpdateBefore"),
                FlinkFields.read(function, GroupAggFunctionBase.class, "ttlConfig"),
                null,
                config);
    }

    /**
     * {@code MiniBatchGroupAggFunction}: a one-phase mini-batch aggregation, every row of a key in
     * a bundle accumulated or retracted as one run when the bundle ends.
     */
    private static Decision onePhase(StreamNode node, Function bundled, OperatorConfig config)
            throws Exception {
        Object trigger = FlinkOperators.bundleTriggerOf(node);
        if (!(trigger instanceof CountBundleTrigger)) {
            return Decision.keep("its bundle ends by " + trigger + ", not by a count of rows");
        }
        long maxCount = FlinkFields.read(trigger, CountBundleTrigger.class, "maxCount");
        long retention = FlinkFields.read(bundled, bundled.getClass(), "stateRetentionTime");
        return accumulating(
                node,
                FlinkFields.read(bundled, bundled.getClass(), "accTypes"),
                FlinkFields.read(bundled, bundled.getClass(), "recordCounter"),
                FlinkFields.read(bundled, bundled.getClass(), "genAggsHandler"),
                FlinkFields.read(bundled, bundled.getClass(), "generateUpdateBefore"),
                StateConfigUtil.createTtlConfig(retention),
                new GroupAggregateOperatorSpec.MiniBatch(
                        new MiniBatchBundle.Spec(MiniBatchBundle.Keep.EVERY, maxCount), null),
                config);
    }

    /** An aggregation whose input rows are accumulated or retracted by the planner's handler. */
    private static Decision accumulating(
            StreamNode node,
            LogicalType[] accTypes,
            RecordCounter recordCounter,
            GeneratedAggsHandleFunction generated,
            boolean generateUpdateBefore,
            StateTtlConfig ttlConfig,
            @Nullable GroupAggregateOperatorSpec.MiniBatch miniBatch,
            OperatorConfig config)
            throws Exception {
        AggregateNode aggregate = AggregateNode.read(node);
        if (aggregate.refusal() != null) {
            return Decision.keep(aggregate.refusal());
        }
        int countStarField = countStarField(recordCounter);
        AggsHandleFunction handler =
                generated.newInstance(Thread.currentThread().getContextClassLoader());
        RecordingDataViewStore views = new RecordingDataViewStore();
        AggregateCallProbe.Result probed;
        try {
            handler.open(views);
            probed =
                    new AggregateCallProbe(aggregate.inputTypes(), accTypes, handler, views)
                            .probe(aggregate.described(), aggregate.valueTypes(), countStarField);
        } catch (Exception e) {
            return Decision.keep("its aggregate handler could not be probed: " + e.getMessage());
        } finally {
            handler.close();
        }
        String refusal = refusal(aggregate, probed);
        if (refusal != null) {
            return Decision.keep(refusal);
        }
        return replace(
                node,
                new GroupAggregateOperatorSpec(
                        aggregate.inputTypes().length,
                        probed.calls(),
                        probed.valueArity(),
                        accTypes,
                        probed.elementTables(),
                        countStarField,
                        generateUpdateBefore,
                        ttlConfig,
                        miniBatch),
                config);
    }

    /**
     * {@code MiniBatchGlobalGroupAggFunction}: the key and a local aggregation's accumulators per
     * row, merged per key over a bundle, then into the state.
     */
    private static Decision globalHalf(StreamNode node, Function bundled, OperatorConfig config)
            throws Exception {
        LogicalType[] accTypes = FlinkFields.read(bundled, bundled.getClass(), "accTypes");
        AggregateNode aggregate = AggregateNode.read(node);
        if (aggregate.refusal() != null) {
            return Decision.keep(aggregate.refusal());
        }
        Object trigger = FlinkOperators.bundleTriggerOf(node);
        if (!(trigger instanceof CountBundleTrigger)) {
            return Decision.keep("its bundle ends by " + trigger + ", not by a count of rows");
        }
        LogicalType[] inputTypes = aggregate.inputTypes();
        int keyArity = inputTypes.length - accTypes.length;
        for (int i = 0; i < accTypes.length; i++) {
            if (keyArity < 0
                    || inputTypes[keyArity + i].getTypeRoot() != accTypes[i].getTypeRoot()) {
                return Decision.keep(
                        "its input "
                                + Arrays.toString(inputTypes)
                                + " is not the key and the accumulators "
                                + Arrays.toString(accTypes));
            }
        }
        int countStarField =
                countStarField(FlinkFields.read(bundled, bundled.getClass(), "recordCounter"));
        AggregateCallProbe.Result identified =
                AggregateCallProbe.forMerging(
                        aggregate.described(), accTypes, aggregate.valueTypes(), countStarField);
        String refusal = refusal(aggregate, identified);
        if (refusal != null) {
            return Decision.keep(refusal);
        }
        GeneratedAggsHandleFunction localMerge =
                FlinkFields.read(bundled, bundled.getClass(), "genLocalAggsHandler");
        AggsHandleFunction handler =
                localMerge.newInstance(Thread.currentThread().getContextClassLoader());
        try {
            handler.open(NoDataViewStore.INSTANCE);
        } catch (Exception e) {
            return Decision.keep("its local merge handler could not be opened: " + e.getMessage());
        } finally {
            handler.close();
        }
        long maxCount = FlinkFields.read(trigger, CountBundleTrigger.class, "maxCount");
        long retention = FlinkFields.read(bundled, bundled.getClass(), "stateRetentionTime");
        return replace(
                node,
                new GroupAggregateOperatorSpec(
                        accTypes.length,
                        identified.calls(),
                        identified.valueArity(),
                        accTypes,
                        List.of(),
                        countStarField,
                        FlinkFields.<Boolean>read(
                                bundled, bundled.getClass(), "generateUpdateBefore"),
                        StateConfigUtil.createTtlConfig(retention),
                        new GroupAggregateOperatorSpec.MiniBatch(
                                new MiniBatchBundle.Spec(MiniBatchBundle.Keep.MERGED, maxCount),
                                localMerge)),
                config);
    }

    /** Why the identified calls cannot replace the node's, or null. */
    @Nullable
    private static String refusal(AggregateNode aggregate, AggregateCallProbe.Result identified) {
        if (identified.unsupported() != null) {
            return identified.unsupported();
        }
        if (identified.valueArity() != aggregate.valueTypes().length) {
            return "it outputs "
                    + aggregate.valueTypes().length
                    + " values for "
                    + identified.valueArity()
                    + " calls";
        }
        return null;
    }

    private static Decision replace(
            StreamNode node, GroupAggregateOperatorSpec spec, OperatorConfig config) {
        return Decision.replaceNode(
                node,
                new GroupAggregateOperatorConstructor(spec, config),
                "GroupAggregateOperator");
    }

    /** Flink's {@code RecordCounter} index, -1 for an insert-only input's counter. */
    private static int countStarField(RecordCounter counter) {
        // Only RetractionRecordCounter, a private class, counts rows: it has the field.
        return counter.getClass().getSimpleName().equals("RetractionRecordCounter")
                ? FlinkFields.<Integer>read(counter, counter.getClass(), "indexOfCountStar")
                : -1;
    }

    private static String whyNot(@Nullable Function function) {
        String name = function == null ? "this operator" : function.getClass().getSimpleName();
        if (name.startsWith("AsyncState")) {
            return "async state is on (table.exec.async-state.enabled), which runs " + name;
        }
        if (name.equals("MiniBatchLocalGroupAggFunction")) {
            return "the local half of a two-phase aggregation keeps no state (its global half is"
                    + " accelerated)";
        }
        if (name.startsWith("MiniBatch")) {
            return name + " has no columnar operator yet";
        }
        return "no columnar operator replaces " + name;
    }
}
