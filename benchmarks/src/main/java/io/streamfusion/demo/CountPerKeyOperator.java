package io.streamfusion.demo;

import org.apache.flink.api.common.accumulators.ListAccumulator;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts events per key in a {@code ValueState<Long>} and emits every new count. It also reports
 * what really happened underneath: the class of the keyed backend it was given, and how many
 * entries that backend holds when the operator closes.
 */
public final class CountPerKeyOperator extends AbstractStreamOperator<Tuple2<Long, Long>>
        implements OneInputStreamOperator<Long, Tuple2<Long, Long>> {

    private static final long serialVersionUID = 1L;

    public static final String BACKEND_CLASSES = "keyed-backend-classes";
    public static final String STATE_ENTRIES_AT_CLOSE = "state-entries-at-close";

    /** Checkpoints confirmed to subtask 0; the demo and its tests run in one JVM. */
    static final AtomicInteger COMPLETED_CHECKPOINTS = new AtomicInteger();

    private final long keys;
    private transient ValueState<Long> count;
    private transient LongCounter entriesAtClose;

    public CountPerKeyOperator(long keys) {
        this.keys = keys;
    }

    @Override
    public void open() throws Exception {
        super.open();
        count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        ListAccumulator<String> backends = new ListAccumulator<>();
        backends.add(getKeyedStateBackend().getClass().getName());
        getRuntimeContext().addAccumulator(BACKEND_CLASSES, backends);
        entriesAtClose = new LongCounter();
        getRuntimeContext().addAccumulator(STATE_ENTRIES_AT_CLOSE, entriesAtClose);
    }

    @Override
    public void processElement(StreamRecord<Long> element) throws Exception {
        long key = element.getValue() % keys;
        Long current = count.value();
        long next = current == null ? 1 : current + 1;
        count.update(next);
        output.collect(new StreamRecord<>(Tuple2.of(key, next)));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0) {
            COMPLETED_CHECKPOINTS.incrementAndGet();
        }
    }

    @Override
    public void close() throws Exception {
        // Flink also closes an operator whose state could not be initialized (open() never ran,
        // and asking for the keyed backend would throw): there is nothing to report then.
        if (entriesAtClose != null && getKeyedStateBackend() instanceof AbstractKeyedStateBackend) {
            // Counted by the backend itself: on StreamFusion this is a native scan.
            entriesAtClose.add(
                    ((AbstractKeyedStateBackend<?>) getKeyedStateBackend())
                            .numKeyValueStateEntries());
        }
        super.close();
    }
}
