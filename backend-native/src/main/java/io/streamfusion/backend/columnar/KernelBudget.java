package io.streamfusion.backend.columnar;

import org.slf4j.Logger;

/** Reports a native kernel that got less of the slot's memory budget than it asked for. */
final class KernelBudget {

    private KernelBudget() {}

    /**
     * Warns on {@code log} if {@code reserved} is less than {@code cacheBytes + batchBytes}: the
     * kernel then runs with the smaller cache the slot could spare, or without one, and with no
     * reservation at all its batches are not charged.
     */
    static void warnIfShort(
            Logger log,
            String kernel,
            String stateName,
            long reserved,
            long cacheBytes,
            long batchBytes) {
        long wanted = cacheBytes + batchBytes;
        if (reserved >= wanted) {
            return;
        }
        log.warn(
                "The {} of state '{}' got {} of the {} bytes it asked of the slot's memory budget"
                        + " ({} for its cache, {} for batches): it runs {}. Give the slot more"
                        + " managed memory or lower streamfusion.operators.cache-size.",
                kernel,
                stateName,
                reserved,
                wanted,
                cacheBytes,
                batchBytes,
                reserved == 0
                        ? "without a cache, and its batches are not charged to the budget"
                        : reserved > batchBytes
                                ? "with a cache of " + (reserved - batchBytes) + " bytes"
                                : "without a cache");
    }
}
