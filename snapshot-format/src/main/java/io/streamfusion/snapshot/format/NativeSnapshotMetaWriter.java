package io.streamfusion.snapshot.format;

import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshotReadersWriters;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.CRC32C;

/** Writes a {@link NativeSnapshotMeta} in the newest format version. */
public final class NativeSnapshotMetaWriter {

    private NativeSnapshotMetaWriter() {}

    public static void write(NativeSnapshotMeta meta, OutputStream target) throws IOException {
        byte[] body = body(meta);
        CRC32C crc = new CRC32C();
        crc.update(body);
        DataOutputStream out = new DataOutputStream(target);
        out.writeInt(NativeSnapshotMetaFormat.MAGIC);
        out.writeInt(NativeSnapshotMetaFormat.CURRENT_VERSION);
        out.writeInt(body.length);
        out.write(body);
        out.writeInt((int) crc.getValue());
        out.flush();
    }

    public static byte[] toBytes(NativeSnapshotMeta meta) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        write(meta, bytes);
        return bytes.toByteArray();
    }

    private static byte[] body(NativeSnapshotMeta meta) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        out.writeLong(meta.checkpointId());
        out.writeLong(meta.backendIdentifier().getMostSignificantBits());
        out.writeLong(meta.backendIdentifier().getLeastSignificantBits());
        out.writeInt(meta.keyGroupRange().getStartKeyGroup());
        out.writeInt(meta.keyGroupRange().getEndKeyGroup());
        out.writeInt(meta.keyGroupPrefixBytes());
        TypeSerializerSnapshot.writeVersionedSnapshot(out, meta.keySerializerSnapshot());
        // Flink versions its meta-info layout separately; recording it keeps old documents
        // readable after Flink moves on.
        out.writeInt(StateMetaInfoSnapshotReadersWriters.CURRENT_STATE_META_INFO_SNAPSHOT_VERSION);
        out.writeInt(meta.stateMetaInfos().size());
        for (StateMetaInfoSnapshot state : meta.stateMetaInfos()) {
            StateMetaInfoSnapshotReadersWriters.getWriter().writeStateMetaInfoSnapshot(state, out);
        }
        out.writeInt(meta.files().size());
        for (SnapshotFileEntry file : meta.files()) {
            out.writeUTF(file.name());
            out.writeLong(file.size());
            out.writeInt(file.crc32c());
        }
        return out.getCopyOfBuffer();
    }
}
