package io.streamfusion.snapshot.format;

import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * The meta document of one native StreamFusion snapshot: which checkpoint and backend wrote it, the
 * key groups it covers, the key serializer and state meta infos needed to register its states
 * again, and the manifest of the RocksDB files that hold the data.
 *
 * <p>State names are the column family names of the snapshot's RocksDB instance.
 */
public final class NativeSnapshotMeta {

    private final long checkpointId;
    private final UUID backendIdentifier;
    private final KeyGroupRange keyGroupRange;
    private final int keyGroupPrefixBytes;
    private final TypeSerializerSnapshot<?> keySerializerSnapshot;
    private final List<StateMetaInfoSnapshot> stateMetaInfos;
    private final List<SnapshotFileEntry> files;

    public NativeSnapshotMeta(
            long checkpointId,
            UUID backendIdentifier,
            KeyGroupRange keyGroupRange,
            int keyGroupPrefixBytes,
            TypeSerializerSnapshot<?> keySerializerSnapshot,
            List<StateMetaInfoSnapshot> stateMetaInfos,
            List<SnapshotFileEntry> files) {
        if (keyGroupPrefixBytes != 1 && keyGroupPrefixBytes != 2) {
            throw new IllegalArgumentException(
                    "A key-group prefix is 1 or 2 bytes, not " + keyGroupPrefixBytes);
        }
        this.checkpointId = checkpointId;
        this.backendIdentifier = Objects.requireNonNull(backendIdentifier, "backendIdentifier");
        this.keyGroupRange = Objects.requireNonNull(keyGroupRange, "keyGroupRange");
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.keySerializerSnapshot =
                Objects.requireNonNull(keySerializerSnapshot, "keySerializerSnapshot");
        this.stateMetaInfos = List.copyOf(stateMetaInfos);
        this.files = List.copyOf(files);
    }

    public long checkpointId() {
        return checkpointId;
    }

    public UUID backendIdentifier() {
        return backendIdentifier;
    }

    public KeyGroupRange keyGroupRange() {
        return keyGroupRange;
    }

    public int keyGroupPrefixBytes() {
        return keyGroupPrefixBytes;
    }

    public TypeSerializerSnapshot<?> keySerializerSnapshot() {
        return keySerializerSnapshot;
    }

    public List<StateMetaInfoSnapshot> stateMetaInfos() {
        return stateMetaInfos;
    }

    public List<SnapshotFileEntry> files() {
        return files;
    }
}
