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
}
