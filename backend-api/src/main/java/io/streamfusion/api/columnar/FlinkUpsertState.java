package io.streamfusion.api.columnar;

import org.apache.flink.api.common.state.ValueStateDescriptor;

/**
 * The list state of Flink's own sink upsert materializer, which an {@link UpsertMaterializer}
 * converts key by key when a job is restored from a savepoint of the stock operator.
 *
 * @param descriptor the state as Flink's operator registers it (name, serializer, TTL)
 * @param layout how its values are laid out
 */
public record FlinkUpsertState(ValueStateDescriptor<?> descriptor, Layout layout) {

    /** The value layouts of Flink 2.2's materializers. */
    public enum Layout {
        /** {@code SinkUpsertMaterializer}'s {@code values}: {@code List<RowData>}. */
        ROW_LIST,
        /**
         * {@code SinkUpsertMaterializerV2}'s {@code list} (VALUE strategy): {@code
         * List<Tuple2<RowData, Long>>}.
         */
        SEQUENCED_ROW_LIST
    }
}
