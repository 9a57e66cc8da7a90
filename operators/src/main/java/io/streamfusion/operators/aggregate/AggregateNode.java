package io.streamfusion.operators.aggregate;

import io.streamfusion.operators.substitution.FlinkFields;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;

import javax.annotation.Nullable;

import java.util.Arrays;
import java.util.List;

/**
 * What every group aggregation node tells before its calls are identified: the calls its
 * description lists, its input and value types; or why the layer refuses it already.
 *
 * @param refusal why the node keeps Flink's operator, or null
 */
record AggregateNode(
        List<AggregateSelectList.Call> described,
        LogicalType[] inputTypes,
        LogicalType[] valueTypes,
        @Nullable String refusal) {

    private static AggregateNode refuse(String reason) {
        return new AggregateNode(List.of(), new LogicalType[0], new LogicalType[0], reason);
    }

    /** Reads {@code node}; {@link AggregateCallProbe} checks its accumulators. */
    static AggregateNode read(StreamNode node) {
        if (!(node.getStateKeySerializer() instanceof RowDataSerializer)
                || !(node.getTypeSerializersIn()[0] instanceof RowDataSerializer)
                || !(node.getTypeSerializerOut() instanceof RowDataSerializer)) {
            return refuse("its keys or rows are not RowData");
        }
        int keyArity = ((RowDataSerializer) node.getStateKeySerializer()).getArity();
        List<AggregateSelectList.Call> described =
                AggregateSelectList.parse(String.valueOf(node.getOperatorDescription()), keyArity)
                        .orElse(null);
        if (described == null) {
            return refuse(
                    "its description does not list its aggregate calls: "
                            + node.getOperatorDescription());
        }
        String unsupported = CallFunctions.firstUnsupported(described);
        if (unsupported != null) {
            return refuse(unsupported);
        }
        LogicalType[] outputTypes = typesOf(node.getTypeSerializerOut());
        return new AggregateNode(
                described,
                typesOf(node.getTypeSerializersIn()[0]),
                Arrays.copyOfRange(outputTypes, keyArity, outputTypes.length),
                null);
    }

    private static LogicalType[] typesOf(TypeSerializer<?> serializer) {
        return FlinkFields.read(serializer, RowDataSerializer.class, "types");
    }
}
