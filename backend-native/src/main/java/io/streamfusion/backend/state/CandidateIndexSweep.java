package io.streamfusion.backend.state;

import io.streamfusion.backend.nativelib.EntryBatchReader;
import io.streamfusion.backend.nativelib.NativeColumnFamily;

import javax.annotation.Nullable;

import java.util.Arrays;

/**
 * Flink's incremental TTL cleanup ({@code StateTtlConfig#cleanupIncrementally}, on by default with
 * cleanup in background) for candidate indexes, whose entries the compaction filter cannot judge
 * one by one: only a key's counter knows when the key was last written. Each access to the index
 * checks the next few keys of the column family in key order, jumping from one key's entries to the
 * next key's with one seek, and deletes the whole index of a key that expired. The cursor wraps
 * around at the end of the column family, so every key is eventually checked, however rarely it is
 * touched. A key whose counter is corrupt is stepped over and counted, never deleted: its own
 * operations fail with the corruption, and other keys' operations go on.
 */
final class CandidateIndexSweep {

    private static final byte[] WHOLE_COLUMN = new byte[0];

    /** Greater than the first byte of every user key (its length prefix starts with 0). */
    private static final byte PAST_USER_KEYS = (byte) 0xFF;

    private final NativeColumnFamily columnFamily;
    private final CandidateIndexExpiry expiry;
    private final CandidateIndexMemo memo;
    private final int keyGroupPrefixBytes;
    private final SkippedCorruptEntries skipped;
    @Nullable private byte[] resumeAfter;

    CandidateIndexSweep(
            NativeColumnFamily columnFamily,
            CandidateIndexExpiry expiry,
            CandidateIndexMemo memo,
            int keyGroupPrefixBytes,
            SkippedCorruptEntries skipped) {
        this.columnFamily = columnFamily;
        this.expiry = expiry;
        this.memo = memo;
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.skipped = skipped;
    }

    /** Checks the next keys after the cursor, as many as the TTL config's cleanup size. */
    void run() {
        for (int checked = 0; checked < expiry.cleanupKeysPerAccess(); checked++) {
            EntryBatchReader next =
                    new EntryBatchReader(columnFamily.scanPrefix(WHOLE_COLUMN, resumeAfter, 1));
            if (!next.advance()) {
                resumeAfter = null; // past the last key: start over
                return;
            }
            byte[] key = next.key();
            byte[] base = StreamFusionCandidateIndexState.baseOf(key);
            if (base == null) {
                resumeAfter = key; // not an index entry; step over it
                continue;
            }
            resumeAfter = Arrays.copyOf(base, base.length + 1);
            resumeAfter[base.length] = PAST_USER_KEYS;
            if (expiry.expired(lastWrite(base, key, next.value()))) {
                columnFamily.deletePrefix(base);
                memo.forget(base);
            }
        }
    }

    /**
     * The key's last write: from the memo if it remembers the counter (which may not be stored
     * yet), else from the counter entry, which sorts first among a key's entries; a key whose
     * counter is neither is left alone.
     */
    private long lastWrite(byte[] base, byte[] firstKey, byte[] firstValue) {
        CandidateCounter remembered = memo.counter(base);
        if (remembered != null) {
            return remembered.lastAccess();
        }
        if (StreamFusionCandidateIndexState.isCounterKey(firstKey, base)) {
            try {
                return CandidateCounter.parse(firstValue).lastAccess();
            } catch (MalformedEntryException e) {
                // Another key's damage: its own operations report it; the sweep steps over it.
                skipped.skipped(
                        columnFamily.stateName(),
                        StateCorruptionException.atKey(
                                columnFamily.stateName(),
                                firstKey,
                                keyGroupPrefixBytes,
                                e.getMessage()));
            }
        }
        return Long.MAX_VALUE;
    }
}
