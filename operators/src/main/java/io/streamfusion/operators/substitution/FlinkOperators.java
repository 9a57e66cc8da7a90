package io.streamfusion.operators.substitution;

import org.apache.flink.api.common.functions.Function;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.streaming.api.operators.UserFunctionProvider;
import org.apache.flink.table.runtime.operators.bundle.AbstractMapBundleOperator;

import javax.annotation.Nullable;

/**
 * What the planner put at a StreamGraph node: its operator and, for UDF operators, the function.
 */
public final class FlinkOperators {

    private FlinkOperators() {}

    /** The operator instance of a node built with {@code SimpleOperatorFactory.of}, or null. */
    @Nullable
    public static StreamOperator<?> operatorOf(StreamNode node) {
        StreamOperatorFactory<?> factory = node.getOperatorFactory();
        return factory instanceof SimpleOperatorFactory
                ? ((SimpleOperatorFactory<?>) factory).getOperator()
                : null;
    }

    /**
     * The user function of a node's UDF operator (a {@code KeyedProcessOperator} or its async
     * twin), or null.
     */
    @Nullable
    public static Function functionOf(StreamNode node) {
        StreamOperator<?> operator = operatorOf(node);
        return operator instanceof UserFunctionProvider
                ? ((UserFunctionProvider<?>) operator).getUserFunction()
                : null;
    }

    /**
     * The bundle function of a node's mini-batch operator (a {@code KeyedMapBundleOperator} or
     * {@code MapBundleOperator}), or null.
     */
    @Nullable
    public static Function bundleFunctionOf(StreamNode node) {
        StreamOperator<?> operator = operatorOf(node);
        return operator instanceof AbstractMapBundleOperator
                ? FlinkFields.read(operator, AbstractMapBundleOperator.class, "function")
                : null;
    }

    /**
     * The bundle trigger of a node's mini-batch operator; call only where {@link #bundleFunctionOf}
     * found a bundle function.
     */
    public static Object bundleTriggerOf(StreamNode node) {
        return FlinkFields.read(operatorOf(node), AbstractMapBundleOperator.class, "bundleTrigger");
    }
}
