package io.streamfusion.backend.snapshot;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueStateSnapshot;

import java.io.IOException;
import java.util.Iterator;

/**
 * The elements of one heap timer queue in canonical form: key {@code [key group][element]}, empty
 * value, as Flink's RocksDB backend writes heap timers into savepoints.
 */
final class HeapQueueEntrySource extends EntrySource {

    private static final byte[] EMPTY = new byte[0];

    private final HeapPriorityQueueStateSnapshot<?> snapshot;
    private final TypeSerializer<Object> elementSerializer;
    private final Iterator<Integer> keyGroups;
    private final int keyGroupPrefixBytes;
    private final int stateId;
    private final DataOutputSerializer keyOut = new DataOutputSerializer(64);
    private Iterator<?> elements;
    private int keyGroup;

    @SuppressWarnings("unchecked")
    HeapQueueEntrySource(
            HeapPriorityQueueStateSnapshot<?> snapshot,
            KeyGroupRange keyGroupRange,
            int keyGroupPrefixBytes,
            int stateId)
            throws IOException {
        this.snapshot = snapshot;
        this.elementSerializer =
                (TypeSerializer<Object>) snapshot.getMetaInfo().getElementSerializer();
        this.keyGroups = keyGroupRange.iterator();
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.stateId = stateId;
        next();
    }

    @Override
    void next() throws IOException {
        while (elements == null || !elements.hasNext()) {
            if (!keyGroups.hasNext()) {
                setExhausted();
                return;
            }
            keyGroup = keyGroups.next();
            elements = snapshot.getIteratorForKeyGroup(keyGroup);
        }
        keyOut.clear();
        CompositeKeySerializationUtils.writeKeyGroup(keyGroup, keyGroupPrefixBytes, keyOut);
        elementSerializer.serialize(elements.next(), keyOut);
        setEntry(keyGroup, stateId, keyOut.getCopyOfBuffer(), EMPTY);
    }
}
