package io.streamfusion.backend.columnar;

import io.streamfusion.api.columnar.GroupAggregator;
import io.streamfusion.backend.nativelib.NativeGroupAggregator;

import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

/**
 * {@link GroupAggregator} over a {@link NativeGroupAggregator}: each batch is one JNI crossing,
 * stamped with the backend's TTL clock. The backend closes every aggregator it opened when it is
 * disposed.
 */
final class StreamFusionGroupAggregator implements GroupAggregator {

    private final NativeGroupAggregator aggregator;
    private final TtlTimeProvider ttlClock;

    StreamFusionGroupAggregator(NativeGroupAggregator aggregator, TtlTimeProvider ttlClock) {
        this.aggregator = aggregator;
        this.ttlClock = ttlClock;
    }

    @Override
    public void aggregate(
            long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress) {
        aggregator.aggregate(
                batchArrayAddress,
                resultArrayAddress,
                resultSchemaAddress,
                ttlClock.currentTimestamp());
    }

    @Override
    public void flush() {
        aggregator.flush();
    }

    @Override
    public long cacheHits() {
        return aggregator.cacheHits();
    }

    @Override
    public long cacheMisses() {
        return aggregator.cacheMisses();
    }

    @Override
    public long reservedBytes() {
        return aggregator.reservedBytes();
    }

    @Override
    public void close() {
        aggregator.close();
    }
}
