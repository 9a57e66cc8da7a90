package io.streamfusion.backend.state;

import java.io.IOException;

/**
 * Decodes stored state bytes with a serializer, so that bytes the serializer cannot decode fail
 * with a {@link StateCorruptionException} naming the state and the key group, and never with an
 * {@code Error}. An {@link OutOfMemoryError} there is a damaged length that the serializer sized an
 * array by, which the VM refused: nothing was allocated, so it is reported as corruption too.
 */
final class StoredValueDecoding {

    /** Decodes stored bytes with a serializer. */
    @FunctionalInterface
    interface Decoder<T> {
        T decode(byte[] stored) throws IOException;
    }

    private StoredValueDecoding() {}

    /**
     * @param key the stored key, whose key-group prefix names the group in the error
     */
    static <T> T decode(
            String stateName,
            byte[] key,
            int keyGroupPrefixBytes,
            byte[] stored,
            Decoder<T> decoder) {
        try {
            return decoder.decode(stored);
        } catch (StateCorruptionException e) {
            throw e;
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            throw StateCorruptionException.undecodable(
                    stateName, key, keyGroupPrefixBytes, stored.length, e);
        }
    }
}
