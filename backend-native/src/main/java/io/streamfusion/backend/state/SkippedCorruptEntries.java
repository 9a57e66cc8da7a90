package io.streamfusion.backend.state;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Corrupt entries that background work of a backend met under keys other than the current one, such
 * as the candidate-index TTL sweep, and stepped over: one damaged key must not fail the operations
 * of others. The gauge {@code corruptEntriesSkipped} reports the count; the first entry of each
 * state is logged with its cause.
 */
public final class SkippedCorruptEntries {

    private static final Logger LOG = LoggerFactory.getLogger(SkippedCorruptEntries.class);

    private final AtomicLong count = new AtomicLong();
    private final Set<String> loggedStates = ConcurrentHashMap.newKeySet();

    void skipped(String stateName, StateCorruptionException corruption) {
        count.incrementAndGet();
        if (loggedStates.add(stateName)) {
            LOG.warn(
                    "Skipped a corrupt entry of state '{}' in background work; operations on its key"
                            + " will fail, other keys are unaffected. Further ones of this state are"
                            + " only counted in the corruptEntriesSkipped metric.",
                    stateName,
                    corruption);
        }
    }

    public long count() {
        return count.get();
    }
}
