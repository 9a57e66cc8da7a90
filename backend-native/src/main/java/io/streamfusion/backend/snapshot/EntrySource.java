package io.streamfusion.backend.snapshot;

import java.io.IOException;

/**
 * A stream of canonical entries sorted by key group, one of the inputs that {@link
 * CanonicalKeyValueStateIterator} merges. Within a key group, a source yields the entries of
 * each state contiguously and in ascending state id.
 */
interface EntrySource extends AutoCloseable {

    boolean isValid();

    int keyGroup();

    int stateId();

    /** A fresh array per entry: Flink's snapshot writer flips a bit in it. */
    byte[] key();

    byte[] value();

    void next() throws IOException;

    @Override
    void close();
}
