package io.streamfusion.operators.aggregate;

import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.substitution.FlinkFields;
import io.streamfusion.operators.substitution.FlinkOperators;
import io.streamfusion.operators.substitution.NodeSubstitution;

import org.apache.flink.api.common.functions.Function;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.runtime.generated.AggsHandleFunction;
import org.apache.flink.table.runtime.generated.GeneratedAggsHandleFunction;
import org.apache.flink.table.runtime.operators.aggregate.GroupAggFunction;
import org.apache.flink.table.runtime.operators.aggregate.GroupAggFunctionBase;
import org.apache.flink.table.runtime.operators.aggregate.RecordCounter;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

import javax.annotation.Nullable;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Replaces Flink's {@code GroupAggFunction} (a {@code GROUP BY} without mini-batch) with {@link
 * GroupAggregateOperator} when every aggregate call has a native kernel (see {@link
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
        if (!(function instanceof GroupAggFunction)) {
            return Decision.keep(
                    whyNot(function != null ? function : FlinkOperators.bundleFunctionOf(node)));
        }
        if (!(node.getStateKeySerializer() instanceof RowDataSerializer)
                || !(node.getTypeSerializersIn()[0] instanceof RowDataSerializer)
                || !(node.getTypeSerializerOut() instanceof RowDataSerializer)) {
            return Decision.keep("its keys or rows are not RowData");
        }
        int keyArity = ((RowDataSerializer) node.getStateKeySerializer()).getArity();
        Optional<List<AggregateSelectList.Call>> described =
                AggregateSelectList.parse(String.valueOf(node.getOperatorDescription()), keyArity);
        if (described.isEmpty()) {
            return Decision.keep(
                    "its description does not list its aggregate calls: "
                            + node.getOperatorDescription());
        }
        String unsupported = AggregateCallProbe.firstUnsupported(described.get());
        if (unsupported != null) {
            return Decision.keep(unsupported);
        }
        LogicalType[] accTypes = FlinkFields.read(function, GroupAggFunctionBase.class, "accTypes");
        for (LogicalType type : accTypes) {
            if (type.getTypeRoot() == LogicalTypeRoot.RAW) {
                return Decision.keep(
                        "an aggregate keeps a DataView (" + type + "), which has no native kernel");
            }
        }
        LogicalType[] inputTypes = typesOf(node.getTypeSerializersIn()[0]);
        LogicalType[] outputTypes = typesOf(node.getTypeSerializerOut());
        LogicalType[] valueTypes = Arrays.copyOfRange(outputTypes, keyArity, outputTypes.length);
        int countStarField =
                countStarField(
                        FlinkFields.read(function, GroupAggFunctionBase.class, "recordCounter"));
        GeneratedAggsHandleFunction generated =
                FlinkFields.read(function, GroupAggFunctionBase.class, "genAggsHandler");
        AggsHandleFunction handler =
                generated.newInstance(Thread.currentThread().getContextClassLoader());
        AggregateCallProbe.Result probed;
        try {
            handler.open(NoDataViewStore.INSTANCE);
            probed =
                    new AggregateCallProbe(inputTypes, accTypes, handler)
                            .probe(described.get(), valueTypes, countStarField);
        } catch (Exception e) {
            return Decision.keep("its aggregate handler could not be probed: " + e.getMessage());
        } finally {
            handler.close();
        }
        if (probed.unsupported() != null) {
            return Decision.keep(probed.unsupported());
        }
        if (probed.valueArity() != valueTypes.length) {
            return Decision.keep(
                    "it outputs "
                            + valueTypes.length
                            + " values for "
                            + probed.valueArity()
                            + " calls");
        }
        GroupAggregateOperatorSpec spec =
                new GroupAggregateOperatorSpec(
                        inputTypes.length,
                        probed.calls(),
                        probed.valueArity(),
                        accTypes,
                        countStarField,
                        FlinkFields.<Boolean>read(
                                function, GroupAggFunctionBase.class, "generateUpdateBefore"),
                        FlinkFields.<StateTtlConfig>read(
                                function, GroupAggFunctionBase.class, "ttlConfig"));
        return Decision.replaceNode(
                node,
                new GroupAggregateOperatorConstructor(spec, config),
                "GroupAggregateOperator");
    }

    private static LogicalType[] typesOf(TypeSerializer<?> serializer) {
        return FlinkFields.read(serializer, RowDataSerializer.class, "types");
    }

    /** Flink's {@code RecordCounter} index, -1 for an insert-only input's counter. */
    private static int countStarField(RecordCounter counter) {
        try {
            java.lang.reflect.Field field = counter.getClass().getDeclaredField("indexOfCountStar");
            field.setAccessible(true);
            return field.getInt(counter);
        } catch (NoSuchFieldException e) {
            return -1;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + counter.getClass().getName(), e);
        }
    }

    private static String whyNot(@Nullable Function function) {
        String name = function == null ? "this operator" : function.getClass().getSimpleName();
        if (name.startsWith("AsyncState")) {
            return "async state is on (table.exec.async-state.enabled), which runs " + name;
        }
        if (name.startsWith("MiniBatch")) {
            return name + " (mini-batch group aggregation) has no columnar operator yet";
        }
        return "no columnar operator replaces " + name;
    }
}
