package io.streamfusion.backend.state;

import org.apache.flink.runtime.state.StateSnapshotTransformer;

import javax.annotation.Nullable;

import java.util.Arrays;

/**
 * Applies a serialized-value transform to a stored map entry, whose first byte is the null-value
 * flag. Null user values pass through; a dropped value drops the entry. This is the behaviour of
 * Flink's RocksDB map transformer except that a dropped value removes the entry from the snapshot
 * rather than turning it into a null value.
 */
final class MapValueSnapshotTransformer implements StateSnapshotTransformer<byte[]> {

    /** {@code DataOutput.writeBoolean} bytes of the null flag. */
    private static final byte NULL_FLAG = 1;

    private static final byte NON_NULL_FLAG = 0;

    private final StateSnapshotTransformer<byte[]> valueTransformer;

    MapValueSnapshotTransformer(StateSnapshotTransformer<byte[]> valueTransformer) {
        this.valueTransformer = valueTransformer;
    }

    @Override
    @Nullable
    public byte[] filterOrTransform(@Nullable byte[] value) {
        if (value == null || value.length == 0 || value[0] == NULL_FLAG) {
            return value;
        }
        byte[] withoutFlag = Arrays.copyOfRange(value, 1, value.length);
        byte[] transformed = valueTransformer.filterOrTransform(withoutFlag);
        if (transformed == null) {
            return null;
        }
        if (transformed == withoutFlag) {
            return value;
        }
        byte[] result = new byte[transformed.length + 1];
        result[0] = NON_NULL_FLAG;
        System.arraycopy(transformed, 0, result, 1, transformed.length);
        return result;
    }
}
