package io.streamfusion.operators.sink;

import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.substitution.ColumnarOperatorConstructor;

import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.table.data.RowData;

/** Creates {@link ConstraintEnforcerOperator}s for a node. */
record ConstraintEnforcerOperatorConstructor(
        SinkConstraintsOperatorSpec spec, OperatorConfig config)
        implements ColumnarOperatorConstructor {

    @Override
    public StreamOperator<RowData> create(StreamOperatorParameters<RowData> parameters) {
        return new ConstraintEnforcerOperator(parameters, spec, config);
    }
}
