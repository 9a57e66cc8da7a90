package io.streamfusion.snapshot.format;

import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshotReadersWriters;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * Reads a native snapshot meta document of any released format version. Every failure is a {@link
 * SnapshotFormatException} that names the document's source.
 */
public final class NativeSnapshotMetaReader {

    private NativeSnapshotMetaReader() {}

    /**
     * @param source names the document in error messages, such as the file's path
     */
    public static NativeSnapshotMeta read(
            InputStream in, ClassLoader userCodeClassLoader, String source)
            throws SnapshotFormatException {
        DataInputStream data = new DataInputStream(in);
        int version;
        byte[] body;
        int expectedCrc;
        try {
            int magic = data.readInt();
            if (magic != NativeSnapshotMetaFormat.MAGIC) {
                throw new SnapshotFormatException(
                        source
                                + " is not a StreamFusion native snapshot meta file (it starts with 0x"
                                + Integer.toHexString(magic)
                                + "). Restore it with the backend that wrote it.");
            }
            version = data.readInt();
            if (version < NativeSnapshotMetaFormat.VERSION_1
                    || version > NativeSnapshotMetaFormat.CURRENT_VERSION) {
                throw new SnapshotFormatException(
                        source
                                + " has native snapshot format version "
                                + version
                                + ", but this StreamFusion reads"
                                + " versions 1 to "
                                + NativeSnapshotMetaFormat.CURRENT_VERSION
                                + ". Restore it with the StreamFusion release that wrote it or a newer one.");
            }
            int length = data.readInt();
            if (length < 0 || length > NativeSnapshotMetaFormat.MAX_BODY_BYTES) {
                throw corrupt(source, "its body length " + length + " is impossible");
            }
            body = new byte[length];
            data.readFully(body);
            expectedCrc = data.readInt();
        } catch (EOFException e) {
            throw new SnapshotFormatException(
                    source
                            + " is truncated: it ends before the end of its meta document, so it was not"
                            + " completely written or was cut short.",
                    e);
        } catch (SnapshotFormatException e) {
            throw e;
        } catch (IOException e) {
            throw new SnapshotFormatException(
                    "Could not read " + source + ": " + e.getMessage(), e);
        }
        CRC32C crc = new CRC32C();
        crc.update(body);
        if ((int) crc.getValue() != expectedCrc) {
            throw corrupt(source, "its checksum does not match its contents");
        }
        try {
            return readBody(version, new DataInputDeserializer(body), userCodeClassLoader);
        } catch (IOException | RuntimeException e) {
            throw new SnapshotFormatException(
                    "Could not decode "
                            + source
                            + " (format version "
                            + version
                            + "): "
                            + e
                            + ". Check that the job's classes, including its serializers, are on the class path.",
                    e);
        }
    }

    private static SnapshotFormatException corrupt(String source, String what) {
        return new SnapshotFormatException(source + " is corrupt: " + what + ".");
    }

    private static NativeSnapshotMeta readBody(
            int version, DataInputDeserializer in, ClassLoader classLoader) throws IOException {
        // One branch per released version; version 1 is the only one so far.
        if (version != NativeSnapshotMetaFormat.VERSION_1) {
            throw new IOException("no reader for format version " + version);
        }
        return readVersion1(in, classLoader);
    }

    private static NativeSnapshotMeta readVersion1(
            DataInputDeserializer in, ClassLoader classLoader) throws IOException {
        long checkpointId = in.readLong();
        UUID backend = new UUID(in.readLong(), in.readLong());
        KeyGroupRange keyGroups = KeyGroupRange.of(in.readInt(), in.readInt());
        int prefixBytes = in.readInt();
        TypeSerializerSnapshot<?> keySerializer =
                TypeSerializerSnapshot.readVersionedSnapshot(in, classLoader);
        int metaInfoVersion = in.readInt();
        int stateCount = in.readInt();
        List<StateMetaInfoSnapshot> states = new ArrayList<>(stateCount);
        for (int i = 0; i < stateCount; i++) {
            states.add(
                    StateMetaInfoSnapshotReadersWriters.getReader(metaInfoVersion)
                            .readStateMetaInfoSnapshot(in, classLoader));
        }
        int fileCount = in.readInt();
        List<SnapshotFileEntry> files = new ArrayList<>(fileCount);
        for (int i = 0; i < fileCount; i++) {
            files.add(new SnapshotFileEntry(in.readUTF(), in.readLong(), in.readInt()));
        }
        if (in.available() != 0) {
            throw new IOException(in.available() + " unexpected bytes after the file manifest");
        }
        return new NativeSnapshotMeta(
                checkpointId, backend, keyGroups, prefixBytes, keySerializer, states, files);
    }
}
