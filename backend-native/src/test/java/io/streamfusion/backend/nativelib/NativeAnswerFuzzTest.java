package io.streamfusion.backend.nativelib;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzz target: the readers of the library's answers (entry batches and multi-get value lists)
 * return entries that lie within their input, or throw {@link NativeStateException}.
 */
public class NativeAnswerFuzzTest {

    @FuzzTest
    void answersDecodeOrFailWithAMessage(FuzzedDataProvider data) {
        fuzzerTestOneInput(data);
    }

    /** The entry point of Jazzer's command line, which {@code bin/fuzz} uses. */
    public static void fuzzerTestOneInput(FuzzedDataProvider data) {
        boolean entryBatch = data.consumeBoolean();
        byte[] bytes = data.consumeRemainingAsBytes();
        long decoded = 0;
        try {
            if (entryBatch) {
                EntryBatchReader reader = new EntryBatchReader(bytes);
                while (reader.advance()) {
                    decoded += 12 + reader.key().length + reader.value().length;
                }
            } else {
                ValueListReader reader = new ValueListReader(bytes);
                while (reader.hasNext()) {
                    byte[] value = reader.next();
                    decoded += 4 + (value == null ? 0 : value.length);
                }
            }
        } catch (NativeStateException expected) {
            return;
        }
        if (decoded != bytes.length) {
            throw new AssertionError(decoded + " bytes decoded from " + bytes.length);
        }
    }
}
