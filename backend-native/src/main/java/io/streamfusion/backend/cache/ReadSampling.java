package io.streamfusion.backend.cache;

/**
 * Whether a full {@link DecodedValueCache} is consulted by one read in {@value
 * #SAMPLED_READ_INTERVAL} rather than by every read: from a check at which it evicts and its hit
 * rate, scaled to its whole share while it gives part of it, is under {@link
 * ShareReturn#GIVE_BELOW_HIT_RATE}, until a check at which that rate reaches {@link
 * ShareReturn#TAKE_BACK_AT_HIT_RATE} or the cache grows.
 *
 * <p>Why: a read that misses pays a lookup and an admission on top of its RocksDB read. At 1M keys
 * of MapState in JMH the cache hit 9% of reads, and reads ran about a quarter faster with it off
 * (docs/architecture.md, "Sampling reads whether or not the block cache has room"). The block cache
 * there had a sixth of itself idle, so {@link ShareReturn} kept the whole share, and every read
 * paid. Sampling does not depend on the block cache: it is about what the cache costs the reads,
 * not about who should hold the memory. The sampled reads go on measuring the hit rate, and while
 * sampling they admit without the {@link AdmissionDoorkeeper}, so the entries turn over with the
 * reads and a workload whose keys come to fit shows it in the next checks.
 */
final class ReadSampling {

    /** While sampling, one read in this many consults the cache. */
    static final int SAMPLED_READ_INTERVAL = 8;

    private ReadSampling() {}

    /**
     * Whether reads are sampled after a check.
     *
     * @param sampling whether they were sampled since the last check
     * @param judgedBytes the capacity the hit rate is judged at: the cache's own share while it
     *     gives part of it, else what it holds
     * @param heldBytes the capacity the hits were measured at
     * @param hits reads that hit the cache since the last check
     * @param misses reads that missed it since the last check
     * @param evicting whether the cache evicted since the last check: one with room left has not
     *     seen its keys yet, and fills faster when every read consults it. Sampling stops for hits
     *     only: reads that admit nothing (of absent keys, say) evict nothing either
     */
    static boolean samples(
            boolean sampling,
            long judgedBytes,
            long heldBytes,
            long hits,
            long misses,
            boolean evicting) {
        long reads = hits + misses;
        if (reads < ShareReturn.MIN_READS) {
            return sampling;
        }
        double atWholeShare = ShareReturn.hitRateAtWholeShare(judgedBytes, heldBytes, hits, reads);
        if (sampling) {
            return atWholeShare < ShareReturn.TAKE_BACK_AT_HIT_RATE;
        }
        return evicting && atWholeShare < ShareReturn.GIVE_BELOW_HIT_RATE;
    }
}
