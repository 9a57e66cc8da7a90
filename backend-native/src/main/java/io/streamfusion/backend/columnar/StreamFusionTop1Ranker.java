package io.streamfusion.backend.columnar;

import io.streamfusion.api.columnar.Top1Ranker;
import io.streamfusion.backend.nativelib.NativeTop1Ranker;

import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

/**
 * {@link Top1Ranker} over a {@link NativeTop1Ranker}: each batch is one JNI crossing. The backend
 * closes every ranker it opened when it is disposed, so a ranker its operator never closed (a
 * failed or cancelled task) still releases its memory.
 */
final class StreamFusionTop1Ranker implements Top1Ranker {

    private final NativeTop1Ranker ranker;
    private final TtlTimeProvider ttlClock;

    StreamFusionTop1Ranker(NativeTop1Ranker ranker, TtlTimeProvider ttlClock) {
        this.ranker = ranker;
        this.ttlClock = ttlClock;
    }

    @Override
    public void rank(long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress) {
        ranker.rank(
                batchArrayAddress,
                resultArrayAddress,
                resultSchemaAddress,
                ttlClock.currentTimestamp());
    }

    @Override
    public void takeWinners(
            long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress) {
        ranker.takeWinners(
                batchArrayAddress,
                resultArrayAddress,
                resultSchemaAddress,
                ttlClock.currentTimestamp());
    }

    @Override
    public void flush() {
        ranker.flush();
    }

    @Override
    public long cacheHits() {
        return ranker.cacheHits();
    }

    @Override
    public long cacheMisses() {
        return ranker.cacheMisses();
    }

    @Override
    public long reservedBytes() {
        return ranker.reservedBytes();
    }

    @Override
    public void close() {
        ranker.close();
    }
}
