package io.streamfusion.backend.state;

import javax.annotation.Nullable;

import java.util.Arrays;

/**
 * The counter and the latest candidate of the key that a candidate index touched last. One memo
 * is shared by every view of the same index, and only those views write its entries, so the
 * memo is never stale. An upsert step (append, retract and latest under one key) then reads the
 * counter once and the latest candidate not at all.
 */
public final class CandidateIndexMemo {

    @Nullable private byte[] base;
    private long[] counter;
    @Nullable private byte[] latestStored;

    /** The remembered counter of the key and namespace {@code base}, or null if another is remembered. */
    @Nullable
    long[] counter(byte[] base) {
        return Arrays.equals(base, this.base) ? counter : null;
    }

    /** The stored latest candidate of {@code base}, if it is the one with {@code sequence}. */
    @Nullable
    byte[] latest(byte[] base, long sequence) {
        return latestStored != null && Arrays.equals(base, this.base) && counter[2] == sequence ? latestStored : null;
    }

    /**
     * Remembers what was just read or written for {@code base}; {@code latestStored} is the stored
     * entry of the candidate {@code counter} calls latest, or null if it is not at hand.
     */
    void remember(byte[] base, long[] counter, @Nullable byte[] latestStored) {
        if (!Arrays.equals(base, this.base)) {
            this.base = base.clone();
        }
        this.counter = counter;
        this.latestStored = latestStored;
    }

    void forget() {
        base = null;
        counter = null;
        latestStored = null;
    }
}
