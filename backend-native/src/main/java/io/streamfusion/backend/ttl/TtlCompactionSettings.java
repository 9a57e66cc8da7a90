package io.streamfusion.backend.ttl;

import java.io.Serializable;
import java.time.Duration;

/**
 * The backend-wide settings of TTL background cleanup ({@code state.backend.streamfusion.ttl.*}):
 * whether the compaction filter runs, and the defaults a state's own {@code StateTtlConfig} may
 * override.
 *
 * @param periodicCompaction zero switches periodic compaction off
 */
public record TtlCompactionSettings(
        boolean enabled, long queryTimeAfterEntries, Duration periodicCompaction)
        implements Serializable {}
