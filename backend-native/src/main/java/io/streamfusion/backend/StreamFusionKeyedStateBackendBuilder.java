package io.streamfusion.backend;

import io.streamfusion.api.TimerServiceFactory;
import io.streamfusion.backend.cache.SlotResources;
import io.streamfusion.backend.nativelib.EntryBatchWriter;
import io.streamfusion.backend.nativelib.NativeStateColumn;
import io.streamfusion.backend.nativelib.NativeStore;
import io.streamfusion.backend.restore.CanonicalRestoreOperation;
import io.streamfusion.backend.restore.RestoredStateRegistry;
import io.streamfusion.backend.timers.NativePriorityQueueSetFactory;

import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.memory.OpaqueMemoryResource;
import org.apache.flink.runtime.state.AbstractKeyedStateBackendBuilder;
import org.apache.flink.runtime.state.AbstractStateBackend;
import org.apache.flink.runtime.state.BackendBuildingException;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
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

/**
 * Builds a {@link StreamFusionKeyedStateBackend}: creates its working directory and native
 * store, restores the given snapshots into it, and cleans everything up if any step fails.
 */
final class StreamFusionKeyedStateBackendBuilder<K> extends AbstractKeyedStateBackendBuilder<K> {

    /** Default of Flink's heap timer queues, as in Flink's RocksDB backend. */
    private static final int TIMER_QUEUE_INITIAL_CAPACITY = 128;

    private final StreamFusionConfig config;
    private final File instanceDirectory;
    private final OpaqueMemoryResource<SlotResources> memory;
    private final MetricGroup metricGroup;

    StreamFusionKeyedStateBackendBuilder(
            KeyedStateBackendParameters<K> parameters,
            StreamFusionConfig config,
            File instanceDirectory,
            OpaqueMemoryResource<SlotResources> memory,
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
        LinkedHashMap<String, RegisteredStateColumn> kvStates = new LinkedHashMap<>();
        try {
            createDirectory();
            store = NativeStore.open(instanceDirectory, memory.getResourceHandle().nativeMemory());
            int keyGroupPrefixBytes =
                    CompositeKeySerializationUtils.computeRequiredBytesInKeyGroupPrefix(numberOfKeyGroups);
            LinkedHashMap<String, HeapPriorityQueueSnapshotRestoreWrapper<?>> timerQueues = new LinkedHashMap<>();
            HeapPriorityQueueSetFactory timerQueueFactory =
                    new HeapPriorityQueueSetFactory(keyGroupRange, numberOfKeyGroups, TIMER_QUEUE_INITIAL_CAPACITY);
            boolean timersOnHeap = config.timerService() == TimerServiceFactory.HEAP;
            restore(store, kvStates, timerQueues, timerQueueFactory, keyGroupPrefixBytes, timersOnHeap);
            NativePriorityQueueSetFactory nativeTimers =
                    timersOnHeap
                            ? null
                            : new NativePriorityQueueSetFactory(
                                    keyGroupRange, numberOfKeyGroups, keyGroupPrefixBytes, config.timerCacheSize());
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
                    config);
        } catch (Throwable t) {
            kvStates.values().forEach(registered -> IOUtils.closeQuietly(registered.column()));
            IOUtils.closeQuietly(store);
            IOUtils.closeQuietly(memory);
            deleteDirectoryQuietly();
            if (t instanceof BackendBuildingException) {
                throw (BackendBuildingException) t;
            }
            throw new BackendBuildingException(
                    "Could not build the StreamFusion keyed backend in " + instanceDirectory + ": " + t.getMessage(),
                    t);
        }
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

    private void restore(
            NativeStore store,
            LinkedHashMap<String, RegisteredStateColumn> kvStates,
            LinkedHashMap<String, HeapPriorityQueueSnapshotRestoreWrapper<?>> timerQueues,
            HeapPriorityQueueSetFactory timerQueueFactory,
            int keyGroupPrefixBytes,
            boolean timersOnHeap)
            throws Exception {
        List<KeyedStateHandle> handles =
                restoreStateHandles.stream().filter(Objects::nonNull).toList();
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
                                + "). It restores canonical snapshots: its own checkpoints and"
                                + " canonical savepoints of any backend. Take a canonical savepoint"
                                + " with the backend that wrote this state, and restore from it.");
            }
        }
        RestoredStateRegistry registry =
                new RestoredStateRegistry() {
                    @Override
                    public NativeStateColumn columnFor(StateMetaInfoSnapshot metaInfo) {
                        return kvStates.computeIfAbsent(
                                        metaInfo.getName(),
                                        name ->
                                                new RegisteredStateColumn(
                                                        restoredMetaInfo(metaInfo), store.openColumn(name)))
                                .column();
                    }

                    @Override
                    public void write(List<NativeStateColumn> columns, EntryBatchWriter batch) {
                        if (batch.entries() > 0) {
                            store.applyBatch(columns, batch.toByteArray());
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
        return snapshot.getBackendStateType() == StateMetaInfoSnapshot.BackendStateType.PRIORITY_QUEUE
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
