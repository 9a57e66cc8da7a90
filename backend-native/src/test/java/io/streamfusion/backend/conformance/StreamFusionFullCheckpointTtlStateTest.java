package io.streamfusion.backend.conformance;

/**
 * Flink's TTL conformance suite against StreamFusion with full (non-incremental) native
 * checkpoints, as Flink runs its RocksDB TTL suites in both modes.
 */
public class StreamFusionFullCheckpointTtlStateTest extends StreamFusionTtlStateTest {

    @Override
    protected boolean incrementalCheckpoints() {
        return false;
    }
}
