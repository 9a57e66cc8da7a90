package io.streamfusion.operators.sink;

import io.streamfusion.api.columnar.BinaryFieldType;
import io.streamfusion.api.columnar.UpsertMaterializerSpec.KeyField;
import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.batch.BinaryFieldTypes;
import io.streamfusion.operators.substitution.FlinkFields;
import io.streamfusion.operators.substitution.FlinkOperators;
import io.streamfusion.operators.substitution.NodeSubstitution;

import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.operators.sink.SinkUpsertMaterializer;
import org.apache.flink.table.runtime.operators.sink.SinkUpsertMaterializerV2;
import org.apache.flink.table.runtime.sequencedmultisetstate.SequencedMultiSetState;
import org.apache.flink.table.runtime.sequencedmultisetstate.SequencedMultiSetStateContext;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Replaces Flink's sink upsert materializers ({@code SinkUpsertMaterializer}, and {@code
 * SinkUpsertMaterializerV2} with the VALUE strategy) with {@link UpsertMaterializerOperator}; keeps
 * them, naming why, for V2's MAP and ADAPTIVE strategies and when an upsert key field has a type
 * the native materializer cannot compare.
 */
public final class UpsertMaterializerSubstitution implements NodeSubstitution {

    @Nullable
    @Override
    public String recognize(StreamNode node) {
        StreamOperator<?> operator = FlinkOperators.operatorOf(node);
        return operator instanceof SinkUpsertMaterializer
                        || operator instanceof SinkUpsertMaterializerV2
                ? operator.getClass().getSimpleName()
                : null;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Decision decide(StreamNode node, OperatorConfig config) throws Exception {
        if (!(node.getStateKeySerializer() instanceof RowDataSerializer)) {
            return Decision.keep("its key serializer is " + node.getStateKeySerializer());
        }
        StreamOperator<?> operator = FlinkOperators.operatorOf(node);
        UpsertOperatorSpec.FlinkMaterializer replaced;
        TypeSerializer<RowData> rowSerializer;
        int[] upsertKey;
        StateTtlConfig ttl;
        if (operator instanceof SinkUpsertMaterializer) {
            replaced = UpsertOperatorSpec.FlinkMaterializer.LEGACY;
            rowSerializer = FlinkFields.read(operator, SinkUpsertMaterializer.class, "serializer");
            upsertKey = FlinkFields.read(operator, SinkUpsertMaterializer.class, "inputUpsertKey");
            ttl = FlinkFields.read(operator, SinkUpsertMaterializer.class, "ttlConfig");
        } else {
            replaced = UpsertOperatorSpec.FlinkMaterializer.V2;
            SequencedMultiSetStateContext context =
                    FlinkFields.read(operator, SinkUpsertMaterializerV2.class, "stateParameters");
            SequencedMultiSetState.Strategy strategy = context.config.getStrategy();
            if (strategy != SequencedMultiSetState.Strategy.VALUE_STATE) {
                return Decision.keep(
                        "its strategy is "
                                + strategy
                                + ", whose linked map orders replaced candidates its own way; only"
                                + " LEGACY and VALUE (a list per key) are replaced");
            }
            rowSerializer = context.recordSerializer;
            boolean hasUpsertKey =
                    FlinkFields.read(operator, SinkUpsertMaterializerV2.class, "hasUpsertKey");
            upsertKey = hasUpsertKey ? CapturedArguments.intArrayOf(context.keyExtractor) : null;
            if (hasUpsertKey && upsertKey == null) {
                return Decision.keep(
                        "the upsert key of its SinkUpsertMaterializerV2 is not readable");
            }
            // Flink runs V2 without TTL (FLINK-38463), whatever table.exec.state.ttl says.
            ttl = StateTtlConfig.DISABLED;
        }
        if (!(rowSerializer instanceof RowDataSerializer)) {
            return Decision.keep("its row serializer is " + rowSerializer);
        }
        LogicalType[] types = FlinkFields.read(rowSerializer, RowDataSerializer.class, "types");
        RowType rowType = RowType.of(types);
        List<KeyField> keyFields = new ArrayList<>();
        for (int position : upsertKey == null ? new int[0] : upsertKey) {
            Optional<BinaryFieldType> type = BinaryFieldTypes.of(types[position]);
            if (type.isEmpty()) {
                return Decision.keep(
                        "its upsert key field "
                                + position
                                + " has type "
                                + types[position]
                                + ", which the native materializer cannot compare");
            }
            keyFields.add(new KeyField(position, type.get()));
        }
        UpsertOperatorSpec spec = new UpsertOperatorSpec(rowType, keyFields, ttl, replaced);
        return Decision.replaceNode(
                node,
                new UpsertMaterializerOperatorConstructor(spec, config),
                "UpsertMaterializerOperator");
    }
}
