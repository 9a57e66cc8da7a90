package io.streamfusion.backend.state;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.DoubleSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.runtime.state.ListDelimitedSerializer;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzz target: value, list and map-value bytes, decoded through {@link StoredValueDecoding} with
 * Flink's serializers as the state kinds decode them, give a value or a {@link
 * StateCorruptionException}: no other exception and no {@code Error}, whatever lengths the bytes
 * claim.
 */
public class StoredValueFuzzTest {

    private static final byte[] KEY = {17, 0, 0, 0, 42};

    private static final TypeSerializer<?>[] SERIALIZERS = {
        StringSerializer.INSTANCE, LongSerializer.INSTANCE, DoubleSerializer.INSTANCE
    };

    @FuzzTest
    void storedValuesDecodeOrAreCorrupt(FuzzedDataProvider data) {
        fuzzerTestOneInput(data);
    }

    /** The entry point of Jazzer's command line, which {@code bin/fuzz} uses. */
    public static void fuzzerTestOneInput(FuzzedDataProvider data) {
        TypeSerializer<?> serializer = SERIALIZERS[data.consumeInt(0, SERIALIZERS.length - 1)];
        int kind = data.consumeInt(0, 2);
        byte[] stored = data.consumeRemainingAsBytes();
        try {
            StoredValueDecoding.decode(
                    "fuzzed", KEY, 1, stored, bytes -> decode(kind, serializer, bytes));
        } catch (StateCorruptionException expected) {
            // The one way stored bytes may be refused.
        }
    }

    private static Object decode(int kind, TypeSerializer<?> serializer, byte[] bytes)
            throws java.io.IOException {
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        switch (kind) {
            case 0: // value state
                return serializer.deserialize(in);
            case 1: // list state: Flink's delimited list
                return new ListDelimitedSerializer().deserializeList(bytes, serializer);
            default: // map state value: the null flag, then the value
                return in.readBoolean() ? null : serializer.deserialize(in);
        }
    }
}
