package io.streamfusion.backend.state;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzz target: stored candidate-index hash entries and counters either parse or throw {@link
 * MalformedEntryException}. Whatever {@code withAppended} accepts, it extends into an entry that is
 * well formed again and holds the appended candidate; removing a found candidate leaves a well
 * formed entry. So no damaged entry is ever extended into one that misparses.
 */
public class CandidateEntryFuzzTest {

    @FuzzTest
    void entriesParseOrAreMalformed(FuzzedDataProvider data) {
        fuzzerTestOneInput(data);
    }

    /** The entry point of Jazzer's command line, which {@code bin/fuzz} uses. */
    public static void fuzzerTestOneInput(FuzzedDataProvider data) {
        byte[] value = data.consumeBytes(data.consumeInt(0, 64));
        long sequence = data.consumeLong();
        byte[] stored = data.consumeRemainingAsBytes();
        try {
            CandidateCounter.parse(stored);
        } catch (MalformedEntryException expected) {
            // Refused, not misread.
        }
        try {
            CandidateHashEntry.find(stored, value);
        } catch (MalformedEntryException expected) {
            // Refused, not misread.
        }
        byte[] appended;
        try {
            appended = CandidateHashEntry.withAppended(stored, sequence, value);
        } catch (MalformedEntryException refused) {
            return;
        }
        CandidateHashEntry.Match match = CandidateHashEntry.find(appended, value);
        if (match == null) {
            throw new AssertionError("the appended candidate is not found");
        }
        byte[] rest = CandidateHashEntry.without(appended, match);
        if (rest != null) {
            CandidateHashEntry.withAppended(rest, sequence, value);
        }
    }
}
