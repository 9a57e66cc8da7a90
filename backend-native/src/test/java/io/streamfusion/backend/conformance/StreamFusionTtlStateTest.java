package io.streamfusion.backend.conformance;

import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.backend.StreamFusionStateBackend;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.ttl.StateBackendTestContext;
import org.apache.flink.runtime.state.ttl.TtlStateTestBase;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * Flink's TTL conformance suite ({@link TtlStateTestBase}: nine state contexts, including snapshot
 * cleanup and restore) against StreamFusion. The suite's own extension parameterises it;
 * incremental cleanup is a heap-backend feature and is skipped by the suite itself.
 */
public class StreamFusionTtlStateTest extends TtlStateTestBase {

    /**
     * The suite's snapshots are checkpoints, which StreamFusion writes natively (RocksDB files), as
     * Flink's RocksDB backend does; the full-snapshot cleanup transform applies to canonical
     * savepoints only. The two snapshot-cleanup tests assume it, so they are skipped, as for
     * Flink's incremental RocksDB TTL tests; TtlSavepointCleanupTest covers canonical savepoints.
     */
    @Override
    public boolean isSavepoint() {
        return false;
    }

    @TempDir static Path folders;

    /**
     * Incremental native checkpoints; {@link StreamFusionFullCheckpointTtlStateTest} runs full
     * ones.
     */
    protected boolean incrementalCheckpoints() {
        return true;
    }

    @Override
    protected StateBackendTestContext createStateBackendTestContext(TtlTimeProvider timeProvider) {
        return new StateBackendTestContext(timeProvider) {
            @Override
            protected StateBackend createStateBackend() {
                Configuration config = new Configuration();
                config.setString(StreamFusionOptions.LOCAL_DIRECTORIES.key(), folders.toString());
                config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, incrementalCheckpoints());
                config.set(StreamFusionOptions.CACHE_SIZE, ConformanceSetup.SUITE_CACHE_SIZE);
                return new StreamFusionStateBackend()
                        .configure(config, Thread.currentThread().getContextClassLoader());
            }
        };
    }
}
