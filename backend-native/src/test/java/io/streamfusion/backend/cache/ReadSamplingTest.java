package io.streamfusion.backend.cache;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When reads of the decoded-value cache are sampled, from its hits, misses and evictions. */
class ReadSamplingTest {

    private static final long SHARE = 64 << 20;

    @Test
    void aCacheThatEvictsAndFewReadsHitSamplesUntilAQuarterWouldHit() {
        assertTrue(ReadSampling.samples(false, SHARE, SHARE, 900, 9_100, true), "9% hits");
        assertFalse(ReadSampling.samples(false, SHARE, SHARE, 2_100, 7_900, true), "21%: not yet");
        assertTrue(ReadSampling.samples(true, SHARE, SHARE, 2_100, 7_900, true), "21%: goes on");
        assertFalse(ReadSampling.samples(true, SHARE, SHARE, 2_500, 7_500, true), "25%: stops");
    }

    @Test
    void aCacheWithRoomLeftDoesNotStartAndTooFewReadsChangeNothing() {
        assertFalse(ReadSampling.samples(false, SHARE, SHARE, 100, 9_900, false), "not evicting");
        assertTrue(
                ReadSampling.samples(true, SHARE, SHARE, 100, 9_900, false),
                "sampling stops for hits only: reads that admit nothing evict nothing");
        long tooFew = ShareReturn.MIN_READS - 1;
        assertTrue(ReadSampling.samples(true, SHARE, SHARE, 0, tooFew, true));
        assertFalse(ReadSampling.samples(false, SHARE, SHARE, 0, tooFew, true));
    }

    @Test
    void theHitRateIsScaledToTheWholeShare() {
        // Holding an eighth, 3% hits would be 24% at the whole share: sampling goes on.
        assertTrue(ReadSampling.samples(true, SHARE, SHARE / 8, 300, 9_700, true));
        // 4% would be 32%: it stops.
        assertFalse(ReadSampling.samples(true, SHARE, SHARE / 8, 400, 9_600, true));
        // Borrowing as much again, 15% hits are judged as they are.
        assertTrue(ReadSampling.samples(false, 2 * SHARE, 2 * SHARE, 1_500, 8_500, true));
    }
}
