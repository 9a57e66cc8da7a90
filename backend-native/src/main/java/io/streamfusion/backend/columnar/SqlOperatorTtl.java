package io.streamfusion.backend.columnar;

import org.apache.flink.api.common.state.StateTtlConfig;

/**
 * The TTL that Flink's SQL operators give their state ({@code StateConfigUtil.createTtlConfig}:
 * processing time, {@code OnCreateAndWrite}, {@code NeverReturnExpired}), the only one the native
 * kernels apply.
 */
final class SqlOperatorTtl {

    private SqlOperatorTtl() {}

    /**
     * The time-to-live in milliseconds of {@code ttl}, 0 if it is off.
     *
     * @throws UnsupportedOperationException for any other TTL, naming the state and the kernel
     */
    static long millis(StateTtlConfig ttl, String stateName, String kernel) {
        if (!ttl.isEnabled()) {
            return 0;
        }
        if (ttl.getUpdateType() != StateTtlConfig.UpdateType.OnCreateAndWrite
                || ttl.getStateVisibility() != StateTtlConfig.StateVisibility.NeverReturnExpired
                || ttl.getTtlTimeCharacteristic()
                        != StateTtlConfig.TtlTimeCharacteristic.ProcessingTime) {
            throw new UnsupportedOperationException(
                    "State '"
                            + stateName
                            + "': the native "
                            + kernel
                            + " supports the TTL of Flink's SQL operators only (OnCreateAndWrite,"
                            + " NeverReturnExpired, processing time), not "
                            + ttl);
        }
        return Math.max(1, ttl.getTimeToLive().toMillis());
    }
}
