package io.streamfusion.snapshot.format;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every released format version has a golden file, written once from {@link MetaFixtures#golden()}
 * and never rewritten. Each must still read to the same contents, and the writer must still produce
 * the newest one byte for byte.
 *
 * <p>To add the golden file of a new version, run this class with {@code
 * -Dstreamfusion.golden.write=<path of src/test/resources/golden>}.
 */
class GoldenFilesTest {

    private static String goldenName(int version) {
        return "native-snapshot-meta-v" + version + ".bin";
    }

    private static byte[] golden(int version) throws IOException {
        try (InputStream in =
                GoldenFilesTest.class.getResourceAsStream("/golden/" + goldenName(version))) {
            assertThat(in).as("golden file of format version %d", version).isNotNull();
            return in.readAllBytes();
        }
    }

    @Test
    void everyReleasedVersionStillReads() throws Exception {
        for (int version = NativeSnapshotMetaFormat.VERSION_1;
                version <= NativeSnapshotMetaFormat.CURRENT_VERSION;
                version++) {
            NativeSnapshotMetaTest.assertIsGolden(NativeSnapshotMetaTest.read(golden(version)));
        }
    }

    @Test
    void theWriterStillWritesTheNewestGoldenFile() throws Exception {
        byte[] written = NativeSnapshotMetaWriter.toBytes(MetaFixtures.golden());
        String target = System.getProperty("streamfusion.golden.write");
        if (target != null) {
            Files.write(
                    Path.of(target, goldenName(NativeSnapshotMetaFormat.CURRENT_VERSION)), written);
        }
        assertThat(written).isEqualTo(golden(NativeSnapshotMetaFormat.CURRENT_VERSION));
    }
}
