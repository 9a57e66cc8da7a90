package io.streamfusion.backend.snapshot;

import java.io.IOException;

/**
 * A stream of canonical entries sorted by key group, one of the inputs that {@link
 * CanonicalKeyValueStateIterator} merges. Within a key group, a source yields the entries of each
 * state contiguously and in ascending state id. Subclasses position it with {@link #setEntry} or
 * {@link #setExhausted}.
 */
abstract class EntrySource implements AutoCloseable {

    private boolean valid;
    private int keyGroup;
    private int stateId;
    private byte[] key;
    private byte[] value;

    /** Moves to the next entry. */
    abstract void next() throws IOException;

    final void setEntry(int keyGroup, int stateId, byte[] key, byte[] value) {
        this.valid = true;
        this.keyGroup = keyGroup;
        this.stateId = stateId;
        this.key = key;
        this.value = value;
    }

    final void setExhausted() {
        valid = false;
    }

    final boolean isValid() {
        return valid;
    }

    final int keyGroup() {
        return keyGroup;
    }

    final int stateId() {
        return stateId;
    }

    /** A fresh array per entry: Flink's snapshot writer flips a bit in it. */
    final byte[] key() {
        return key;
    }

    final byte[] value() {
        return value;
    }

    @Override
    public void close() {}
}
