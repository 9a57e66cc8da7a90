package io.streamfusion.operators.substitution;

import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.table.data.RowData;

import java.io.Serializable;

/** Creates a columnar operator for one subtask; travels with the job inside its node's factory. */
public interface ColumnarOperatorConstructor extends Serializable {

    StreamOperator<RowData> create(StreamOperatorParameters<RowData> parameters);
}
