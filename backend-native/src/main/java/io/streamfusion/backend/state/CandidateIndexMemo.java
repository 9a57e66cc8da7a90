package io.streamfusion.backend.state;

import javax.annotation.Nullable;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The counters of the keys a candidate index touched most recently, and the latest candidate of
 * the key touched last. One memo is shared by every view of the same index, and only those views
 * write its entries, so the memo is never stale. An upsert step (append, retract and latest
 * under one key) then reads no counter of a recently used key and the latest candidate not at
 * all. At most {@link #MAX_COUNTERS} counters are kept (a few dozen bytes each), the least
 * recently used going first.
 */
public final class CandidateIndexMemo {

    static final int MAX_COUNTERS = 1024;

    private final Map<ByteBuffer, long[]> counters = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ByteBuffer, long[]> eldest) {
            return size() > MAX_COUNTERS;
        }
    };

    @Nullable private byte[] latestBase;
    private long latestSequence = -1;
    @Nullable private byte[] latestStored;

    /** The remembered counter of the key and namespace {@code base}, or null if not remembered. */
    @Nullable
    long[] counter(byte[] base) {
        return counters.get(ByteBuffer.wrap(base));
    }

    /** The stored latest candidate of {@code base}, if it is the one with {@code sequence}. */
    @Nullable
    byte[] latest(byte[] base, long sequence) {
        return latestStored != null && latestSequence == sequence && Arrays.equals(base, latestBase) ? latestStored : null;
    }

    /**
     * Remembers what was just read or written for {@code base}; {@code latestStored} is the stored
     * entry of the candidate {@code counter} calls latest, or null if it is not at hand.
     */
    void remember(byte[] base, long[] counter, @Nullable byte[] latestStored) {
        ByteBuffer key = ByteBuffer.wrap(base);
        if (counters.replace(key, counter) == null) {
            counters.put(ByteBuffer.wrap(base.clone()), counter);
        }
        if (!Arrays.equals(base, latestBase)) {
            latestBase = base.clone();
        }
        this.latestSequence = counter[2];
        this.latestStored = latestStored;
    }

    /** Forgets {@code base}, whose index was cleared. */
    void forget(byte[] base) {
        counters.remove(ByteBuffer.wrap(base));
        if (Arrays.equals(base, latestBase)) {
            latestStored = null;
        }
    }
}
