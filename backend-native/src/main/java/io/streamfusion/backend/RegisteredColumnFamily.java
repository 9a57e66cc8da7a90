package io.streamfusion.backend;

import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.RegisteredStateMetaInfoBase;
import org.apache.flink.runtime.state.StateSnapshotTransformer;

import javax.annotation.Nullable;

/**
 * A registered state with its own column family: a key/value state, or a native timer queue. Holds
 * Flink's meta info (name, serializers, snapshot transform) and the native column family.
 */
public final class RegisteredColumnFamily {

    private RegisteredStateMetaInfoBase metaInfo;
    private final NativeColumnFamily columnFamily;

    RegisteredColumnFamily(RegisteredStateMetaInfoBase metaInfo, NativeColumnFamily columnFamily) {
        this.metaInfo = metaInfo;
        this.columnFamily = columnFamily;
    }

    public RegisteredStateMetaInfoBase metaInfo() {
        return metaInfo;
    }

    /** True for key/value states, false for timer queues. */
    public boolean isKeyValueState() {
        return metaInfo instanceof RegisteredKeyValueStateBackendMetaInfo;
    }

    /** The key/value meta info; only for {@link #isKeyValueState()} column families. */
    public RegisteredKeyValueStateBackendMetaInfo<?, ?> keyValueMetaInfo() {
        return (RegisteredKeyValueStateBackendMetaInfo<?, ?>) metaInfo;
    }

    /** The transform full snapshots apply to stored values (TTL cleanup), or null. */
    @Nullable
    public StateSnapshotTransformer<byte[]> snapshotTransformer() {
        return isKeyValueState()
                ? keyValueMetaInfo()
                        .getStateSnapshotTransformFactory()
                        .createForSerializedState()
                        .orElse(null)
                : null;
    }

    void updateMetaInfo(RegisteredStateMetaInfoBase metaInfo) {
        this.metaInfo = metaInfo;
    }

    public NativeColumnFamily columnFamily() {
        return columnFamily;
    }
}
