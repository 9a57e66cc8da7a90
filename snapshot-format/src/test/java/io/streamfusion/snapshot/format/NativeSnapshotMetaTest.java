package io.streamfusion.snapshot.format;

import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NativeSnapshotMetaTest {

    private static final ClassLoader CLASS_LOADER = NativeSnapshotMetaTest.class.getClassLoader();

    static NativeSnapshotMeta read(byte[] bytes) throws SnapshotFormatException {
        return NativeSnapshotMetaReader.read(
                new ByteArrayInputStream(bytes), bytes.length, CLASS_LOADER, "meta-file");
    }

    /** Asserts that {@code meta} holds exactly what {@link MetaFixtures#golden()} holds. */
    static void assertIsGolden(NativeSnapshotMeta meta) {
        NativeSnapshotMeta expected = MetaFixtures.golden();
        assertThat(meta.checkpointId()).isEqualTo(expected.checkpointId());
        assertThat(meta.backendIdentifier()).isEqualTo(expected.backendIdentifier());
        assertThat(meta.keyGroupRange()).isEqualTo(expected.keyGroupRange());
        assertThat(meta.keyGroupPrefixBytes()).isEqualTo(1);
        assertThat(meta.keySerializerSnapshot().restoreSerializer())
                .isEqualTo(IntSerializer.INSTANCE);
        assertThat(meta.stateMetaInfos())
                .extracting(StateMetaInfoSnapshot::getName)
                .containsExactly("counts", "names", "_timer_state/event_user-timers");
        assertThat(meta.stateMetaInfos())
                .extracting(StateMetaInfoSnapshot::getBackendStateType)
                .containsExactly(
                        StateMetaInfoSnapshot.BackendStateType.KEY_VALUE,
                        StateMetaInfoSnapshot.BackendStateType.KEY_VALUE,
                        StateMetaInfoSnapshot.BackendStateType.PRIORITY_QUEUE);
        assertThat(
                        meta.stateMetaInfos()
                                .get(1)
                                .getOption(
                                        StateMetaInfoSnapshot.CommonOptionsKeys.KEYED_STATE_TYPE))
                .isEqualTo("MAP");
        assertThat(meta.files()).isEqualTo(expected.files());
    }

    @Test
    void roundTripsEveryField() throws Exception {
        assertIsGolden(read(NativeSnapshotMetaWriter.toBytes(MetaFixtures.golden())));
    }

    @Test
    void aTruncatedFileNamesTheFile() throws Exception {
        byte[] bytes = NativeSnapshotMetaWriter.toBytes(MetaFixtures.golden());
        for (int length : new int[] {0, 3, 11, bytes.length / 2, bytes.length - 1}) {
            assertThatThrownBy(() -> read(Arrays.copyOf(bytes, length)))
                    .isInstanceOf(SnapshotFormatException.class)
                    .hasMessageContaining("meta-file is truncated");
        }
    }

    @Test
    void aFlippedByteFailsTheChecksum() throws Exception {
        byte[] bytes = NativeSnapshotMetaWriter.toBytes(MetaFixtures.golden());
        bytes[20] ^= 0x10;
        assertThatThrownBy(() -> read(bytes))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("meta-file is corrupt: its checksum does not match");
    }

    @Test
    void aForeignFileIsNamedAsNotOurs() {
        byte[] bytes = "this is not a meta file at all".getBytes();
        assertThatThrownBy(() -> read(bytes))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("meta-file is not a StreamFusion native snapshot meta file");
    }

    @Test
    void aNewerVersionAsksForANewerStreamFusion() throws Exception {
        byte[] bytes = NativeSnapshotMetaWriter.toBytes(MetaFixtures.golden());
        ByteBuffer.wrap(bytes).putInt(4, NativeSnapshotMetaFormat.CURRENT_VERSION + 1);
        assertThatThrownBy(() -> read(bytes))
                .isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining(
                        "format version " + (NativeSnapshotMetaFormat.CURRENT_VERSION + 1))
                .hasMessageContaining("newer one");
    }
}
