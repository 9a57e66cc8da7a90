package io.streamfusion.operators.substitution;

import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OperatorAttributes;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.table.data.RowData;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;

/**
 * Replaces a node's operator factory: creates the columnar operator when the task's state backend
 * supports it, and Flink's own operator (from the node's original factory) otherwise, with the
 * reason in the log. Chaining strategy, operator attributes and the operator class the job graph
 * sees are the original factory's, so the node's operator id and its chaining stay what Flink
 * computed.
 */
public final class ColumnarOrFlinkOperatorFactory extends AbstractStreamOperatorFactory<RowData>
        implements OneInputStreamOperatorFactory<RowData, RowData> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ColumnarOrFlinkOperatorFactory.class);

    private final StreamOperatorFactory<RowData> flinkFactory;
    private final ColumnarOperatorConstructor columnarOperator;
    private final String nodeName;

    public ColumnarOrFlinkOperatorFactory(
            StreamOperatorFactory<RowData> flinkFactory,
            ColumnarOperatorConstructor columnarOperator,
            String nodeName) {
        this.flinkFactory = flinkFactory;
        this.columnarOperator = columnarOperator;
        this.nodeName = nodeName;
        setChainingStrategy(flinkFactory.getChainingStrategy());
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends StreamOperator<RowData>> T createStreamOperator(
            StreamOperatorParameters<RowData> parameters) {
        Optional<String> whyNot = ColumnarRuntime.whyNot(parameters.getContainingTask());
        if (whyNot.isPresent()) {
            LOG.warn("{}: runs Flink's operator: {}", nodeName, whyNot.get());
            return flinkFactory.createStreamOperator(parameters);
        }
        return (T) columnarOperator.create(parameters);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
        return flinkFactory.getStreamOperatorClass(classLoader);
    }

    @Override
    public OperatorAttributes getOperatorAttributes() {
        return flinkFactory.getOperatorAttributes();
    }

    /** The factory Flink's planner made for the node. */
    public StreamOperatorFactory<RowData> flinkFactory() {
        return flinkFactory;
    }
}
