package io.streamfusion.operators.aggregate;

import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.substitution.ColumnarOperatorConstructor;

import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.table.data.RowData;

/** Creates {@link GroupAggregateOperator}s for a node. */
record GroupAggregateOperatorConstructor(GroupAggregateOperatorSpec spec, OperatorConfig config)
        implements ColumnarOperatorConstructor {

    @Override
    public StreamOperator<RowData> create(StreamOperatorParameters<RowData> parameters) {
        return new GroupAggregateOperator(parameters, spec, config);
    }
}
