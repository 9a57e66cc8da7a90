package io.streamfusion.operators.batch;

import org.apache.flink.table.data.binary.BinaryRowData;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The bundle of Flink's mini-batch operators ({@code AbstractMapBundleOperator}), mirrored so that
 * a columnar operator emits in Flink's order: one row per key (the first or the last of the
 * bundle), keys in the iteration order of a {@link HashMap} that received the same keys in the same
 * order. Like Flink's, the map lives as long as the operator and is cleared, never replaced, after
 * each bundle, so its capacity (and with it the order) evolves as Flink's does; a bundle ends when
 * it holds {@code maxCount} rows (Flink's {@code CountBundleTrigger}) and wherever Flink's ends
 * one: before a watermark, before a checkpoint barrier and at the end of input.
 */
public final class MiniBatchBundle {

    /** Which row of a key's rows in one bundle Flink's function keeps. */
    public enum Keep {
        FIRST,
        LAST
    }

    /** How the planner configured a mini-batch operator's bundle. */
    public record Spec(Keep keep, long maxCount) implements Serializable {
        public Spec {
            if (maxCount <= 0) {
                throw new IllegalArgumentException("A bundle holds at least one row");
            }
        }
    }

    /** Receives the rows of a finished bundle in Flink's order. */
    @FunctionalInterface
    public interface Consumer {
        void accept(BinaryRowData row, BinaryRowData key) throws Exception;
    }

    private final Spec spec;
    private final Map<BinaryRowData, Integer> slots = new HashMap<>();
    private final List<BinaryRowData> rows = new ArrayList<>();
    private long count;

    public MiniBatchBundle(Spec spec) {
        this.spec = spec;
    }

    /** Adds a row; true when the bundle is full and must be finished now. */
    public boolean add(BinaryRowData row, BinaryRowData key) {
        Integer slot = slots.get(key);
        if (slot == null) {
            slots.put(key, rows.size());
            rows.add(row);
        } else if (spec.keep() == Keep.LAST) {
            rows.set(slot, row);
        }
        return ++count >= spec.maxCount();
    }

    public boolean isEmpty() {
        return slots.isEmpty();
    }

    /** Hands every kept row to {@code consumer} in Flink's order and empties the bundle. */
    public void finish(Consumer consumer) throws Exception {
        try {
            for (Map.Entry<BinaryRowData, Integer> entry : slots.entrySet()) {
                consumer.accept(rows.get(entry.getValue()), entry.getKey());
            }
        } finally {
            slots.clear();
            rows.clear();
            count = 0;
        }
    }
}
