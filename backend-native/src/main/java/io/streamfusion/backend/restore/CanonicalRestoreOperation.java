package io.streamfusion.backend.restore;

import io.streamfusion.backend.nativelib.EntryBatchWriter;
import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.runtime.state.KeyExtractorFunction;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.RegisteredPriorityQueueStateBackendMetaInfo;
import org.apache.flink.runtime.state.RestoreOperation;
import org.apache.flink.runtime.state.StateSerializerProvider;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSet;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSetFactory;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSnapshotRestoreWrapper;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.runtime.state.restore.FullSnapshotRestoreOperation;
import org.apache.flink.runtime.state.restore.KeyGroup;
import org.apache.flink.runtime.state.restore.KeyGroupEntry;
import org.apache.flink.runtime.state.restore.SavepointRestoreResult;
import org.apache.flink.runtime.state.restore.ThrowingIterator;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;

/**
 * Restores canonical key-grouped snapshots (full checkpoints and canonical savepoints of any
 * backend) into a native store. Flink's {@link FullSnapshotRestoreOperation} reads the stream,
 * which already covers only this backend's key groups; entries reach the store in write batches,
 * one JNI crossing per batch. Timer entries go to native timer column families or, in heap timer
 * mode, to heap queues; both modes read the same canonical timer entries.
 */
public final class CanonicalRestoreOperation<K> implements RestoreOperation<Void> {

    /** Bytes of entries gathered before one native write. */
    static final int WRITE_BATCH_BYTES = 4 << 20;

    private final List<KeyedStateHandle> stateHandles;
    private final FullSnapshotRestoreOperation<K> reader;
    private final RestoredStateRegistry states;
    private final Map<String, HeapPriorityQueueSnapshotRestoreWrapper<?>> registeredPQStates;
    private final HeapPriorityQueueSetFactory priorityQueueFactory;
    private final KeyGroupRange keyGroupRange;
    private final int numberOfKeyGroups;
    private final int keyGroupPrefixBytes;
    private final boolean timersOnHeap;

    /** Closed by Flink when the task is cancelled during restore. */
    private final CloseableRegistry cancelRegistry;

    public CanonicalRestoreOperation(
            KeyGroupRange keyGroupRange,
            int numberOfKeyGroups,
            int keyGroupPrefixBytes,
            ClassLoader userCodeClassLoader,
            Collection<KeyedStateHandle> stateHandles,
            StateSerializerProvider<K> keySerializerProvider,
            RestoredStateRegistry states,
            Map<String, HeapPriorityQueueSnapshotRestoreWrapper<?>> registeredPQStates,
            HeapPriorityQueueSetFactory priorityQueueFactory,
            boolean timersOnHeap,
            CloseableRegistry cancelRegistry) {
        this.stateHandles = new ArrayList<>(stateHandles);
        this.reader =
                new FullSnapshotRestoreOperation<>(
                        keyGroupRange,
                        userCodeClassLoader,
                        this.stateHandles,
                        keySerializerProvider);
        this.states = states;
        this.registeredPQStates = registeredPQStates;
        this.priorityQueueFactory = priorityQueueFactory;
        this.keyGroupRange = keyGroupRange;
        this.numberOfKeyGroups = numberOfKeyGroups;
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.timersOnHeap = timersOnHeap;
        this.cancelRegistry = cancelRegistry;
    }

    @Override
    public Void restore() throws Exception {
        // The reader yields one result per handle, in the order of the handles.
        int index = 0;
        try (ThrowingIterator<SavepointRestoreResult> results = reader.restore()) {
            while (results.hasNext()) {
                apply(results.next());
                index++;
            }
        } catch (CancellationException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw unreadable(stateHandles.get(Math.min(index, stateHandles.size() - 1)), e);
        }
        return null;
    }

    /** An error that names the snapshot file and says what Flink will do about it. */
    private static IOException unreadable(KeyedStateHandle handle, Exception cause) {
        return new IOException(
                "Could not restore StreamFusion state from "
                        + SnapshotFileNames.describe(handle)
                        + ": "
                        + cause
                        + ". The snapshot file is missing, truncated or corrupt. "
                        + SnapshotFileNames.WHAT_TO_DO,
                cause);
    }

    private void apply(SavepointRestoreResult result) throws Exception {
        List<StateMetaInfoSnapshot> metaInfos = result.getStateMetaInfoSnapshots();
        Map<Integer, Integer> batchIndexByStateId = new HashMap<>();
        Map<Integer, HeapPriorityQueueSnapshotRestoreWrapper<HeapPriorityQueueElement>>
                queuesByStateId = new HashMap<>();
        List<NativeColumnFamily> batchColumns = new ArrayList<>();
        for (int stateId = 0; stateId < metaInfos.size(); stateId++) {
            StateMetaInfoSnapshot metaInfo = metaInfos.get(stateId);
            if (timersOnHeap
                    && metaInfo.getBackendStateType()
                            == StateMetaInfoSnapshot.BackendStateType.PRIORITY_QUEUE) {
                queuesByStateId.put(stateId, queueFor(metaInfo));
            } else {
                batchIndexByStateId.put(stateId, batchColumns.size());
                batchColumns.add(states.columnFor(metaInfo));
            }
        }
        EntryBatchWriter batch = new EntryBatchWriter(WRITE_BATCH_BYTES + (64 << 10));
        DataInputDeserializer elementIn = new DataInputDeserializer();
        try (ThrowingIterator<KeyGroup> keyGroups = result.getRestoredKeyGroups()) {
            while (keyGroups.hasNext()) {
                if (cancelRegistry.isClosed()) {
                    throw new CancellationException("StreamFusion restore cancelled");
                }
                try (ThrowingIterator<KeyGroupEntry> entries =
                        keyGroups.next().getKeyGroupEntries()) {
                    while (entries.hasNext()) {
                        KeyGroupEntry entry = entries.next();
                        Integer batchIndex = batchIndexByStateId.get(entry.getKvStateId());
                        if (batchIndex != null) {
                            batch.add(batchIndex, entry.getKey(), entry.getValue());
                            if (batch.sizeInBytes() >= WRITE_BATCH_BYTES) {
                                states.write(batchColumns, batch);
                            }
                        } else {
                            restoreTimer(
                                    queuesByStateId.get(entry.getKvStateId()), entry, elementIn);
                        }
                    }
                }
            }
        }
        states.write(batchColumns, batch);
    }

    private void restoreTimer(
            HeapPriorityQueueSnapshotRestoreWrapper<HeapPriorityQueueElement> queue,
            KeyGroupEntry entry,
            DataInputDeserializer in)
            throws IOException {
        if (queue == null) {
            throw new IOException(
                    "Snapshot entry refers to unknown state id "
                            + entry.getKvStateId()
                            + "; the snapshot is corrupt or was written by an incompatible writer.");
        }
        in.setBuffer(entry.getKey());
        in.skipBytesToRead(keyGroupPrefixBytes);
        queue.getPriorityQueue().add(queue.getMetaInfo().getElementSerializer().deserialize(in));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private HeapPriorityQueueSnapshotRestoreWrapper<HeapPriorityQueueElement> queueFor(
            StateMetaInfoSnapshot snapshot) {
        return (HeapPriorityQueueSnapshotRestoreWrapper<HeapPriorityQueueElement>)
                registeredPQStates.computeIfAbsent(
                        snapshot.getName(),
                        name -> {
                            RegisteredPriorityQueueStateBackendMetaInfo metaInfo =
                                    new RegisteredPriorityQueueStateBackendMetaInfo<>(snapshot);
                            HeapPriorityQueueSet queue =
                                    priorityQueueFactory.create(
                                            name, metaInfo.getElementSerializer());
                            return new HeapPriorityQueueSnapshotRestoreWrapper<>(
                                    queue,
                                    metaInfo,
                                    KeyExtractorFunction.forKeyedObjects(),
                                    keyGroupRange,
                                    numberOfKeyGroups);
                        });
    }
}
