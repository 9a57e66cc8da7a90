package io.streamfusion.operators.substitution;

import io.streamfusion.operators.OperatorConfig;

import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.table.data.RowData;

import javax.annotation.Nullable;

/** One family of Flink SQL operators the layer knows, and how it replaces them (if it can). */
public interface NodeSubstitution {

    /**
     * The name of the Flink operator or function at {@code node} if this family has it, else null.
     */
    @Nullable
    String recognize(StreamNode node);

    /** Replaces a node this family {@link #recognize recognized}, or says why it cannot. */
    Decision decide(StreamNode node, OperatorConfig config) throws Exception;

    /**
     * A replacement factory and the name of the columnar operator it creates, or the reason the
     * node keeps Flink's operator.
     */
    record Decision(
            @Nullable StreamOperatorFactory<?> factory,
            @Nullable String replacement,
            @Nullable String reason) {

        public static Decision replaceWith(StreamOperatorFactory<?> factory, String replacement) {
            return new Decision(factory, replacement, null);
        }

        /**
         * Replaces {@code node}'s operator with what {@code columnarOperator} creates, named {@code
         * replacement}; a task that cannot run it creates the node's Flink operator (see {@link
         * ColumnarOrFlinkOperatorFactory}).
         */
        @SuppressWarnings("unchecked")
        public static Decision replaceNode(
                StreamNode node, ColumnarOperatorConstructor columnarOperator, String replacement) {
            return replaceWith(
                    new ColumnarOrFlinkOperatorFactory(
                            (StreamOperatorFactory<RowData>) node.getOperatorFactory(),
                            columnarOperator,
                            node.getOperatorName()),
                    replacement);
        }

        public static Decision keep(String reason) {
            return new Decision(null, null, reason);
        }
    }
}
