package io.streamfusion.operators.batch;

import io.streamfusion.api.columnar.ColumnarKeyedStateBackend;
import io.streamfusion.operators.OperatorConfig;

import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.complex.StructVector;

import javax.annotation.Nullable;

/**
 * Base of the columnar operators: gathers the rows that reach the operator into an Arrow {@link
 * RowBatch} and hands each full batch to {@link #processBatch}. A batch is processed when it holds
 * {@code batch-rows} rows (or half the batch memory), when its first row is {@code batch-latency}
 * old, before a watermark is forwarded, before a checkpoint barrier is sent (in {@link
 * #prepareSnapshotPreBarrier}, so every record of a batch belongs to the checkpoint its rows came
 * before, followed by {@link #flushKernel}), and at the end of input. An operator that replaces one
 * of Flink's mini-batch operators batches from a {@link MiniBatchBundle} instead, to emit in the
 * bundle's order.
 *
 * <p>A keyed operator computes each row's key with the node's own key selector, so the framework's
 * per-record {@code setCurrentKey} is skipped ({@link #hasKeyContext1()} is false): no state is
 * touched per row. A node without a key selector (a stateless operator) batches its rows under one
 * empty key. Arrow memory comes from the operator's own bounded allocator and is released in {@link
 * #close()}, which Flink calls on success, failure and cancellation alike.
 */
public abstract class BatchingOperator extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData> {

    private static final long serialVersionUID = 1L;

    /**
     * The accumulators (one per columnar operator, named with it) that count the rows the columnar
     * operators processed: visible in the web UI and in a job's result.
     */
    public static final String ROWS_ACCUMULATOR = "streamfusion-rows";

    protected final OperatorConfig operatorConfig;
    private static final StreamRecord<RowData> NO_TIMESTAMP = new StreamRecord<>(null);

    /** The key of every row of a node without a key selector. */
    private static final BinaryRowData NO_KEY = emptyRow();

    private final StreamRecord<RowData> outRecord = new StreamRecord<>(null);

    private transient BufferAllocator allocator;
    private transient RowBatch batch;
    private transient ArrowArray batchArray;
    private transient KeySelector<RowData, RowData> keySelector;
    private transient RowDataSerializer inputSerializer;
    private transient RowDataSerializer keySerializer;
    @Nullable private transient MiniBatchBundle bundle;
    private transient boolean keyed;

    /** Whether batches hold each key's rows of a bundle together (see keepsKeyRunsTogether). */
    private transient boolean keyRuns;

    /** The key of the last row added, for keeping a key's rows of a bundle in one batch. */
    @Nullable private transient BinaryRowData lastKey;

    /** Counts batches, so a latency timer knows whether its batch was already processed. */
    private transient long batchNumber;

    private transient Counter rowsProcessed;
    private transient Counter batchesProcessed;
    private transient LongCounter rowsAccumulator;

    protected BatchingOperator(
            StreamOperatorParameters<RowData> parameters, OperatorConfig operatorConfig) {
        super(parameters);
        this.operatorConfig = operatorConfig;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception {
        super.open();
        ClassLoader classLoader = getUserCodeClassloader();
        keySelector = (KeySelector<RowData, RowData>) getStateKeySelector1();
        keyed = keySelector != null;
        inputSerializer =
                (RowDataSerializer) (TypeSerializer<?>) config.getTypeSerializerIn(0, classLoader);
        keySerializer =
                keyed
                        ? (RowDataSerializer)
                                (TypeSerializer<?>) config.getStateKeySerializer(classLoader)
                        : null;
        allocator =
                BatchAllocators.forOperator(
                        config.getOperatorName()
                                + "-"
                                + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                        operatorConfig.batchMemoryBytes());
        MiniBatchBundle.Spec bundleSpec = miniBatchBundle();
        keyRuns = bundleSpec != null && keepsKeyRunsTogether();
        // A bundle holds at most maxCount rows, so a batch of as many holds any key's run.
        int capacity =
                keyRuns
                        ? (int)
                                Math.min(
                                        Integer.MAX_VALUE - 8,
                                        Math.max(operatorConfig.batchRows(), bundleSpec.maxCount()))
                        : operatorConfig.batchRows();
        batch = new RowBatch(allocator, capacity, operatorConfig.batchMemoryBytes() / 2);
        batchArray = ArrowArray.allocateNew(allocator);
        bundle = bundleSpec == null ? null : new MiniBatchBundle(bundleSpec, bundleMerger());
        rowsProcessed = getMetricGroup().counter("streamfusionRowsProcessed");
        batchesProcessed = getMetricGroup().counter("streamfusionBatchesProcessed");
        rowsAccumulator = new LongCounter();
        // Named by the operator, not the task: a chain may hold two columnar operators, and the
        // subtasks' counters merge into one per operator.
        getRuntimeContext()
                .addAccumulator(ROWS_ACCUMULATOR + " " + config.getOperatorName(), rowsAccumulator);
        openKernel(allocator, batch);
    }

    /** The task's keyed backend as StreamFusion's columnar one, which the kernels run in. */
    protected final ColumnarKeyedStateBackend columnarBackend() {
        if (!(getKeyedStateBackend() instanceof ColumnarKeyedStateBackend)) {
            throw new IllegalStateException(
                    getOperatorName()
                            + " needs StreamFusion's keyed state backend, but got "
                            + getKeyedStateBackend().getClass().getName());
        }
        return (ColumnarKeyedStateBackend) getKeyedStateBackend();
    }

    /** The operator's Arrow allocator, bounded by {@code batch-memory}. */
    protected final BufferAllocator allocator() {
        return allocator;
    }

    /** One call of a native kernel on an exported batch (see {@link #runKernel}). */
    @FunctionalInterface
    protected interface BatchKernel {
        void process(long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress);
    }

    /**
     * Runs {@code kernel} on {@code batch} (see {@link #runKernelRaw}) and reads its result as a
     * {@link KernelResult}, which the caller closes.
     */
    protected final KernelResult runKernel(RowBatch batch, BatchKernel kernel) {
        return new KernelResult(runKernelRaw(batch, kernel));
    }

    /**
     * Exports {@code batch}, hands it to {@code kernel} in one call, and imports the kernel's
     * result, which the caller closes. The kernel takes the exported batch over and releases it,
     * also when it fails.
     */
    protected final StructVector runKernelRaw(RowBatch batch, BatchKernel kernel) {
        batch.exportTo(batchArray);
        // Importing a result closes these structs; they are closed here only if there is none.
        ArrowArray resultArray = ArrowArray.allocateNew(allocator);
        ArrowSchema resultSchema = ArrowSchema.allocateNew(allocator);
        try {
            kernel.process(
                    batchArray.memoryAddress(),
                    resultArray.memoryAddress(),
                    resultSchema.memoryAddress());
        } catch (RuntimeException | Error e) {
            resultArray.close();
            resultSchema.close();
            throw e;
        } finally {
            // A no-op once the kernel released the batch; frees it if the call failed first.
            batchArray.release();
        }
        return (StructVector) Data.importVector(allocator, resultArray, resultSchema, null);
    }

    /**
     * Exports the batch schema into a fresh {@code ArrowSchema} and hands its address to {@code
     * open}, which takes it over; the struct is released here if {@code open} did not.
     */
    protected final <T> T withBatchSchema(SchemaConsumer<T> open) throws Exception {
        try (ArrowSchema schema = ArrowSchema.allocateNew(allocator)) {
            batch.exportSchema(schema);
            try {
                return open.open(schema.memoryAddress());
            } finally {
                // A no-op once the kernel took the schema over.
                schema.release();
            }
        }
    }

    /** Opens a kernel given the address of the exported batch schema. */
    @FunctionalInterface
    protected interface SchemaConsumer<T> {
        T open(long batchSchemaAddress) throws Exception;
    }

    /**
     * The bundle of the Flink mini-batch operator this one replaces, or null (the default) to batch
     * rows as they arrive. With a bundle, batches are cut from each finished bundle in Flink's
     * order, and rows carry no record timestamp, as Flink's bundle operators emit none.
     */
    @Nullable
    protected MiniBatchBundle.Spec miniBatchBundle() {
        return null;
    }

    /**
     * What merges a key's rows in a {@link MiniBatchBundle.Keep#MERGED} bundle; called once from
     * {@link #open()} if {@link #miniBatchBundle()} asks for one.
     */
    @Nullable
    protected MiniBatchBundle.Merger bundleMerger() throws Exception {
        return null;
    }

    /**
     * Whether a bundle's rows of one key stay in one batch, for a kernel that aggregates each key's
     * run of rows as one; batches then end only between keys (after {@code batch-rows} rows or half
     * the batch memory), and may exceed both by one key's rows.
     */
    protected boolean keepsKeyRunsTogether() {
        return false;
    }

    /**
     * Whether the batch keeps each row as it was received, for an operator that emits unchanged
     * rows as Flink's does, rather than the row's binary copy (the default, which kernels that
     * refer back to batch rows need).
     */
    protected boolean keepsReceivedRows() {
        return false;
    }

    /** Opens what processes the batches: called once from {@link #open()}. */
    protected abstract void openKernel(BufferAllocator allocator, RowBatch batch) throws Exception;

    /** Processes a full batch and emits its results, in row order. */
    protected abstract void processBatch(RowBatch batch) throws Exception;

    /** Releases what {@link #openKernel} opened; also called after a failure. */
    protected abstract void closeKernel() throws Exception;

    /**
     * Registers the timer service that Flink's {@code KeyedProcessOperator} registers whether or
     * not its function uses timers, so that this operator's state looks like the one it replaces.
     */
    protected final void registerUserTimers() {
        getInternalTimerService("user-timers", VoidNamespaceSerializer.INSTANCE, NO_TIMERS);
    }

    private static final Triggerable<Object, VoidNamespace> NO_TIMERS =
            new Triggerable<>() {
                @Override
                public void onEventTime(InternalTimer<Object, VoidNamespace> timer) {}

                @Override
                public void onProcessingTime(InternalTimer<Object, VoidNamespace> timer) {}
            };

    /** The framework computes no key per record: {@link #processElement} does, for the batch. */
    @Override
    public boolean hasKeyContext1() {
        return false;
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        RowData row = element.getValue();
        BinaryRowData key = keyed ? binary(keySelector.getKey(row), keySerializer) : NO_KEY;
        if (keepsReceivedRows()) {
            // The serializer's reused buffer is copied into the batch before its next use.
            BinaryRowData bytes =
                    row instanceof BinaryRowData
                            ? (BinaryRowData) row
                            : inputSerializer.toBinaryRow(row);
            if (append(bytes, row, key, element)) {
                registerLatencyTimer();
            }
            return;
        }
        BinaryRowData binary = binary(row, inputSerializer);
        if (bundle != null) {
            if (bundle.add(binary, key)) {
                flush();
            }
            return;
        }
        if (append(binary, binary, key, element)) {
            registerLatencyTimer();
        }
    }

    /** Processes the batch just started once it is {@code batch-latency} old, if still open. */
    private void registerLatencyTimer() {
        long due = batchNumber;
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService()
                .registerTimer(
                        now + operatorConfig.batchLatencyMillis(),
                        time -> {
                            if (batchNumber == due) {
                                processCurrentBatch();
                            }
                        });
    }

    /**
     * Adds a row to the current batch, processing the batch first if the row does not fit and after
     * if it is full; true if the row started a batch that is still open.
     */
    private boolean append(
            BinaryRowData row, RowData received, BinaryRowData key, StreamRecord<?> record)
            throws Exception {
        // A bundle hands a key's rows over together, as one key object.
        boolean continuesRun = keyRuns && key == lastKey && !batch.isEmpty();
        if (continuesRun) {
            if (!batch.hasRoom()) {
                throw new IllegalStateException(
                        "A key's rows of one bundle exceed the "
                                + batch.size()
                                + " rows of a batch");
            }
        } else if (!batch.fits(row.getSizeInBytes() + key.getSizeInBytes())
                || (keyRuns && batch.size() >= operatorConfig.batchRows())) {
            processCurrentBatch();
        }
        boolean first = batch.isEmpty();
        batch.add(row, received, key, record);
        lastKey = key;
        if (!keyRuns && batch.size() >= operatorConfig.batchRows()) {
            processCurrentBatch();
            return false;
        }
        return first;
    }

    /** A row of no fields: the key of an unkeyed operator, or the row of a batch of keys only. */
    protected static BinaryRowData emptyRow() {
        BinaryRowData key = new BinaryRowData(0);
        key.pointTo(
                MemorySegmentFactory.wrap(new byte[BinaryRowData.calculateFixPartSizeInBytes(0)]),
                0,
                BinaryRowData.calculateFixPartSizeInBytes(0));
        return key;
    }

    /** Rows from the network are binary already; anything else is copied into its binary form. */
    private static BinaryRowData binary(RowData row, RowDataSerializer serializer) {
        return row instanceof BinaryRowData
                ? (BinaryRowData) row
                : serializer.toBinaryRow(row).copy();
    }

    /**
     * Processes what the operator holds: the current batch, or the finished bundle in batches of
     * {@code batch-rows}.
     */
    protected final void flush() throws Exception {
        if (bundle != null && !bundle.isEmpty()) {
            bundle.finish((row, key) -> append(row, row, key, NO_TIMESTAMP));
        }
        processCurrentBatch();
    }

    /** Processes the current batch, if it has rows. */
    private void processCurrentBatch() throws Exception {
        if (batch.isEmpty()) {
            return;
        }
        int rows = batch.size();
        try {
            processBatch(batch);
        } finally {
            batch.clear();
            batchNumber++;
        }
        rowsProcessed.inc(rows);
        batchesProcessed.inc();
        rowsAccumulator.add(rows);
    }

    /** Emits {@code row} without a record timestamp, as Flink's sink operators do. */
    protected final void emitWithoutTimestamp(RowData row) {
        outRecord.replace(row);
        outRecord.eraseTimestamp();
        output.collect(outRecord);
    }

    /** Emits {@code row} with the record timestamp of the batch's row {@code index}. */
    protected final void emit(RowBatch batch, int index, RowData row) {
        if (batch.hasTimestamp(index)) {
            outRecord.replace(row, batch.timestamp(index));
        } else {
            outRecord.replace(row);
            outRecord.eraseTimestamp();
        }
        output.collect(outRecord);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flush();
        super.processWatermark(mark);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        flush();
        flushKernel();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    /**
     * Writes what the kernel holds only in memory to the state, before a checkpoint barrier is sent
     * and after the last batch before it was processed; by default there is nothing.
     */
    protected void flushKernel() throws Exception {}

    @Override
    public void finish() throws Exception {
        flush();
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            if (allocator != null) {
                closeKernel();
            }
        } finally {
            if (batchArray != null) {
                batchArray.close();
            }
            if (batch != null) {
                batch.close();
            }
            if (allocator != null) {
                allocator.close();
            }
            super.close();
        }
    }
}
