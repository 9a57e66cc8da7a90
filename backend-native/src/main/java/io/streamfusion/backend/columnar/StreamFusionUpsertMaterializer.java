package io.streamfusion.backend.columnar;

import io.streamfusion.api.columnar.UpsertMaterializer;
import io.streamfusion.backend.nativelib.NativeUpsertMaterializer;

import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

/**
 * {@link UpsertMaterializer} over a {@link NativeUpsertMaterializer}: each batch is one JNI
 * crossing, at the backend's TTL clock. The backend closes every materializer it opened when it is
 * disposed, so one its operator never closed (a failed or cancelled task) still releases its
 * memory.
 */
final class StreamFusionUpsertMaterializer implements UpsertMaterializer {

    private final NativeUpsertMaterializer materializer;
    private final TtlTimeProvider ttlClock;

    StreamFusionUpsertMaterializer(
            NativeUpsertMaterializer materializer, TtlTimeProvider ttlClock) {
        this.materializer = materializer;
        this.ttlClock = ttlClock;
    }

    @Override
    public void materialize(
            long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress) {
        materializer.materialize(
                batchArrayAddress,
                resultArrayAddress,
                resultSchemaAddress,
                ttlClock.currentTimestamp());
    }

    @Override
    public void flush() {
        materializer.flush();
    }

    @Override
    public void close() {
        materializer.close();
    }
}
