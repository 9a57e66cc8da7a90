package io.streamfusion.backend.state;

import org.apache.flink.util.FlinkRuntimeException;

/**
 * Stored state bytes that cannot be what StreamFusion wrote: cut off, with a length that runs past
 * the entry, or of an unknown layout. Nothing is guessed from such bytes. The message names the
 * state and says what the user can do.
 */
public final class StateCorruptionException extends FlinkRuntimeException {

    private static final long serialVersionUID = 1L;

    /** What users can do about corrupt state, appended to every message. */
    static final String REMEDY =
            "The stored state is damaged; restore the job from an earlier checkpoint or a savepoint.";

    public StateCorruptionException(String stateName, String problem) {
        super("Corrupt entry in state '" + stateName + "': " + problem + ". " + REMEDY);
    }

    /** The corruption of the entry under {@code key}, whose key-group prefix names the group. */
    static StateCorruptionException atKey(
            String stateName, byte[] key, int keyGroupPrefixBytes, String problem) {
        int keyGroup = 0;
        for (int i = 0; i < keyGroupPrefixBytes && i < key.length; i++) {
            keyGroup = (keyGroup << 8) | (key[i] & 0xFF);
        }
        return new StateCorruptionException(stateName, keyGroup, problem);
    }

    /**
     * Stored bytes under {@code key} that the state's serializer could not decode; {@code cause} is
     * what it threw.
     */
    static StateCorruptionException undecodable(
            String stateName, byte[] key, int keyGroupPrefixBytes, int length, Throwable cause) {
        StateCorruptionException e =
                atKey(
                        stateName,
                        key,
                        keyGroupPrefixBytes,
                        "a stored value of "
                                + length
                                + " bytes that its serializer cannot decode ("
                                + cause
                                + "), so it is damaged or was written with an incompatible"
                                + " serializer");
        e.initCause(cause);
        return e;
    }

    public StateCorruptionException(String stateName, int keyGroup, String problem) {
        super(
                "Corrupt entry in state '"
                        + stateName
                        + "', key group "
                        + keyGroup
                        + ": "
                        + problem
                        + ". "
                        + REMEDY);
    }
}
