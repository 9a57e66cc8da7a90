package io.streamfusion.operators.sink;

import io.streamfusion.api.columnar.UpsertMaterializerSpec.KeyField;

import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;
import java.util.List;

/**
 * How the planner configured one sink upsert materializer, as the columnar one needs it.
 *
 * @param rowType the sink's physical row type, the type of the rows Flink's state holds
 * @param upsertKey the input's upsert key fields; none to match whole rows
 * @param ttlConfig the state's TTL, as Flink enables it from {@code table.exec.state.ttl} (always
 *     off for V2, which Flink runs without TTL)
 * @param replaced which of Flink's materializers the node ran
 */
public record UpsertOperatorSpec(
        RowType rowType,
        List<KeyField> upsertKey,
        StateTtlConfig ttlConfig,
        FlinkMaterializer replaced)
        implements Serializable {

    /** The candidate index the columnar materializer keeps its rows in. */
    public static final String INDEX_NAME = "sink-upsert-candidates";

    public UpsertOperatorSpec {
        upsertKey = List.copyOf(upsertKey);
    }

    /** Flink 2.2's two materializers, with the state names of their savepoints. */
    public enum FlinkMaterializer {
        /** {@code SinkUpsertMaterializer}: one {@code values} list per key. */
        LEGACY("values", "SinkUpsertMaterializer"),
        /** {@code SinkUpsertMaterializerV2}: {@code list} (VALUE) or the linked MAP states. */
        V2("list", "SinkUpsertMaterializerV2");

        private final String listStateName;
        private final String className;

        FlinkMaterializer(String listStateName, String className) {
            this.listStateName = listStateName;
            this.className = className;
        }

        /**
         * The name of the {@code ValueState<List<...>>} this materializer keeps a key's rows in.
         */
        public String listStateName() {
            return listStateName;
        }

        public String className() {
            return className;
        }
    }
}
