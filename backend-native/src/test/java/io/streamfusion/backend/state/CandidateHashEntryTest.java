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
        IllegalStateException error =
                assertThrows(
                        IllegalStateException.class,
                        () -> CandidateHashEntry.find(cut, bytes("zz")));
        assertTrue(error.getMessage().contains("cut off"), error.getMessage());
    }
}
