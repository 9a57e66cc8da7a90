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
import java.io.InvalidClassException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * Reads a native snapshot meta document of any released format version. Every failure is a {@link
 * SnapshotFormatException} that names the document's source.
 */
public final class NativeSnapshotMetaReader {

    private static final int INITIAL_BODY_CHUNK = 64 << 10;

    /** A state meta info holds at least its name (a 2-byte length) and a few fixed fields. */
    private static final int MIN_STATE_BYTES = 2;

    /** A manifest entry: a file name (a 2-byte length at least), a size and a checksum. */
    private static final int MIN_FILE_ENTRY_BYTES = 2 + Long.BYTES + Integer.BYTES;

    private NativeSnapshotMetaReader() {}

    /**
     * @param size the document's size in bytes as its handle records it, or -1 when unknown; a
     *     header that disagrees with it is corrupt
     * @param source names the document in error messages, such as the file's path
     */
    public static NativeSnapshotMeta read(
            InputStream in, long size, ClassLoader userCodeClassLoader, String source)
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
            long expectedSize =
                    NativeSnapshotMetaFormat.HEADER_BYTES + (long) length + Integer.BYTES;
            if (size >= 0 && size < expectedSize) {
                throw new SnapshotFormatException(
                        source
                                + " is truncated: its header announces a "
                                + expectedSize
                                + "-byte document, but it has "
                                + size
                                + " bytes, so it was not completely written or was cut short.");
            }
            if (size > expectedSize) {
                throw corrupt(
                        source,
                        "it has "
                                + size
                                + " bytes, more than the "
                                + expectedSize
                                + "-byte document its header announces");
            }
            body = readBody(data, length);
            expectedCrc = data.readInt();
            if (data.read() != -1) {
                throw corrupt(source, "it has bytes after its checksum");
            }
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
            return decode(version, new DataInputDeserializer(body), userCodeClassLoader);
        } catch (IOException | RuntimeException | LinkageError | OutOfMemoryError e) {
            if (isMissingClass(e)) {
                throw new SnapshotFormatException(
                        "Could not decode "
                                + source
                                + " (format version "
                                + version
                                + "): "
                                + e
                                + ". Check that the job's classes, including its serializers, are on"
                                + " the class path.",
                        e);
            }
            // The checksum held, so a writer bug or a crafted file put impossible content there. An
            // OutOfMemoryError here is one impossible count handed to Flink's readers (an array
            // the VM refused to allocate), not an exhausted heap: nothing was allocated.
            throw new SnapshotFormatException(
                    source
                            + " is corrupt: its contents cannot be decoded although its checksum"
                            + " matches ("
                            + e
                            + "), so it was written wrongly or crafted.",
                    e);
        }
    }

    private static boolean isMissingClass(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ClassNotFoundException
                    || t instanceof InvalidClassException
                    || t instanceof LinkageError) {
                return true;
            }
        }
        return false;
    }

    /**
     * Reads {@code length} bytes in growing chunks, so a damaged length costs at most twice the
     * bytes that are really there, never the length it claims.
     */
    private static byte[] readBody(DataInputStream in, int length) throws IOException {
        byte[] body = new byte[Math.min(length, INITIAL_BODY_CHUNK)];
        int read = 0;
        while (true) {
            in.readFully(body, read, body.length - read);
            read = body.length;
            if (read == length) {
                return body;
            }
            body = Arrays.copyOf(body, (int) Math.min(length, 2L * read));
        }
    }

    private static SnapshotFormatException corrupt(String source, String what) {
        return new SnapshotFormatException(source + " is corrupt: " + what + ".");
    }

    private static NativeSnapshotMeta decode(
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
        int stateCount = readCount(in, "state", MIN_STATE_BYTES);
        List<StateMetaInfoSnapshot> states = new ArrayList<>(stateCount);
        Set<String> stateNames = new HashSet<>();
        for (int i = 0; i < stateCount; i++) {
            StateMetaInfoSnapshot state =
                    StateMetaInfoSnapshotReadersWriters.getReader(metaInfoVersion)
                            .readStateMetaInfoSnapshot(in, classLoader);
            if (!stateNames.add(state.getName())) {
                throw new IOException("state " + state.getName() + " is listed twice");
            }
            states.add(state);
        }
        int fileCount = readCount(in, "file", MIN_FILE_ENTRY_BYTES);
        List<SnapshotFileEntry> files = new ArrayList<>(fileCount);
        Set<String> fileNames = new HashSet<>();
        for (int i = 0; i < fileCount; i++) {
            SnapshotFileEntry file =
                    new SnapshotFileEntry(in.readUTF(), in.readLong(), in.readInt());
            if (!fileNames.add(file.name())) {
                throw new IOException("file " + file.name() + " is listed twice in the manifest");
            }
            files.add(file);
        }
        if (in.available() != 0) {
            throw new IOException(in.available() + " unexpected bytes after the file manifest");
        }
        return new NativeSnapshotMeta(
                checkpointId, backend, keyGroups, prefixBytes, keySerializer, states, files);
    }

    /** A count that the remaining bytes can hold, each item taking at least {@code minBytes}. */
    private static int readCount(DataInputDeserializer in, String what, int minBytes)
            throws IOException {
        int count = in.readInt();
        if (count < 0 || count > in.available() / minBytes) {
            throw new IOException(
                    "its "
                            + what
                            + " count "
                            + count
                            + " does not fit the "
                            + in.available()
                            + " bytes that follow");
        }
        return count;
    }
}
