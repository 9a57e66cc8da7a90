package io.streamfusion.operators.sink;

import io.streamfusion.api.columnar.ColumnarKeyedStateBackend;
import io.streamfusion.api.columnar.FlinkUpsertState;
import io.streamfusion.api.columnar.UpsertMaterializer;
import io.streamfusion.api.columnar.UpsertMaterializerSpec;
import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.batch.BatchingOperator;
import io.streamfusion.operators.batch.KernelResult;
import io.streamfusion.operators.batch.RowBatch;

import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.runtime.TupleSerializer;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.types.RowKind;

import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.List;

/**
 * StreamFusion's sink upsert materializer, in place of Flink's {@code SinkUpsertMaterializer} and
 * {@code SinkUpsertMaterializerV2}, with the same output record by record: an insert or
 * update-after is emitted as INSERT when its key had no rows, else as UPDATE_AFTER; a retraction of
 * the key's only row emits the incoming row as DELETE; a retraction of its last row emits the new
 * last row as UPDATE_AFTER; other retractions emit nothing. Rows are emitted without a record
 * timestamp, as Flink's are.
 *
 * <p>Its rows live in a candidate index ({@link UpsertOperatorSpec#INDEX_NAME}), not in Flink's one
 * list per key, so memory per key is constant however many rows a key has. A job restored from a
 * savepoint of Flink's operator converts each key's list on the key's first access. Each batch is
 * one call into the backend's native materializer (see {@link UpsertMaterializer}), which keeps the
 * lists of keys with few candidates in its write-back cache and writes the rest of what changed in
 * one write batch; the cache is flushed before every checkpoint barrier ({@link #flushKernel}).
 */
public final class UpsertMaterializerOperator extends BatchingOperator {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(UpsertMaterializerOperator.class);

    /** {@code SinkUpsertMaterializer}'s words for a retraction that found nothing. */
    private static final String STATE_CLEARED_WARN_MSG =
            "The state is cleared because of state ttl. This will result in incorrect result. "
                    + "You can increase the state ttl to avoid this.";

    /** Flink's V2 state of the MAP strategy, which cannot be converted. */
    private static final String LINKED_NODE_STATE = "sqnToNodeState";

    private final UpsertOperatorSpec spec;

    private transient UpsertMaterializer materializer;
    private transient int arity;

    public UpsertMaterializerOperator(
            StreamOperatorParameters<RowData> parameters,
            UpsertOperatorSpec spec,
            OperatorConfig operatorConfig) {
        super(parameters, operatorConfig);
        this.spec = spec;
    }

    @Override
    protected void openKernel(BufferAllocator allocator, RowBatch batch) throws Exception {
        ColumnarKeyedStateBackend backend = columnarBackend();
        arity = spec.rowType().getFieldCount();
        checkNoLinkedState(backend);
        FlinkUpsertState flinkState = restoredFlinkState(backend);
        registerMarkers(flinkState);
        UpsertMaterializerSpec materializerSpec =
                new UpsertMaterializerSpec(
                        arity,
                        spec.upsertKey(),
                        operatorConfig.cacheBytes(),
                        operatorConfig.batchMemoryBytes());
        materializer =
                withBatchSchema(
                        schema ->
                                backend.openUpsertMaterializer(
                                        UpsertOperatorSpec.INDEX_NAME,
                                        spec.ttlConfig(),
                                        flinkState,
                                        materializerSpec,
                                        schema));
    }

    /**
     * Flink's list state of a stock savepoint this job was restored from, to convert keys from;
     * null when there is none (a fresh start, or a savepoint of this operator).
     */
    @Nullable
    private FlinkUpsertState restoredFlinkState(ColumnarKeyedStateBackend backend) {
        for (UpsertOperatorSpec.FlinkMaterializer flink :
                UpsertOperatorSpec.FlinkMaterializer.values()) {
            TypeSerializer<?> restored = backend.restoredStateSerializer(flink.listStateName());
            if (restored != null && !(restored instanceof UpsertIndexMarkerSerializer)) {
                LOG.info(
                        "{}: converts the rows of {}'s state '{}' into its candidate index, each key"
                                + " on its first access",
                        getOperatorName(),
                        flink.className(),
                        flink.listStateName());
                return new FlinkUpsertState(listState(flink), layout(flink));
            }
        }
        return null;
    }

    /** Flink's list state of {@code flink}, as Flink's operator registers it. */
    private ValueStateDescriptor<?> listState(UpsertOperatorSpec.FlinkMaterializer flink) {
        RowDataSerializer rows = new RowDataSerializer(spec.rowType());
        if (flink == UpsertOperatorSpec.FlinkMaterializer.LEGACY) {
            ValueStateDescriptor<List<RowData>> values =
                    new ValueStateDescriptor<>(flink.listStateName(), new ListSerializer<>(rows));
            if (spec.ttlConfig().isEnabled()) {
                values.enableTimeToLive(spec.ttlConfig());
            }
            return values;
        }
        @SuppressWarnings({"unchecked", "rawtypes"})
        TupleSerializer<Tuple2<RowData, Long>> entries =
                new TupleSerializer(
                        Tuple2.class, new TypeSerializer[] {rows, LongSerializer.INSTANCE});
        return new ValueStateDescriptor<>(flink.listStateName(), new ListSerializer<>(entries));
    }

    private static FlinkUpsertState.Layout layout(UpsertOperatorSpec.FlinkMaterializer flink) {
        return flink == UpsertOperatorSpec.FlinkMaterializer.LEGACY
                ? FlinkUpsertState.Layout.ROW_LIST
                : FlinkUpsertState.Layout.SEQUENCED_ROW_LIST;
    }

    /**
     * Registers a marker under each Flink state name not converted from, so that Flink's operator,
     * restored from this job's savepoint, fails naming the candidate index instead of starting
     * without the rows.
     */
    private void registerMarkers(@Nullable FlinkUpsertState converted) throws Exception {
        for (UpsertOperatorSpec.FlinkMaterializer flink :
                UpsertOperatorSpec.FlinkMaterializer.values()) {
            String name = flink.listStateName();
            if (converted == null || !converted.descriptor().getName().equals(name)) {
                getKeyedStateBackend()
                        .getPartitionedState(
                                VoidNamespace.INSTANCE,
                                VoidNamespaceSerializer.INSTANCE,
                                new ValueStateDescriptor<>(
                                        name, UpsertIndexMarkerSerializer.INSTANCE));
            }
        }
    }

    /** Refuses a savepoint of Flink's V2 MAP strategy, whose linked entries are not converted. */
    private void checkNoLinkedState(ColumnarKeyedStateBackend backend) {
        if (backend.restoredStateSerializer(LINKED_NODE_STATE) == null) {
            return;
        }
        boolean hasRows;
        try (var keys = getKeyedStateBackend().getKeys(LINKED_NODE_STATE, VoidNamespace.INSTANCE)) {
            hasRows = keys.findAny().isPresent();
        }
        if (hasRows) {
            throw new IllegalStateException(
                    getOperatorName()
                            + ": this job was restored from a savepoint of Flink's"
                            + " SinkUpsertMaterializerV2 with the MAP or ADAPTIVE strategy, whose"
                            + " state ('"
                            + LINKED_NODE_STATE
                            + "') StreamFusion's materializer cannot convert. Restore it with"
                            + " 'streamfusion.operators.enabled: false', or take the savepoint with"
                            + " 'table.exec.sink.upsert-materialize-strategy.type: VALUE' or LEGACY.");
        }
    }

    @Override
    protected void processBatch(RowBatch batch) throws Exception {
        try (KernelResult result = runKernel(batch, materializer::materialize)) {
            for (int i = 0; i < batch.size(); i++) {
                switch (result.decision(i)) {
                    case UpsertMaterializer.INSERT:
                        emitAs(batch.row(i), RowKind.INSERT);
                        break;
                    case UpsertMaterializer.UPDATE_AFTER:
                        emitAs(batch.row(i), RowKind.UPDATE_AFTER);
                        break;
                    case UpsertMaterializer.DELETE:
                        emitAs(batch.row(i), RowKind.DELETE);
                        break;
                    case UpsertMaterializer.LATEST:
                        emitAs(result.referencedRow(batch, i, arity), RowKind.UPDATE_AFTER);
                        break;
                    case UpsertMaterializer.NOT_FOUND:
                        logNotFound();
                        break;
                    default:
                        break;
                }
            }
        }
    }

    private void emitAs(RowData row, RowKind kind) {
        row.setRowKind(kind);
        emitWithoutTimestamp(row);
    }

    /** Logs as the replaced operator does when a retraction finds no row. */
    private void logNotFound() {
        if (spec.replaced() == UpsertOperatorSpec.FlinkMaterializer.LEGACY) {
            LOG.info(STATE_CLEARED_WARN_MSG);
        } else {
            LOG.warn("Not found record to retract");
        }
    }

    @Override
    protected void flushKernel() {
        materializer.flush();
    }

    @Override
    protected void closeKernel() {
        if (materializer != null) {
            materializer.close();
        }
    }
}
