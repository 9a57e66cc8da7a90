package io.streamfusion.backend;

import io.streamfusion.api.PriorityQueueStateType;
import io.streamfusion.backend.memory.SlotMemory;
import io.streamfusion.backend.nativelib.EntryBatchWriter;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeStore;
import io.streamfusion.backend.restore.CanonicalRestoreOperation;
import io.streamfusion.backend.restore.NativeRestoreOperation;
import io.streamfusion.backend.restore.NativeRestoreResult;
import io.streamfusion.backend.restore.RestoredStateRegistry;
import io.streamfusion.backend.snapshot.ConfirmedSnapshotFiles;
import io.streamfusion.backend.timers.NativePriorityQueueSetFactory;

import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.memory.OpaqueMemoryResource;
import org.apache.flink.runtime.state.AbstractKeyedStateBackendBuilder;
import org.apache.flink.runtime.state.AbstractStateBackend;
import org.apache.flink.runtime.state.BackendBuildingException;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.InternalKeyContextImpl;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.RegisteredPriorityQueueStateBackendMetaInfo;
import org.apache.flink.runtime.state.RegisteredStateMetaInfoBase;
import org.apache.flink.runtime.state.StateBackend.KeyedStateBackendParameters;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSetFactory;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSnapshotRestoreWrapper;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.runtime.state.metrics.LatencyTrackingStateConfig;
import org.apache.flink.runtime.state.metrics.SizeTrackingStateConfig;
import org.apache.flink.util.FileUtils;
import org.apache.flink.util.IOUtils;

import java.io.File;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Builds a {@link StreamFusionKeyedStateBackend}: creates its working directory and native store,
 * restores the given snapshots into it, and cleans everything up if any step fails.
 */
final class StreamFusionKeyedStateBackendBuilder<K> extends AbstractKeyedStateBackendBuilder<K> {

    /** Default of Flink's heap timer queues, as in Flink's RocksDB backend. */
    private static final int TIMER_QUEUE_INITIAL_CAPACITY = 128;

    private final StreamFusionConfig config;
    private final File instanceDirectory;
    private final OpaqueMemoryResource<SlotMemory> memory;
    private final MetricGroup metricGroup;

    StreamFusionKeyedStateBackendBuilder(
            KeyedStateBackendParameters<K> parameters,
            StreamFusionConfig config,
            File instanceDirectory,
            OpaqueMemoryResource<SlotMemory> memory,
            MetricGroup metricGroup,
            LatencyTrackingStateConfig latencyTrackingStateConfig,
            SizeTrackingStateConfig sizeTrackingStateConfig) {
        super(
                parameters.getKvStateRegistry(),
                parameters.getKeySerializer(),
                parameters.getEnv().getUserCodeClassLoader().asClassLoader(),
                parameters.getNumberOfKeyGroups(),
                parameters.getKeyGroupRange(),
                parameters.getEnv().getExecutionConfig(),
                parameters.getTtlTimeProvider(),
                latencyTrackingStateConfig,
                sizeTrackingStateConfig,
                parameters.getStateHandles(),
                AbstractStateBackend.getCompressionDecorator(
                        parameters.getEnv().getExecutionConfig()),
                parameters.getCancelStreamRegistry());
        this.config = config;
        this.instanceDirectory = instanceDirectory;
        this.memory = memory;
        this.metricGroup = metricGroup;
    }

    @Override
    public StreamFusionKeyedStateBackend<K> build() throws BackendBuildingException {
        NativeStore store = null;
        LinkedHashMap<String, RegisteredColumnFamily> kvStates = new LinkedHashMap<>();
        try {
            createDirectory();
            int keyGroupPrefixBytes =
                    CompositeKeySerializationUtils.computeRequiredBytesInKeyGroupPrefix(
                            numberOfKeyGroups);
            LinkedHashMap<String, HeapPriorityQueueSnapshotRestoreWrapper<?>> timerQueues =
                    new LinkedHashMap<>();
            HeapPriorityQueueSetFactory timerQueueFactory =
                    new HeapPriorityQueueSetFactory(
                            keyGroupRange, numberOfKeyGroups, TIMER_QUEUE_INITIAL_CAPACITY);
            boolean timersOnHeap = config.timerService() == PriorityQueueStateType.HEAP;
            List<KeyedStateHandle> handles =
                    restoreStateHandles.stream().filter(Objects::nonNull).toList();
            UUID backendIdentifier = UUID.randomUUID();
            ConfirmedSnapshotFiles confirmedFiles = null;
            if (!handles.isEmpty()
                    && handles.stream()
                            .allMatch(h -> h instanceof IncrementalRemoteKeyedStateHandle)) {
                NativeRestoreResult restored = restoreNative(handles, keyGroupPrefixBytes);
                store = restored.store();
                registerRestoredStates(store, restored.stateMetaInfos(), kvStates, timersOnHeap);
                backendIdentifier = restored.backendIdentifier();
                confirmedFiles = restored.confirmedFiles();
            } else {
                store =
                        NativeStore.open(
                                storeDirectory(), memory.getResourceHandle().nativeMemory());
                restoreCanonical(
                        handles,
                        store,
                        kvStates,
                        timerQueues,
                        timerQueueFactory,
                        keyGroupPrefixBytes,
                        timersOnHeap);
            }
            if (config.incrementalCheckpoints() && confirmedFiles == null) {
                confirmedFiles = new ConfirmedSnapshotFiles();
            }
            NativePriorityQueueSetFactory nativeTimers =
                    timersOnHeap
                            ? null
                            : new NativePriorityQueueSetFactory(
                                    keyGroupRange,
                                    numberOfKeyGroups,
                                    keyGroupPrefixBytes,
                                    config.timerCacheSize());
            return new StreamFusionKeyedStateBackend<>(
                    kvStateRegistry,
                    keySerializerProvider.currentSchemaSerializer(),
                    userCodeClassLoader,
                    executionConfig,
                    ttlTimeProvider,
                    latencyTrackingStateConfig,
                    sizeTrackingStateConfig,
                    // The registry we were given only covers the restore (Flink closes it
                    // afterwards); the backend's snapshots get one of their own.
                    new CloseableRegistry(),
                    keyGroupCompressionDecorator,
                    new InternalKeyContextImpl<>(keyGroupRange, numberOfKeyGroups),
                    store,
                    memory,
                    instanceDirectory,
                    keyGroupPrefixBytes,
                    kvStates,
                    timerQueues,
                    timerQueueFactory,
                    nativeTimers,
                    metricGroup,
                    config,
                    backendIdentifier,
                    config.incrementalCheckpoints() ? confirmedFiles : null);
        } catch (Throwable t) {
            kvStates.values()
                    .forEach(registered -> IOUtils.closeQuietly(registered.columnFamily()));
            IOUtils.closeQuietly(store);
            IOUtils.closeQuietly(memory);
            deleteDirectoryQuietly();
            if (t instanceof BackendBuildingException) {
                throw (BackendBuildingException) t;
            }
            throw new BackendBuildingException(
                    "Could not build the StreamFusion keyed backend in "
                            + instanceDirectory
                            + ": "
                            + t.getMessage(),
                    t);
        }
    }

    /** RocksDB's own directory; snapshots and temporary restore instances sit beside it. */
    private File storeDirectory() {
        return new File(instanceDirectory, "db");
    }

    private void createDirectory() throws IOException {
        if (!instanceDirectory.mkdirs() && !instanceDirectory.isDirectory()) {
            throw new IOException(
                    "Could not create the working directory "
                            + instanceDirectory
                            + ". Check that the parent is writable and has free space, or set"
                            + " 'state.backend.streamfusion.localdir' to another directory.");
        }
    }

    private NativeRestoreResult restoreNative(
            List<KeyedStateHandle> handles, int keyGroupPrefixBytes) throws Exception {
        List<IncrementalRemoteKeyedStateHandle> nativeHandles =
                handles.stream().map(IncrementalRemoteKeyedStateHandle.class::cast).toList();
        return new NativeRestoreOperation<>(
                        keyGroupRange,
                        keyGroupPrefixBytes,
                        userCodeClassLoader,
                        nativeHandles,
                        keySerializerProvider,
                        instanceDirectory,
                        storeDirectory(),
                        memory.getResourceHandle().nativeMemory(),
                        cancelStreamRegistry)
                .restore();
    }

    private void registerRestoredStates(
            NativeStore store,
            List<StateMetaInfoSnapshot> states,
            LinkedHashMap<String, RegisteredColumnFamily> kvStates,
            boolean timersOnHeap)
            throws BackendBuildingException {
        for (StateMetaInfoSnapshot state : states) {
            if (timersOnHeap
                    && state.getBackendStateType()
                            == StateMetaInfoSnapshot.BackendStateType.PRIORITY_QUEUE) {
                throw new BackendBuildingException(
                        "The snapshot holds timer queue '"
                                + state.getName()
                                + "' in native timer columnFamilies, but this job"
                                + " sets 'state.backend.streamfusion.timer-service.factory' to HEAP. Native snapshots"
                                + " keep the timer service they were taken with: restore with NATIVE timers, or take"
                                + " a canonical savepoint and restore that with HEAP timers.");
            }
            kvStates.put(
                    state.getName(),
                    new RegisteredColumnFamily(
                            restoredMetaInfo(state), store.openColumnFamily(state.getName())));
        }
    }

    private void restoreCanonical(
            List<KeyedStateHandle> handles,
            NativeStore store,
            LinkedHashMap<String, RegisteredColumnFamily> kvStates,
            LinkedHashMap<String, HeapPriorityQueueSnapshotRestoreWrapper<?>> timerQueues,
            HeapPriorityQueueSetFactory timerQueueFactory,
            int keyGroupPrefixBytes,
            boolean timersOnHeap)
            throws Exception {
        if (handles.isEmpty()) {
            return;
        }
        for (KeyedStateHandle handle : handles) {
            if (!(handle instanceof KeyGroupsStateHandle)) {
                throw new BackendBuildingException(
                        "StreamFusion cannot restore a "
                                + handle.getClass().getSimpleName()
                                + " ("
                                + handle
                                + "). It restores its own native checkpoints and"
                                + " savepoints, and canonical savepoints of any backend. Take a canonical savepoint"
                                + " with the backend that wrote this state, and restore from it.");
            }
        }
        RestoredStateRegistry registry =
                new RestoredStateRegistry() {
                    @Override
                    public NativeColumnFamily columnFor(StateMetaInfoSnapshot metaInfo) {
                        return kvStates.computeIfAbsent(
                                        metaInfo.getName(),
                                        name ->
                                                new RegisteredColumnFamily(
                                                        restoredMetaInfo(metaInfo),
                                                        store.openColumnFamily(name)))
                                .columnFamily();
                    }

                    @Override
                    public void write(
                            List<NativeColumnFamily> columnFamilies, EntryBatchWriter batch) {
                        if (batch.entries() > 0) {
                            store.applyBatch(columnFamilies, batch.toByteArray());
                        }
                        batch.clear();
                    }
                };
        new CanonicalRestoreOperation<>(
                        keyGroupRange,
                        numberOfKeyGroups,
                        keyGroupPrefixBytes,
                        userCodeClassLoader,
                        handles,
                        keySerializerProvider,
                        registry,
                        timerQueues,
                        timerQueueFactory,
                        timersOnHeap,
                        cancelStreamRegistry)
                .restore();
    }

    private static RegisteredStateMetaInfoBase restoredMetaInfo(StateMetaInfoSnapshot snapshot) {
        return snapshot.getBackendStateType()
                        == StateMetaInfoSnapshot.BackendStateType.PRIORITY_QUEUE
                ? new RegisteredPriorityQueueStateBackendMetaInfo<>(snapshot)
                // Also converts the meta infos of Flink's keyed-state V2 backends.
                : RegisteredKeyValueStateBackendMetaInfo.fromMetaInfoSnapshot(snapshot);
    }

    private void deleteDirectoryQuietly() {
        try {
            FileUtils.deleteDirectory(instanceDirectory);
        } catch (IOException e) {
            logger.warn("Could not delete StreamFusion working directory {}", instanceDirectory, e);
        }
    }
}
