package io.streamfusion.backend.state;

import java.nio.ByteBuffer;

/**
 * The counter entry of one key's candidate index: what an append, a retraction or a read of the
 * latest candidate needs without reading any candidate.
 *
 * @param nextSequence the sequence the next appended candidate gets
 * @param count how many candidates are left
 * @param latestSequence the sequence of the latest candidate left, -1 if none
 * @param lastAccess the time of the last write (or TTL-refreshing read)
 */
record CandidateCounter(long nextSequence, long count, long latestSequence, long lastAccess) {

    /** The counter of a key without candidates. */
    static final CandidateCounter EMPTY = new CandidateCounter(0, 0, -1, 0);

    /** Stored payload length: four longs. */
    static final int STORED_BYTES = 4 * Long.BYTES;

    /** Indexes written before the access time was kept store three longs; they never expire. */
    private static final int LEGACY_STORED_BYTES = 3 * Long.BYTES;

    /** After appending a candidate, which gets {@link #nextSequence}. */
    CandidateCounter appended(long now) {
        return new CandidateCounter(nextSequence + 1, count + 1, nextSequence, now);
    }

    /** After retracting one candidate, {@code newLatest} being the latest one left. */
    CandidateCounter retracted(long newLatest, long now) {
        return new CandidateCounter(nextSequence, count - 1, newLatest, now);
    }

    /** After a read that renews the TTL. */
    CandidateCounter accessed(long now) {
        return new CandidateCounter(nextSequence, count, latestSequence, now);
    }

    /** The map-state value of this counter. */
    byte[] toMapValue() {
        return StreamFusionCandidateIndexState.mapValueWithRoomFor(STORED_BYTES)
                .putLong(nextSequence)
                .putLong(count)
                .putLong(latestSequence)
                .putLong(lastAccess)
                .array();
    }

    /** Parses a stored counter entry (a map-state value). */
    static CandidateCounter parse(byte[] mapValue) {
        int header = StreamFusionCandidateIndexState.MAP_VALUE_HEADER;
        int payload = mapValue.length - header;
        if (payload != STORED_BYTES && payload != LEGACY_STORED_BYTES) {
            throw new MalformedEntryException(
                    "a candidate index counter of "
                            + mapValue.length
                            + " bytes, expected "
                            + (header + STORED_BYTES));
        }
        ByteBuffer in = ByteBuffer.wrap(mapValue);
        if (in.get() != 0 || in.getInt() != payload) {
            throw new MalformedEntryException(
                    "a candidate index counter whose header does not announce its "
                            + payload
                            + " payload bytes");
        }
        return new CandidateCounter(
                in.getLong(),
                in.getLong(),
                in.getLong(),
                payload == STORED_BYTES ? in.getLong() : Long.MAX_VALUE);
    }
}
