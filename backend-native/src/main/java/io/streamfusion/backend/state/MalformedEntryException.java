package io.streamfusion.backend.state;

/**
 * Thrown by the parsers of stored candidate-index entries, which know the bytes but not which state
 * or key group they belong to; the state turns it into a {@link StateCorruptionException} that
 * names both.
 */
final class MalformedEntryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    MalformedEntryException(String problem) {
        super(problem, null, false, false);
    }
}
