package io.streamfusion.operators.rank;

import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.substitution.ColumnarOperatorConstructor;

import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.table.data.RowData;

/** Creates {@link Top1RankOperator}s for a node. */
record Top1RankOperatorConstructor(Top1OperatorSpec spec, OperatorConfig config)
        implements ColumnarOperatorConstructor {

    @Override
    public StreamOperator<RowData> create(StreamOperatorParameters<RowData> parameters) {
        return new Top1RankOperator(parameters, spec, config);
    }
}
