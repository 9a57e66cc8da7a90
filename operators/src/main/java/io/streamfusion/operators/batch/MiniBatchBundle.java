package io.streamfusion.operators.batch;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;

import javax.annotation.Nullable;

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

    /** Which of a key's rows in one bundle Flink's function keeps, in arrival order. */
    public enum Keep {
        FIRST,
        LAST,
        /** Every row (row-time deduplication without compacted changes). */
        EVERY,
        /** The row with the latest row time, ties to the later row (compacted keep-last). */
        LATEST_ROW_TIME,
        /** The row with the earliest row time, ties to the earlier row (compacted keep-first). */
        EARLIEST_ROW_TIME,
        /**
         * The key's rows merged into one by a {@link Merger} (two-phase aggregation: the local
         * accumulators of a key, merged).
         */
        MERGED
    }

    /** Merges a key's rows of one bundle, as Flink's bundle function's {@code addInput}. */
    public interface Merger {
        /** {@code row} merged into {@code merged}, the key's rows so far (null for none). */
        RowData merge(@Nullable RowData merged, BinaryRowData row) throws Exception;

        /** The merged value as the row handed on when the bundle is finished. */
        BinaryRowData toBinary(RowData merged);
    }

    /**
     * How the planner configured a mini-batch operator's bundle.
     *
     * @param rowtimeIndex the row-time field the row-time rules read ({@code RowData.getLong}, as
     *     Flink does), or -1
     */
    public record Spec(Keep keep, long maxCount, int rowtimeIndex) implements Serializable {
        public Spec {
            if (maxCount <= 0) {
                throw new IllegalArgumentException("A bundle holds at least one row");
            }
            boolean byRowTime = keep == Keep.LATEST_ROW_TIME || keep == Keep.EARLIEST_ROW_TIME;
            if (byRowTime != rowtimeIndex >= 0) {
                throw new IllegalArgumentException(
                        "A row-time field is needed by, and only by, the row-time rules: " + keep);
            }
        }

        public Spec(Keep keep, long maxCount) {
            this(keep, maxCount, -1);
        }
    }

    /** Receives the rows of a finished bundle in Flink's order. */
    @FunctionalInterface
    public interface Consumer {
        void accept(BinaryRowData row, BinaryRowData key) throws Exception;
    }

    private final Spec spec;
    @Nullable private final Merger merger;
    private final Map<BinaryRowData, Integer> slots = new HashMap<>();
    private final List<RowData> rows = new ArrayList<>();

    /** With {@link Keep#EVERY}: the rows after a key's first, per slot. */
    private final List<List<BinaryRowData>> laterRows = new ArrayList<>();

    private long count;

    /** A bundle that keeps rows as they arrived (any {@link Keep} but {@link Keep#MERGED}). */
    public MiniBatchBundle(Spec spec) {
        this(spec, null);
    }

    /**
     * @param merger what merges a key's rows, for and only for {@link Keep#MERGED}
     */
    public MiniBatchBundle(Spec spec, @Nullable Merger merger) {
        if ((spec.keep() == Keep.MERGED) != (merger != null)) {
            throw new IllegalArgumentException("A merger is needed by, and only by, Keep.MERGED");
        }
        this.spec = spec;
        this.merger = merger;
    }

    /** Adds a row; true when the bundle is full and must be finished now. */
    public boolean add(BinaryRowData row, BinaryRowData key) throws Exception {
        // One lookup; a new key goes where Flink's get-then-put would put it.
        Integer slot = slots.putIfAbsent(key, rows.size());
        if (merger != null) {
            if (slot == null) {
                rows.add(merger.merge(null, row));
            } else {
                rows.set(slot, merger.merge(rows.get(slot), row));
            }
        } else if (slot == null) {
            rows.add(row);
            if (spec.keep() == Keep.EVERY) {
                laterRows.add(new ArrayList<>(0));
            }
        } else if (replaces(row, rows.get(slot))) {
            rows.set(slot, row);
        } else if (spec.keep() == Keep.EVERY) {
            laterRows.get(slot).add(row);
        }
        return ++count >= spec.maxCount();
    }

    /** Whether {@code row} takes the place of a key's kept row, as Flink's {@code addInput}. */
    private boolean replaces(BinaryRowData row, RowData kept) {
        int at = spec.rowtimeIndex();
        switch (spec.keep()) {
            case LAST:
                return true;
            case LATEST_ROW_TIME:
                return kept.getLong(at) <= row.getLong(at);
            case EARLIEST_ROW_TIME:
                return row.getLong(at) < kept.getLong(at);
            default:
                return false;
        }
    }

    public boolean isEmpty() {
        return slots.isEmpty();
    }

    /** Hands every kept row to {@code consumer} in Flink's order and empties the bundle. */
    public void finish(Consumer consumer) throws Exception {
        try {
            for (Map.Entry<BinaryRowData, Integer> entry : slots.entrySet()) {
                int slot = entry.getValue();
                RowData kept = rows.get(slot);
                consumer.accept(
                        merger != null ? merger.toBinary(kept) : (BinaryRowData) kept,
                        entry.getKey());
                if (spec.keep() == Keep.EVERY) {
                    for (BinaryRowData later : laterRows.get(slot)) {
                        consumer.accept(later, entry.getKey());
                    }
                }
            }
        } finally {
            slots.clear();
            rows.clear();
            laterRows.clear();
            count = 0;
        }
    }
}
