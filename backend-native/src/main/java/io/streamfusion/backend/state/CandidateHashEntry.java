package io.streamfusion.backend.state;

import javax.annotation.Nullable;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The hash entry of a candidate index as stored: a map-state value whose payload lists the
 * candidates with one value hash, ascending by sequence, each as {@code [sequence: 8][length:
 * 4][bytes]}. Keeping the bytes here lets a retraction find its candidate with the one read it
 * needs anyway; the entries of different hashes never mix, so a payload stays as small as the
 * candidates that share a hash.
 */
final class CandidateHashEntry {

    private static final int HEADER = StreamFusionCandidateIndexState.MAP_VALUE_HEADER;
    private static final int RECORD_HEADER = Long.BYTES + Integer.BYTES;

    /** Where one candidate sits in a stored entry. */
    record Match(long sequence, int offset, int length) {}

    private CandidateHashEntry() {}

    /** {@code stored} (null if there is no entry yet) with the candidate appended at its end. */
    static byte[] withAppended(@Nullable byte[] stored, long sequence, byte[] value) {
        int existing = stored == null ? 0 : stored.length - HEADER;
        ByteBuffer out =
                StreamFusionCandidateIndexState.mapValueWithRoomFor(
                        existing + RECORD_HEADER + value.length);
        if (stored != null) {
            out.put(stored, HEADER, existing);
        }
        return out.putLong(sequence).putInt(value.length).put(value).array();
    }

    /** The oldest candidate in {@code stored} whose bytes equal {@code value}, or null. */
    @Nullable
    static Match find(byte[] stored, byte[] value) {
        ByteBuffer records = ByteBuffer.wrap(stored);
        int offset = HEADER;
        while (offset < stored.length) {
            if (stored.length - offset < RECORD_HEADER) {
                throw corrupt(stored.length, offset);
            }
            long sequence = records.getLong(offset);
            int length = records.getInt(offset + Long.BYTES);
            int start = offset + RECORD_HEADER;
            if (length < 0 || length > stored.length - start) {
                throw corrupt(stored.length, offset);
            }
            if (Arrays.equals(stored, start, start + length, value, 0, value.length)) {
                return new Match(sequence, offset, RECORD_HEADER + length);
            }
            offset = start + length;
        }
        return null;
    }

    /** {@code stored} without the matched candidate; null if it was the only one. */
    @Nullable
    static byte[] without(byte[] stored, Match match) {
        int remaining = stored.length - HEADER - match.length();
        if (remaining == 0) {
            return null;
        }
        ByteBuffer out = StreamFusionCandidateIndexState.mapValueWithRoomFor(remaining);
        out.put(stored, HEADER, match.offset() - HEADER);
        int after = match.offset() + match.length();
        return out.put(stored, after, stored.length - after).array();
    }

    private static IllegalStateException corrupt(int length, int offset) {
        return new IllegalStateException(
                "A candidate index hash entry of "
                        + length
                        + " bytes is cut off at byte "
                        + offset
                        + ": the state was written by an incompatible version or is corrupt."
                        + " Restore from a savepoint taken by this version.");
    }
}
