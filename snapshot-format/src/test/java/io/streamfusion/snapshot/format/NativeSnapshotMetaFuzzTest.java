package io.streamfusion.snapshot.format;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.ByteArrayInputStream;

/**
 * Fuzz target: whatever bytes a meta document holds, the reader returns a meta or throws {@link
 * SnapshotFormatException}, and nothing else. Half the inputs get a valid header and checksum
 * around them, so the fuzzer reaches the body's decoding, which a checksum would otherwise guard.
 * bin/test replays the seeds and findings under {@code NativeSnapshotMetaFuzzTestInputs} and fuzzes
 * for a bounded time; {@code bin/fuzz} runs longer.
 */
public class NativeSnapshotMetaFuzzTest {

    private static final ClassLoader CLASS_LOADER =
            NativeSnapshotMetaFuzzTest.class.getClassLoader();

    @FuzzTest
    void readerFailsOnlyWithSnapshotFormatException(FuzzedDataProvider data) {
        fuzzerTestOneInput(data);
    }

    /** The entry point of Jazzer's command line, which {@code bin/fuzz} uses. */
    public static void fuzzerTestOneInput(FuzzedDataProvider data) {
        boolean framed = data.consumeBoolean();
        boolean sizeKnown = data.consumeBoolean();
        byte[] bytes = data.consumeRemainingAsBytes();
        byte[] document = framed ? MetaFixtures.framed(bytes) : bytes;
        try {
            NativeSnapshotMetaReader.read(
                    new ByteArrayInputStream(document),
                    sizeKnown ? document.length : -1,
                    CLASS_LOADER,
                    "fuzzed meta");
        } catch (SnapshotFormatException expected) {
            // The one way a reader may refuse bytes.
        }
    }
}
