package io.streamfusion.operators.deduplicate;

import io.streamfusion.api.columnar.BinaryFieldType;
import io.streamfusion.api.columnar.SortField;
import io.streamfusion.api.columnar.Top1Ranker;
import io.streamfusion.api.columnar.Top1RankerSpec;
import io.streamfusion.api.columnar.Top1Replacement;
import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.batch.BatchingOperator;
import io.streamfusion.operators.batch.BinaryColumnReader;
import io.streamfusion.operators.batch.KernelResult;
import io.streamfusion.operators.batch.RowBatch;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.operators.over.AbstractRowTimeUnboundedPrecedingOver;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Preconditions;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.complex.StructVector;

import java.util.List;

/**
 * StreamFusion's row-time keep-first deduplication with insert-only output, in place of Flink's
 * {@code RowTimeDeduplicateKeepFirstRowFunction}, with the same output record by record: each key's
 * earliest row that was not late, emitted as INSERT when the watermark passes its row time, with
 * that row time as its record timestamp; nothing for rows that arrive after it.
 *
 * <p>Its state is Flink's: {@code waiting-to-emit-on-timer} (the earliest row, no TTL), {@code
 * already-emitted-state-boolean} (with the operator's TTL) and the event-time timers of {@code
 * user-timers}, so a savepoint moves between this operator and Flink's and restored timers fire.
 * The native Top-1 ranker keeps the waiting rows, one call per batch, and rejects the rows of keys
 * already emitted. Late rows (before the current watermark) are dropped and counted as Flink counts
 * them, before they are batched: a batch is processed before any watermark, so the watermark a row
 * meets is the one Flink's function would read. Timers are registered and deleted per changed
 * winner, as Flink does; the winners of the timers one watermark fires are taken out with one call
 * per batch of timers, and emitted before the watermark is forwarded.
 */
public final class RowTimeKeepFirstOperator extends BatchingOperator
        implements Triggerable<RowData, VoidNamespace> {

    private static final long serialVersionUID = 1L;

    private final RowTimeKeepFirstSpec spec;

    private transient InternalTimerService<VoidNamespace> timers;
    private transient Top1Ranker ranker;
    private transient Counter lateRecordsDropped;
    private transient RowDataSerializer keySerializer;

    /** The keys of the timers fired and not yet taken, each with the timer's time as timestamp. */
    private transient RowBatch firedTimers;

    private transient BinaryRowData noRow;
    private transient StreamRecord<RowData> timerRecord;

    public RowTimeKeepFirstOperator(
            StreamOperatorParameters<RowData> parameters,
            RowTimeKeepFirstSpec spec,
            OperatorConfig operatorConfig) {
        super(parameters, operatorConfig);
        this.spec = spec;
    }

    @Override
    protected void openKernel(BufferAllocator allocator, RowBatch batch) throws Exception {
        timers = getInternalTimerService("user-timers", VoidNamespaceSerializer.INSTANCE, this);
        lateRecordsDropped =
                getMetricGroup()
                        .counter(
                                AbstractRowTimeUnboundedPrecedingOver
                                        .LATE_ELEMENTS_DROPPED_METRIC_NAME);
        keySerializer =
                (RowDataSerializer)
                        (TypeSerializer<?>) config.getStateKeySerializer(getUserCodeClassloader());
        // Fired timers carry keys only, a small share of the operator's batch memory.
        firedTimers =
                new RowBatch(
                        allocator,
                        operatorConfig.batchRows(),
                        operatorConfig.batchMemoryBytes() / 8);
        noRow = emptyRow();
        timerRecord = new StreamRecord<>(null);
        Top1RankerSpec rankerSpec =
                new Top1RankerSpec(
                        spec.rowArity(),
                        List.of(
                                new SortField(
                                        spec.rowtimeIndex(),
                                        BinaryFieldType.ROWTIME_MILLIS,
                                        true,
                                        false)),
                        Top1Replacement.STRICTLY_FIRST,
                        true,
                        true,
                        false,
                        operatorConfig.cacheBytes(),
                        operatorConfig.batchMemoryBytes());
        ranker =
                withBatchSchema(
                        schema ->
                                columnarBackend()
                                        .openTop1Ranker(
                                                spec.waitingState(),
                                                spec.emittedState(),
                                                rankerSpec,
                                                schema));
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        RowData row = element.getValue();
        Preconditions.checkArgument(row.getRowKind() == RowKind.INSERT);
        if (row.getLong(spec.rowtimeIndex()) < timers.currentWatermark()) {
            lateRecordsDropped.inc();
            return;
        }
        super.processElement(element);
    }

    @Override
    protected void processBatch(RowBatch batch) throws Exception {
        try (KernelResult result = runKernel(batch, ranker::rank)) {
            for (int i = 0; i < batch.size(); i++) {
                byte decision = result.decision(i);
                if (decision == Top1Ranker.REJECTED) {
                    continue;
                }
                setCurrentKey(batch.key(i).copy());
                if (decision == Top1Ranker.REPLACED) {
                    RowData replaced = result.referencedRow(batch, i, spec.rowArity());
                    timers.deleteEventTimeTimer(
                            VoidNamespace.INSTANCE, replaced.getLong(spec.rowtimeIndex()));
                }
                timers.registerEventTimeTimer(
                        VoidNamespace.INSTANCE, batch.row(i).getLong(spec.rowtimeIndex()));
            }
        }
    }

    @Override
    public void onEventTime(InternalTimer<RowData, VoidNamespace> timer) throws Exception {
        BinaryRowData key = keySerializer.toBinaryRow(timer.getKey()).copy();
        if (!firedTimers.fits(key.getSizeInBytes() + noRow.getSizeInBytes())) {
            emitFiredWinners();
        }
        timerRecord.replace(null, timer.getTimestamp());
        firedTimers.add(noRow, noRow, key, timerRecord);
        if (firedTimers.size() >= operatorConfig.batchRows()) {
            emitFiredWinners();
        }
    }

    @Override
    public void onProcessingTime(InternalTimer<RowData, VoidNamespace> timer) {}

    /** Emits the winners of the fired timers, in the order the timers fired. */
    private void emitFiredWinners() throws Exception {
        if (firedTimers.isEmpty()) {
            return;
        }
        try (StructVector result = runKernelRaw(firedTimers, ranker::takeWinners)) {
            BinaryColumnReader winners =
                    new BinaryColumnReader((VarBinaryVector) result.getChildByOrdinal(0));
            for (int i = 0; i < firedTimers.size(); i++) {
                BinaryRowData winner = winners.row(i, spec.rowArity());
                if (winner != null) {
                    emit(firedTimers, i, winner);
                }
            }
        } finally {
            firedTimers.clear();
        }
    }

    /** Flink forwards a watermark after the timers it fires have emitted their rows. */
    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flush();
        if (getTimeServiceManager().isPresent()) {
            getTimeServiceManager().get().advanceWatermark(mark);
        }
        emitFiredWinners();
        output.emitWatermark(mark);
    }

    /**
     * The winners still waiting, which only the ranker's write-back cache may hold, go to state.
     */
    @Override
    protected void flushKernel() throws Exception {
        emitFiredWinners();
        ranker.flush();
    }

    @Override
    protected void closeKernel() {
        try {
            if (ranker != null) {
                ranker.close();
            }
        } finally {
            if (firedTimers != null) {
                firedTimers.close();
            }
        }
    }
}
