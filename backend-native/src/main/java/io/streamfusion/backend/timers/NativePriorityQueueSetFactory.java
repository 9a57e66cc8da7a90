package io.streamfusion.backend.timers;

import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.KeyExtractorFunction;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.Keyed;
import org.apache.flink.runtime.state.PriorityComparable;
import org.apache.flink.runtime.state.PriorityComparator;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.runtime.state.heap.KeyGroupPartitionedPriorityQueue;

/**
 * Builds native timer queues: Flink's {@link KeyGroupPartitionedPriorityQueue} over one {@link
 * NativeKeyGroupQueueSet} per key group, all in the queue state's column family.
 */
public final class NativePriorityQueueSetFactory {

    private final KeyGroupRange keyGroupRange;
    private final int numberOfKeyGroups;
    private final int keyGroupPrefixBytes;
    private final int cacheSize;
    // One task thread uses all queues of a backend, so they can share serialization buffers.
    private final DataOutputSerializer sharedOut = new DataOutputSerializer(128);
    private final DataInputDeserializer sharedIn = new DataInputDeserializer();

    public NativePriorityQueueSetFactory(
            KeyGroupRange keyGroupRange,
            int numberOfKeyGroups,
            int keyGroupPrefixBytes,
            int cacheSize) {
        this.keyGroupRange = keyGroupRange;
        this.numberOfKeyGroups = numberOfKeyGroups;
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.cacheSize = cacheSize;
    }

    public <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> create(
                    NativeColumnFamily columnFamily, TypeSerializer<T> serializer) {
        KeyGroupPartitionedPriorityQueue.PartitionQueueSetFactory<T, NativeKeyGroupQueueSet<T>>
                perKeyGroup =
                        (keyGroup, numKeyGroups, keyExtractor, comparator) ->
                                new NativeKeyGroupQueueSet<>(
                                        keyGroup,
                                        keyGroupPrefixBytes,
                                        columnFamily,
                                        serializer,
                                        sharedOut,
                                        sharedIn,
                                        new OrderedBytesCache(cacheSize));
        return new KeyGroupPartitionedPriorityQueue<>(
                KeyExtractorFunction.forKeyedObjects(),
                PriorityComparator.forPriorityComparableObjects(),
                perKeyGroup,
                keyGroupRange,
                numberOfKeyGroups);
    }
}
