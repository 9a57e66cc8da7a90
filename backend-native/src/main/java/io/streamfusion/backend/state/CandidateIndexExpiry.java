package io.streamfusion.backend.state;

import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

/**
 * When a key's whole candidate index expires: the TTL of its {@link StateTtlConfig}, measured from
 * the last write (or, with {@code OnReadAndWrite}, the last access) by the backend's TTL clock, so
 * tests and Flink's TTL harness control time the same way as for other states.
 */
public final class CandidateIndexExpiry {

    private static final CandidateIndexExpiry NEVER =
            new CandidateIndexExpiry(0, false, 0, TtlTimeProvider.DEFAULT);

    private final long ttlMillis;
    private final boolean refreshOnRead;
    private final int cleanupKeysPerAccess;
    private final TtlTimeProvider time;

    private CandidateIndexExpiry(
            long ttlMillis, boolean refreshOnRead, int cleanupKeysPerAccess, TtlTimeProvider time) {
        this.ttlMillis = ttlMillis;
        this.refreshOnRead = refreshOnRead;
        this.cleanupKeysPerAccess = cleanupKeysPerAccess;
        this.time = time;
    }

    public static CandidateIndexExpiry of(StateTtlConfig config, TtlTimeProvider time) {
        if (!config.isEnabled()) {
            return NEVER;
        }
        long ttl = config.getTimeToLive().toMillis();
        if (ttl <= 0) {
            throw new IllegalArgumentException(
                    "A candidate index TTL must be positive, got "
                            + config.getTimeToLive()
                            + "; use StateTtlConfig.DISABLED for no expiry.");
        }
        // Flink's default with cleanup in background: 5 keys per access, as its heap backend does.
        StateTtlConfig.IncrementalCleanupStrategy incremental =
                config.getCleanupStrategies().getIncrementalCleanupStrategy();
        return new CandidateIndexExpiry(
                ttl,
                config.getUpdateType() == StateTtlConfig.UpdateType.OnReadAndWrite,
                incremental == null ? 0 : incremental.getCleanupSize(),
                time);
    }

    boolean enabled() {
        return ttlMillis > 0;
    }

    /**
     * The timestamp a write (or a refreshing read) stores; kept without TTL too, so that a job that
     * adds a TTL later measures it from the real last write.
     */
    long now() {
        return time.currentTimestamp();
    }

    /** Whether an index last touched at {@code lastAccess} has expired by now. */
    boolean expired(long lastAccess) {
        return enabled() && time.currentTimestamp() - lastAccess >= ttlMillis;
    }

    /** How many other keys each access checks for expiry (see CandidateIndexSweep); 0 for none. */
    int cleanupKeysPerAccess() {
        return cleanupKeysPerAccess;
    }

    /** Whether reads renew the TTL ({@code OnReadAndWrite}). */
    boolean refreshOnRead() {
        return enabled() && refreshOnRead;
    }
}
