package io.streamfusion.backend.snapshot;

import io.streamfusion.backend.nativelib.EntryBatchReader;
import io.streamfusion.backend.nativelib.NativeKeyGroupScan;

import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.StateSnapshotTransformer;

import java.util.List;

/**
 * The key/value states of a snapshot, read from a native key-group scan in batches, with each
 * state's snapshot transform (TTL cleanup) applied to its values.
 */
final class NativeEntrySource extends EntrySource {

    /** Large enough to amortise the JNI crossing, small enough to stay out of the old gen. */
    private static final int BATCH_BYTES = 1 << 20;

    private final NativeKeyGroupScan scan;
    private final List<StateSnapshotTransformer<byte[]>> transformers;
    private final int keyGroupPrefixBytes;
    private EntryBatchReader batch;

    /** {@code transformers} has one entry per state id; null means no transform. */
    NativeEntrySource(
            NativeKeyGroupScan scan,
            List<StateSnapshotTransformer<byte[]>> transformers,
            int keyGroupPrefixBytes) {
        this.scan = scan;
        this.transformers = transformers;
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        next();
    }

    @Override
    void next() {
        while (true) {
            if (batch == null || !batch.advance()) {
                byte[] bytes = scan.nextBatch(BATCH_BYTES);
                if (bytes.length == 0) {
                    setExhausted();
                    return;
                }
                batch = new EntryBatchReader(bytes);
                continue;
            }
            StateSnapshotTransformer<byte[]> transformer = transformers.get(batch.stateIndex());
            byte[] current = batch.value();
            if (transformer != null) {
                current = transformer.filterOrTransform(current);
                if (current == null) {
                    continue;
                }
            }
            byte[] key = batch.key();
            setEntry(
                    CompositeKeySerializationUtils.extractKeyGroup(keyGroupPrefixBytes, key),
                    batch.stateIndex(),
                    key,
                    current);
            return;
        }
    }

    @Override
    public void close() {
        scan.close();
    }
}
