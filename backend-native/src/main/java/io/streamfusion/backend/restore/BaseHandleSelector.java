package io.streamfusion.backend.restore;

import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;

import java.util.Comparator;
import java.util.List;

/**
 * Picks the handle whose instance a rescaling restore opens and clips, before merging the others
 * into it. As in Flink's RocksDB backend: the most key groups in common with the new range, then
 * the largest share of the handle's own key groups, so the least data is copied.
 */
final class BaseHandleSelector {

    private BaseHandleSelector() {}

    static <T extends KeyedStateHandle> T choose(List<T> handles, KeyGroupRange target) {
        if (handles.isEmpty()) {
            throw new IllegalArgumentException("No handle to restore from");
        }
        return handles.stream()
                .max(
                        Comparator.<T>comparingInt(h -> overlap(h, target))
                                .thenComparingDouble(
                                        h ->
                                                (double) overlap(h, target)
                                                        / h.getKeyGroupRange()
                                                                .getNumberOfKeyGroups()))
                .orElseThrow();
    }

    private static int overlap(KeyedStateHandle handle, KeyGroupRange target) {
        return handle.getKeyGroupRange().getIntersection(target).getNumberOfKeyGroups();
    }
}
