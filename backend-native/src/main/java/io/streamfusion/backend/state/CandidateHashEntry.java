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

    /**
     * {@code stored} (null if there is no entry yet) with the candidate appended at its end. A
     * damaged {@code stored} is refused rather than extended, since every later read would misparse
     * the appended record.
     */
    static byte[] withAppended(@Nullable byte[] stored, long sequence, byte[] value) {
        if (stored != null) {
            checkRecords(stored);
        }
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
        checkHeader(stored);
        ByteBuffer records = ByteBuffer.wrap(stored);
        int offset = HEADER;
        while (offset < stored.length) {
            int length = recordLength(records, stored.length, offset);
            int start = offset + RECORD_HEADER;
            if (Arrays.equals(stored, start, start + length, value, 0, value.length)) {
                return new Match(records.getLong(offset), offset, RECORD_HEADER + length);
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

    private static void checkRecords(byte[] stored) {
        checkHeader(stored);
        ByteBuffer records = ByteBuffer.wrap(stored);
        for (int offset = HEADER; offset < stored.length; ) {
            offset += RECORD_HEADER + recordLength(records, stored.length, offset);
        }
    }

    /** The map-value header: Flink's not-null flag and the payload length, which must fit. */
    private static void checkHeader(byte[] stored) {
        if (stored.length < HEADER) {
            throw new MalformedEntryException(
                    "a candidate index hash entry of "
                            + stored.length
                            + " bytes, shorter than its "
                            + HEADER
                            + "-byte header");
        }
        int payload = ByteBuffer.wrap(stored).getInt(1);
        if (stored[0] != 0 || payload != stored.length - HEADER) {
            throw new MalformedEntryException(
                    "a candidate index hash entry of "
                            + stored.length
                            + " bytes whose header announces "
                            + payload
                            + " payload bytes");
        }
    }

    /** The length of the candidate whose record starts at {@code offset}, checked to fit. */
    private static int recordLength(ByteBuffer records, int end, int offset) {
        if (end - offset < RECORD_HEADER) {
            throw cutOff(end, offset);
        }
        int length = records.getInt(offset + Long.BYTES);
        if (length < 0 || length > end - offset - RECORD_HEADER) {
            throw cutOff(end, offset);
        }
        return length;
    }

    private static MalformedEntryException cutOff(int length, int offset) {
        return new MalformedEntryException(
                "a candidate index hash entry of "
                        + length
                        + " bytes is cut off in the candidate at byte "
                        + offset);
    }
}
