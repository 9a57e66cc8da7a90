package io.streamfusion.backend.state;

import javax.annotation.Nullable;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The counters of the keys a candidate index touched most recently, and the latest candidate of the
 * key touched last. One memo is shared by every view of the same index, and only those views write
 * the index, so the memo is never stale.
 *
 * <p>Counters are written back, not through: an append or retraction changes the remembered
 * counter, and the counter entry is written when the key leaves the memo (at most {@link
 * #MAX_COUNTERS} keys are kept, the least recently used going first) or when the backend {@link
 * #flush() flushes} before a snapshot. The backend disables the WAL, so nothing between two
 * snapshots survives a failure anyway; what a snapshot captures is always complete. An upsert step
 * (append, retract and latest under one key) then writes only the candidate and hash entries, reads
 * no counter of a recently used key, and never reads the latest candidate.
 */
public final class CandidateIndexMemo {

    static final int MAX_COUNTERS = 1024;

    /** Writes the counter entry of a key. */
    @FunctionalInterface
    interface CounterWriter {
        void write(byte[] base, CandidateCounter counter);
    }

    /** A remembered counter and whether the stored entry still lacks it. */
    private static final class Counter {
        CandidateCounter value;
        boolean dirty;

        Counter(CandidateCounter value, boolean dirty) {
            this.value = value;
            this.dirty = dirty;
        }
    }

    private final CounterWriter writer;
    private final Map<ByteBuffer, Counter> counters =
            new LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<ByteBuffer, Counter> eldest) {
                    if (size() <= MAX_COUNTERS) {
                        return false;
                    }
                    if (eldest.getValue().dirty) {
                        writer.write(eldest.getKey().array(), eldest.getValue().value);
                    }
                    return true;
                }
            };

    @Nullable private byte[] latestBase;
    private long latestSequence = -1;
    @Nullable private byte[] latestStored;

    CandidateIndexMemo(CounterWriter writer) {
        this.writer = writer;
    }

    /** The remembered counter of the key and namespace {@code base}, or null if not remembered. */
    @Nullable
    CandidateCounter counter(byte[] base) {
        Counter counter = counters.get(ByteBuffer.wrap(base));
        return counter == null ? null : counter.value;
    }

    /** The stored latest candidate of {@code base}, if it is the one with {@code sequence}. */
    @Nullable
    byte[] latest(byte[] base, long sequence) {
        return latestStored != null && latestSequence == sequence && Arrays.equals(base, latestBase)
                ? latestStored
                : null;
    }

    /**
     * Remembers the counter of {@code base} as stored ({@code dirty} false) or as changed and not
     * yet written ({@code dirty} true); {@code latestStored} is the stored entry of the candidate
     * the counter calls latest, or null if it is not at hand.
     */
    void remember(
            byte[] base, CandidateCounter counter, boolean dirty, @Nullable byte[] latestStored) {
        Counter remembered = counters.get(ByteBuffer.wrap(base));
        if (remembered == null) {
            counters.put(ByteBuffer.wrap(base.clone()), new Counter(counter, dirty));
        } else {
            remembered.value = counter;
            remembered.dirty |= dirty;
        }
        if (!Arrays.equals(base, latestBase)) {
            latestBase = base.clone();
        }
        this.latestSequence = counter.latestSequence();
        this.latestStored = latestStored;
    }

    /** Forgets {@code base}, whose entries were all deleted, without writing its counter. */
    void forget(byte[] base) {
        counters.remove(ByteBuffer.wrap(base));
        if (Arrays.equals(base, latestBase)) {
            latestStored = null;
        }
    }

    /**
     * Writes every counter that changed since it was last written; the backend calls this before a
     * snapshot.
     */
    public void flush() {
        for (Map.Entry<ByteBuffer, Counter> entry : counters.entrySet()) {
            if (entry.getValue().dirty) {
                writer.write(entry.getKey().array(), entry.getValue().value);
                entry.getValue().dirty = false;
            }
        }
    }
}
