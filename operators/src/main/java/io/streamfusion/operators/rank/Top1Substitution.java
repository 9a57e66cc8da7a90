package io.streamfusion.operators.rank;

import io.streamfusion.api.columnar.Top1Replacement;
import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.substitution.FlinkFields;
import io.streamfusion.operators.substitution.FlinkOperators;
import io.streamfusion.operators.substitution.NodeSubstitution;

import org.apache.flink.api.common.functions.Function;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.generated.GeneratedRecordComparator;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.runtime.operators.rank.AbstractTopNFunction;
import org.apache.flink.table.runtime.operators.rank.AppendOnlyFirstNFunction;
import org.apache.flink.table.runtime.operators.rank.AppendOnlyTopNFunction;
import org.apache.flink.table.runtime.operators.rank.FastTop1Function;
import org.apache.flink.table.runtime.operators.rank.RetractableTopNFunction;
import org.apache.flink.table.runtime.operators.rank.UpdatableTopNFunction;
import org.apache.flink.table.runtime.operators.rank.async.AbstractAsyncStateTopNFunction;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import javax.annotation.Nullable;

/**
 * Replaces Flink's {@code FastTop1Function} (the Top-1 of append-only input) with {@link
 * Top1RankOperator}; keeps every other rank function, naming why.
 */
public final class Top1Substitution implements NodeSubstitution {

    @Nullable
    @Override
    public String recognize(StreamNode node) {
        Function function = FlinkOperators.functionOf(node);
        return function instanceof AbstractTopNFunction
                        || function instanceof AbstractAsyncStateTopNFunction
                ? function.getClass().getSimpleName()
                : null;
    }

    @Override
    public Decision decide(StreamNode node, OperatorConfig config) throws Exception {
        Function function = FlinkOperators.functionOf(node);
        if (!(function instanceof FastTop1Function)) {
            return Decision.keep(whyNotTop1(function));
        }
        String description = String.valueOf(node.getOperatorDescription());
        if (description.contains("UpdateFastStrategy")) {
            return Decision.keep(
                    "its input is an update stream (UpdateFastStrategy); only append-only input is"
                            + " accelerated");
        }
        if (!(node.getStateKeySerializer() instanceof RowDataSerializer)) {
            return Decision.keep("its key serializer is " + node.getStateKeySerializer());
        }
        InternalTypeInfo<RowData> inputRowType =
                FlinkFields.read(function, AbstractTopNFunction.class, "inputRowType");
        RowDataKeySelector sortKeySelector =
                FlinkFields.read(function, AbstractTopNFunction.class, "sortKeySelector");
        GeneratedRecordComparator comparator =
                FlinkFields.read(
                        function, AbstractTopNFunction.class, "generatedSortKeyComparator");
        SortFieldProbe.Result sort =
                new SortFieldProbe(
                                inputRowType.toRowType(),
                                sortKeySelector,
                                comparator.newInstance(
                                        Thread.currentThread().getContextClassLoader()))
                        .probe();
        if (!sort.supported()) {
            return Decision.keep(sort.unsupported());
        }
        Top1KernelSpec kernel =
                Top1KernelSpec.keepingRows(
                        Top1OperatorSpec.STATE_NAME,
                        inputRowType,
                        sort.fields(),
                        Top1Replacement.STRICTLY_FIRST,
                        FlinkFields.<Boolean>read(
                                function, AbstractTopNFunction.class, "generateUpdateBefore"),
                        FlinkFields.<StateTtlConfig>read(
                                function, AbstractTopNFunction.class, "ttlConfig"));
        Top1OperatorSpec spec =
                new Top1OperatorSpec(
                        kernel,
                        FlinkFields.<Boolean>read(
                                function, AbstractTopNFunction.class, "outputRankNumber"));
        return Decision.replaceNode(
                node, new Top1RankOperatorConstructor(spec, config), "Top1RankOperator");
    }

    private static String whyNotTop1(Function function) {
        if (function instanceof AbstractAsyncStateTopNFunction) {
            return "async state is on (table.exec.async-state.enabled), which runs Flink's async rank"
                    + " functions";
        }
        if (function instanceof AppendOnlyTopNFunction) {
            return "it keeps the top N > 1 rows (or skips an offset); only ROW_NUMBER() = 1 is"
                    + " accelerated";
        }
        if (function instanceof RetractableTopNFunction) {
            return "its input retracts rows (RetractStrategy); only append-only input is accelerated";
        }
        if (function instanceof UpdatableTopNFunction) {
            return "its input updates rows (UpdateFastStrategy); only append-only input is accelerated";
        }
        if (function instanceof AppendOnlyFirstNFunction) {
            return "it orders by processing time (AppendOnlyFirstNFunction)";
        }
        return "no columnar operator replaces " + function.getClass().getSimpleName();
    }
}
