package io.streamfusion.backend.snapshot;

import org.apache.flink.runtime.state.KeyValueStateIterator;
import org.apache.flink.util.IOUtils;

import java.io.IOException;
import java.util.List;

/**
 * Merges entry sources into the order Flink's full-snapshot writer needs: by key group, then by
 * state id. There are only a handful of sources (the native states plus one per timer queue), so a
 * linear pick per entry is cheaper than a heap.
 */
final class CanonicalKeyValueStateIterator implements KeyValueStateIterator {

    private final List<EntrySource> sources;
    private EntrySource current;
    private boolean newKeyGroup;
    private boolean newKeyValueState;
    private int previousKeyGroup;
    private int previousStateId;

    CanonicalKeyValueStateIterator(List<EntrySource> sources) {
        this.sources = sources;
        select(true);
    }

    private void select(boolean first) {
        EntrySource best = null;
        for (EntrySource source : sources) {
            if (source.isValid()
                    && (best == null
                            || source.keyGroup() < best.keyGroup()
                            || (source.keyGroup() == best.keyGroup()
                                    && source.stateId() < best.stateId()))) {
                best = source;
            }
        }
        if (best != null) {
            newKeyGroup = first || best.keyGroup() != previousKeyGroup;
            newKeyValueState = newKeyGroup || best.stateId() != previousStateId;
        }
        current = best;
    }

    @Override
    public void next() throws IOException {
        // Compare the next entry with this one, so remember where this one was.
        previousKeyGroup = current.keyGroup();
        previousStateId = current.stateId();
        current.next();
        select(false);
    }

    @Override
    public int keyGroup() {
        return current.keyGroup();
    }

    @Override
    public byte[] key() {
        return current.key();
    }

    @Override
    public byte[] value() {
        return current.value();
    }

    @Override
    public int kvStateId() {
        return current.stateId();
    }

    @Override
    public boolean isNewKeyValueState() {
        return newKeyValueState;
    }

    @Override
    public boolean isNewKeyGroup() {
        return newKeyGroup;
    }

    @Override
    public boolean isValid() {
        return current != null;
    }

    @Override
    public void close() {
        sources.forEach(IOUtils::closeQuietly);
    }
}
