package io.streamfusion.snapshot.format;

import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Meta documents damaged where the checksum cannot help: in the header it does not cover, or with
 * impossible content under a valid checksum, as a writer bug or a crafted file has them.
 */
class DamagedMetaTest {

    private static final ClassLoader CLASS_LOADER = DamagedMetaTest.class.getClassLoader();

    private static NativeSnapshotMeta read(byte[] bytes, long size) throws SnapshotFormatException {
        return NativeSnapshotMetaReader.read(
                new ByteArrayInputStream(bytes), size, CLASS_LOADER, "meta-file");
    }

    @Test
    void aHugeLengthInTheHeaderIsTruncationNotAnAllocation() {
        byte[] header = HexFormat.of().parseHex("53464e4d000000010fffffff");
        assertThatThrownBy(() -> read(header, header.length))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining(
                        "meta-file is truncated: its header announces a 268435471-byte");
        // Without the size, the body is read in chunks and ends at the end of the stream.
        assertThatThrownBy(() -> read(header, -1))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("meta-file is truncated");
    }

    @Test
    void countsThatTheBodyCannotHoldAreCorrupt() throws Exception {
        byte[] body = body(meta(List.of(), List.of()));
        for (int offset : new int[] {body.length - 8, body.length - 4}) {
            for (int count : new int[] {Integer.MAX_VALUE, -1}) {
                byte[] damaged = body.clone();
                ByteBuffer.wrap(damaged).putInt(offset, count);
                assertThatThrownBy(() -> read(MetaFixtures.framed(damaged), -1))
                        .isInstanceOf(SnapshotFormatException.class)
                        .hasMessageContaining("meta-file is corrupt")
                        .hasMessageContaining("count " + count + " does not fit");
            }
        }
        byte[] oneFileTooMany = body.clone();
        ByteBuffer.wrap(oneFileTooMany).putInt(body.length - 4, 1);
        assertThatThrownBy(() -> read(MetaFixtures.framed(oneFileTooMany), -1))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("file count 1 does not fit the 0 bytes that follow");
    }

    @Test
    void aBodyThatEndsEarlyIsCorruptNotAClassPathProblem() throws Exception {
        byte[] body = body(meta(List.of(), List.of()));
        byte[] cut = Arrays.copyOf(body, body.length - 4);
        assertThatThrownBy(() -> read(MetaFixtures.framed(cut), -1))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("meta-file is corrupt: its contents cannot be decoded")
                .hasMessageNotContaining("class path");
    }

    @Test
    void bytesAfterTheChecksumAreCorrupt() throws Exception {
        byte[] bytes = NativeSnapshotMetaWriter.toBytes(MetaFixtures.golden());
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> read(longer, longer.length))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("more than the " + bytes.length + "-byte document");
        assertThatThrownBy(() -> read(longer, -1))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("meta-file is corrupt: it has bytes after its checksum");
    }

    @Test
    void duplicateFilesAndStatesAreCorrupt() throws Exception {
        SnapshotFileEntry file = new SnapshotFileEntry("000009.sst", 10L, 1);
        assertThatThrownBy(
                        () ->
                                read(
                                        MetaFixtures.framed(
                                                body(meta(List.of(), List.of(file, file)))),
                                        -1))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("file 000009.sst is listed twice");
        StateMetaInfoSnapshot state = MetaFixtures.golden().stateMetaInfos().get(0);
        assertThatThrownBy(
                        () ->
                                read(
                                        MetaFixtures.framed(
                                                body(meta(List.of(state, state), List.of()))),
                                        -1))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("state counts is listed twice");
    }

    private static NativeSnapshotMeta meta(
            List<StateMetaInfoSnapshot> states, List<SnapshotFileEntry> files) {
        return new NativeSnapshotMeta(
                7L,
                new UUID(1, 2),
                KeyGroupRange.of(0, 127),
                1,
                IntSerializer.INSTANCE.snapshotConfiguration(),
                states,
                files);
    }

    /** The body the writer writes, cut out of its document. */
    private static byte[] body(NativeSnapshotMeta meta) throws Exception {
        byte[] bytes = NativeSnapshotMetaWriter.toBytes(meta);
        return Arrays.copyOfRange(
                bytes, NativeSnapshotMetaFormat.HEADER_BYTES, bytes.length - Integer.BYTES);
    }
}
