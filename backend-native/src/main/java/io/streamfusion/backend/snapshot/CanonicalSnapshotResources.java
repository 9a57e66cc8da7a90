package io.streamfusion.backend.snapshot;

import io.streamfusion.backend.RegisteredColumnFamily;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeKeyGroupScan;
import io.streamfusion.backend.nativelib.NativeStore;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.FullSnapshotResources;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyValueStateIterator;
import org.apache.flink.runtime.state.StateSnapshotTransformer;
import org.apache.flink.runtime.state.StreamCompressionDecorator;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSnapshotRestoreWrapper;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueStateSnapshot;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.util.IOUtils;
import org.apache.flink.util.ResourceGuard;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Everything a canonical (key-grouped) snapshot needs, captured in the synchronous phase: the state
 * meta infos, a native point-in-time scan of every state column family, and snapshots of the heap
 * timer queues. Holds a lease on the store so it cannot be disposed under the scan.
 */
public final class CanonicalSnapshotResources<K> implements FullSnapshotResources<K> {

    private final ResourceGuard.Lease lease;
    private final NativeKeyGroupScan scan;
    private final List<StateMetaInfoSnapshot> metaInfoSnapshots;
    private final List<StateSnapshotTransformer<byte[]>> transformers;
    private final List<HeapPriorityQueueStateSnapshot<?>> queueSnapshots;
    private final KeyGroupRange keyGroupRange;
    private final TypeSerializer<K> keySerializer;
    private final int keyGroupPrefixBytes;
    private final StreamCompressionDecorator compression;
    private boolean iteratorCreated;

    private CanonicalSnapshotResources(
            ResourceGuard.Lease lease,
            NativeKeyGroupScan scan,
            List<StateMetaInfoSnapshot> metaInfoSnapshots,
            List<StateSnapshotTransformer<byte[]>> transformers,
            List<HeapPriorityQueueStateSnapshot<?>> queueSnapshots,
            KeyGroupRange keyGroupRange,
            TypeSerializer<K> keySerializer,
            int keyGroupPrefixBytes,
            StreamCompressionDecorator compression) {
        this.lease = lease;
        this.scan = scan;
        this.metaInfoSnapshots = metaInfoSnapshots;
        this.transformers = transformers;
        this.queueSnapshots = queueSnapshots;
        this.keyGroupRange = keyGroupRange;
        this.keySerializer = keySerializer;
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.compression = compression;
    }

    /** Captures the resources; call in the synchronous phase of a snapshot. */
    public static <K> CanonicalSnapshotResources<K> create(
            NativeStore store,
            ResourceGuard storeGuard,
            List<RegisteredColumnFamily> columnStates,
            Collection<HeapPriorityQueueSnapshotRestoreWrapper<?>> timerQueues,
            KeyGroupRange keyGroupRange,
            TypeSerializer<K> keySerializer,
            int keyGroupPrefixBytes,
            StreamCompressionDecorator compression)
            throws IOException {
        List<StateMetaInfoSnapshot> metaInfos = new ArrayList<>();
        List<StateSnapshotTransformer<byte[]>> transformers = new ArrayList<>();
        List<NativeColumnFamily> columnFamilies = new ArrayList<>();
        for (RegisteredColumnFamily registered : columnStates) {
            metaInfos.add(registered.metaInfo().snapshot());
            transformers.add(registered.snapshotTransformer());
            columnFamilies.add(registered.columnFamily());
        }
        List<HeapPriorityQueueStateSnapshot<?>> queueSnapshots = new ArrayList<>();
        for (HeapPriorityQueueSnapshotRestoreWrapper<?> queue : timerQueues) {
            metaInfos.add(queue.getMetaInfo().snapshot());
            queueSnapshots.add(queue.stateSnapshot());
        }
        ResourceGuard.Lease lease = storeGuard.acquireResource();
        try {
            NativeKeyGroupScan scan = store.openScan(columnFamilies, keyGroupPrefixBytes);
            return new CanonicalSnapshotResources<>(
                    lease,
                    scan,
                    metaInfos,
                    transformers,
                    queueSnapshots,
                    keyGroupRange,
                    keySerializer,
                    keyGroupPrefixBytes,
                    compression);
        } catch (RuntimeException e) {
            IOUtils.closeQuietly(lease);
            throw e;
        }
    }

    @Override
    public List<StateMetaInfoSnapshot> getMetaInfoSnapshots() {
        return metaInfoSnapshots;
    }

    @Override
    public KeyValueStateIterator createKVStateIterator() throws IOException {
        if (iteratorCreated) {
            throw new IllegalStateException("The native snapshot scan can be read only once");
        }
        iteratorCreated = true;
        List<EntrySource> sources = new ArrayList<>();
        sources.add(new NativeEntrySource(scan, transformers, keyGroupPrefixBytes));
        int stateId = transformers.size();
        for (HeapPriorityQueueStateSnapshot<?> queue : queueSnapshots) {
            sources.add(
                    new HeapQueueEntrySource(queue, keyGroupRange, keyGroupPrefixBytes, stateId++));
        }
        return new CanonicalKeyValueStateIterator(sources);
    }

    @Override
    public KeyGroupRange getKeyGroupRange() {
        return keyGroupRange;
    }

    @Override
    public TypeSerializer<K> getKeySerializer() {
        return keySerializer;
    }

    @Override
    public StreamCompressionDecorator getStreamCompressionDecorator() {
        return compression;
    }

    @Override
    public void release() {
        IOUtils.closeQuietly(scan);
        IOUtils.closeQuietly(lease);
    }
}
