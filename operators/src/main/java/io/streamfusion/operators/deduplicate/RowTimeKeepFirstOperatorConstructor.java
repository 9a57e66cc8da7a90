package io.streamfusion.operators.deduplicate;

import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.substitution.ColumnarOperatorConstructor;

import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.table.data.RowData;

/** Creates {@link RowTimeKeepFirstOperator}s for a node. */
record RowTimeKeepFirstOperatorConstructor(RowTimeKeepFirstSpec spec, OperatorConfig config)
        implements ColumnarOperatorConstructor {

    @Override
    public StreamOperator<RowData> create(StreamOperatorParameters<RowData> parameters) {
        return new RowTimeKeepFirstOperator(parameters, spec, config);
    }
}
