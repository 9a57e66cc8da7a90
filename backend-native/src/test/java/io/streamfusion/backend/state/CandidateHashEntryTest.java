package io.streamfusion.backend.state;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stored layout of a candidate index hash entry. */
class CandidateHashEntryTest {

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void findsTheOldestEqualCandidateAndRemovesOnlyIt() {
        byte[] entry = CandidateHashEntry.withAppended(null, 3, bytes("a"));
        entry = CandidateHashEntry.withAppended(entry, 5, bytes("bb"));
        entry = CandidateHashEntry.withAppended(entry, 9, bytes("a"));

        CandidateHashEntry.Match first = CandidateHashEntry.find(entry, bytes("a"));
        assertEquals(3, first.sequence());
        assertNull(CandidateHashEntry.find(entry, bytes("b")));

        byte[] rest = CandidateHashEntry.without(entry, first);
        assertEquals(9, CandidateHashEntry.find(rest, bytes("a")).sequence());
        assertEquals(5, CandidateHashEntry.find(rest, bytes("bb")).sequence());
        // Still a map-state value: the not-null flag and the payload length lead.
        assertEquals(0, rest[0]);
        assertEquals(
                rest.length - StreamFusionCandidateIndexState.MAP_VALUE_HEADER,
                ByteBuffer.wrap(rest, 1, 4).getInt());

        byte[] only = CandidateHashEntry.withAppended(null, 1, bytes("x"));
        assertNull(CandidateHashEntry.without(only, CandidateHashEntry.find(only, bytes("x"))));
        assertArrayEquals(only, CandidateHashEntry.withAppended(null, 1, bytes("x")));
    }

    @Test
    void aCutOffEntryIsReportedNotMisread() {
        byte[] entry = CandidateHashEntry.withAppended(null, 3, bytes("abcdef"));
        byte[] cut = Arrays.copyOf(entry, entry.length - 2);
        assertMalformed(() -> CandidateHashEntry.find(cut, bytes("zz")), "header announces");
        // The header made consistent again: the candidate's own length now runs past the end.
        ByteBuffer.wrap(cut)
                .putInt(1, cut.length - StreamFusionCandidateIndexState.MAP_VALUE_HEADER);
        assertMalformed(() -> CandidateHashEntry.find(cut, bytes("zz")), "cut off");
    }

    @Test
    void anEntryShorterThanItsHeaderIsReportedNotAMiss() {
        assertMalformed(
                () -> CandidateHashEntry.find(new byte[2], bytes("a")),
                "a candidate index hash entry of 2 bytes, shorter than its 5-byte header");
    }

    @Test
    void aDamagedEntryIsNotExtended() {
        byte[] entry = CandidateHashEntry.withAppended(null, 3, bytes("abcdef"));
        // The first candidate's length claims one byte more than there is.
        ByteBuffer.wrap(entry).putInt(StreamFusionCandidateIndexState.MAP_VALUE_HEADER + 8, 7);
        assertMalformed(() -> CandidateHashEntry.withAppended(entry, 4, bytes("g")), "cut off");
    }

    @Test
    void countersOfAnyOtherLengthOrHeaderAreMalformed() {
        byte[] stored = new CandidateCounter(5, 2, 4, 77).toMapValue();
        assertEquals(new CandidateCounter(5, 2, 4, 77), CandidateCounter.parse(stored));
        // A 4-long counter cut by 1 to 7 bytes must not pass as the legacy 3-long layout.
        for (int length = 0; length < stored.length; length++) {
            if (length != StreamFusionCandidateIndexState.MAP_VALUE_HEADER + 3 * Long.BYTES) {
                byte[] cut = Arrays.copyOf(stored, length);
                assertMalformed(() -> CandidateCounter.parse(cut), "a candidate index counter of");
            }
        }
        byte[] legacyLengthWrongHeader = Arrays.copyOf(stored, stored.length - Long.BYTES);
        assertMalformed(
                () -> CandidateCounter.parse(legacyLengthWrongHeader),
                "header does not announce its 24 payload bytes");
    }

    private static void assertMalformed(Runnable parse, String message) {
        MalformedEntryException error = assertThrows(MalformedEntryException.class, parse::run);
        assertTrue(error.getMessage().contains(message), error.getMessage());
    }
}
