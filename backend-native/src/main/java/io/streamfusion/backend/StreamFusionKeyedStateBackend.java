package io.streamfusion.backend;

import io.streamfusion.api.BatchKeyedStateBackend;
import io.streamfusion.api.BatchValueState;
import io.streamfusion.api.CandidateIndexBackend;
import io.streamfusion.api.CandidateIndexState;
import io.streamfusion.api.columnar.ColumnarKeyedStateBackend;
import io.streamfusion.api.columnar.ElementTableState;
import io.streamfusion.api.columnar.FlinkUpsertState;
import io.streamfusion.api.columnar.GroupAggregator;
import io.streamfusion.api.columnar.GroupAggregatorSpec;
import io.streamfusion.api.columnar.Top1Ranker;
import io.streamfusion.api.columnar.Top1RankerSpec;
import io.streamfusion.api.columnar.UpsertMaterializer;
import io.streamfusion.api.columnar.UpsertMaterializerSpec;
import io.streamfusion.backend.cache.DecodedValueCache;
import io.streamfusion.backend.cache.StateValueCache;
import io.streamfusion.backend.columnar.ColumnarKernelContext;
import io.streamfusion.backend.columnar.EmittedFlags;
import io.streamfusion.backend.columnar.GroupAggregatorFactory;
import io.streamfusion.backend.columnar.Top1RankerFactory;
import io.streamfusion.backend.columnar.UpsertMaterializerFactory;
import io.streamfusion.backend.memory.SlotMemory;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeGroupAggregator;
import io.streamfusion.backend.nativelib.NativeSlotMemory;
import io.streamfusion.backend.nativelib.NativeStore;
import io.streamfusion.backend.snapshot.CanonicalSnapshotResources;
import io.streamfusion.backend.snapshot.ConfirmedSnapshotFiles;
import io.streamfusion.backend.snapshot.NativeSnapshotStrategy;
import io.streamfusion.backend.state.AbstractStreamFusionState;
import io.streamfusion.backend.state.CandidateIndexExpiry;
import io.streamfusion.backend.state.CandidateIndexMemo;
import io.streamfusion.backend.state.ColumnFamilyKeys;
import io.streamfusion.backend.state.KeyedStateContext;
import io.streamfusion.backend.state.SerializedSnapshotTransformFactory;
import io.streamfusion.backend.state.SkippedCorruptEntries;
import io.streamfusion.backend.state.StateKinds;
import io.streamfusion.backend.state.StateValueMigration;
import io.streamfusion.backend.state.StreamFusionBatchValueState;
import io.streamfusion.backend.state.StreamFusionCandidateIndexState;
import io.streamfusion.backend.state.StreamFusionValueState;
import io.streamfusion.backend.timers.NativePriorityQueueSetFactory;
import io.streamfusion.backend.ttl.TtlCompactionFilters;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.checkpoint.SnapshotType;
import org.apache.flink.runtime.memory.OpaqueMemoryResource;
import org.apache.flink.runtime.query.TaskKvStateRegistry;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.HeapPriorityQueuesManager;
import org.apache.flink.runtime.state.InternalKeyContext;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.Keyed;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PriorityComparable;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.RegisteredPriorityQueueStateBackendMetaInfo;
import org.apache.flink.runtime.state.SavepointResources;
import org.apache.flink.runtime.state.SerializedCompositeKeyBuilder;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.SnapshotStrategyRunner;
import org.apache.flink.runtime.state.StateSnapshotTransformer.StateSnapshotTransformFactory;
import org.apache.flink.runtime.state.StreamCompressionDecorator;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSetFactory;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSnapshotRestoreWrapper;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.runtime.state.metrics.LatencyTrackingStateConfig;
import org.apache.flink.runtime.state.metrics.SizeTrackingStateConfig;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.FileUtils;
import org.apache.flink.util.FlinkRuntimeException;
import org.apache.flink.util.IOUtils;
import org.apache.flink.util.ResourceGuard;
import org.apache.flink.util.StateMigrationException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nonnull;
import javax.annotation.Nullable;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.apache.flink.runtime.state.SnapshotExecutionType.ASYNCHRONOUS;

/**
 * The keyed state backend of StreamFusion: one native RocksDB instance, one column family per
 * registered state, keys in Flink's canonical composite layout. Timers live in native timer column
 * families or, in HEAP mode, in Flink's heap priority queues. Like Flink's RocksDB backend, it is
 * used by one task thread, except for the asynchronous part of snapshots, which holds a {@link
 * ResourceGuard} lease.
 */
public class StreamFusionKeyedStateBackend<K> extends AbstractKeyedStateBackend<K>
        implements BatchKeyedStateBackend<K>, CandidateIndexBackend<K>, ColumnarKeyedStateBackend {

    /** The identifier returned by {@link #getBackendTypeIdentifier()}. */
    public static final String BACKEND_TYPE_IDENTIFIER = "streamfusion";

    private static final String ROW_DATA_SERIALIZER =
            "org.apache.flink.table.runtime.typeutils.RowDataSerializer";

    private static final Logger LOG = LoggerFactory.getLogger(StreamFusionKeyedStateBackend.class);
    private static final AtomicLong NEXT_CACHE_OWNER = new AtomicLong();

    private final NativeStore store;
    private final OpaqueMemoryResource<SlotMemory> memory;
    @Nullable private final DecodedValueCache valueCache;
    private final File instanceDirectory;
    private final int keyGroupPrefixBytes;
    private final LinkedHashMap<String, RegisteredColumnFamily> kvStateInformation;
    private final Map<String, State> createdKvStates = new HashMap<>();
    private final SkippedCorruptEntries skippedCorruptEntries = new SkippedCorruptEntries();
    private final HeapPriorityQueuesManager heapPriorityQueuesManager;

    /** Null when timers live on the heap. */
    @Nullable private final NativePriorityQueueSetFactory nativeQueueFactory;

    private final Map<String, NativeTimerQueue<?>> nativeQueues = new HashMap<>();

    /** One per candidate index, shared by all its views (see CandidateIndexMemo). */
    private final Map<String, CandidateIndexMemo> candidateIndexMemos = new HashMap<>();

    private final StreamFusionConfig config;

    /** Identifies this backend's entries in the slot's shared decoded-value cache. */
    private final long cacheOwnerId = NEXT_CACHE_OWNER.incrementAndGet();

    private final LinkedHashMap<String, HeapPriorityQueueSnapshotRestoreWrapper<?>>
            registeredPQStates;
    private final SerializedCompositeKeyBuilder<K> sharedKeyBuilder;
    private final ResourceGuard storeResourceGuard = new ResourceGuard();
    private final NativeSnapshotStrategy<K> checkpointSnapshotStrategy;

    /**
     * Every column family, readable by metric reporter threads while the task registers new ones.
     */
    private final List<NativeColumnFamily> metricColumnFamilies = new CopyOnWriteArrayList<>();

    private final KeyedStateContext<K> stateContext = new StateContext();

    /** Rankers not closed by their operators are closed with the backend. */
    /** The columnar kernels opened over this backend's states, closed when it is disposed. */
    private final List<AutoCloseable> openKernels = new ArrayList<>();

    /** The value serializers of the key/value states this backend restored, by state name. */
    private final Map<String, TypeSerializer<?>> restoredStateSerializers = new HashMap<>();

    private boolean disposed;

    StreamFusionKeyedStateBackend(
            TaskKvStateRegistry kvStateRegistry,
            TypeSerializer<K> keySerializer,
            ClassLoader userCodeClassLoader,
            ExecutionConfig executionConfig,
            TtlTimeProvider ttlTimeProvider,
            LatencyTrackingStateConfig latencyTrackingStateConfig,
            SizeTrackingStateConfig sizeTrackingStateConfig,
            CloseableRegistry cancelStreamRegistry,
            StreamCompressionDecorator keyGroupCompressionDecorator,
            InternalKeyContext<K> keyContext,
            NativeStore store,
            OpaqueMemoryResource<SlotMemory> memory,
            File instanceDirectory,
            int keyGroupPrefixBytes,
            LinkedHashMap<String, RegisteredColumnFamily> kvStateInformation,
            LinkedHashMap<String, HeapPriorityQueueSnapshotRestoreWrapper<?>> registeredPQStates,
            HeapPriorityQueueSetFactory heapQueueFactory,
            @Nullable NativePriorityQueueSetFactory nativeQueueFactory,
            MetricGroup metricGroup,
            StreamFusionConfig config,
            UUID backendIdentifier,
            @Nullable ConfirmedSnapshotFiles confirmedSnapshotFiles) {
        super(
                kvStateRegistry,
                keySerializer,
                userCodeClassLoader,
                executionConfig,
                ttlTimeProvider,
                latencyTrackingStateConfig,
                sizeTrackingStateConfig,
                cancelStreamRegistry,
                keyGroupCompressionDecorator,
                keyContext);
        this.store = store;
        this.memory = memory;
        this.valueCache = memory.getResourceHandle().valueCache();
        this.instanceDirectory = instanceDirectory;
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.kvStateInformation = kvStateInformation;
        kvStateInformation.forEach(
                (name, registered) -> {
                    if (registered.isKeyValueState()) {
                        restoredStateSerializers.put(
                                name, registered.keyValueMetaInfo().getStateSerializer());
                    }
                });
        this.registeredPQStates = registeredPQStates;
        this.heapPriorityQueuesManager =
                new HeapPriorityQueuesManager(
                        registeredPQStates,
                        heapQueueFactory,
                        keyContext.getKeyGroupRange(),
                        keyContext.getNumberOfKeyGroups());
        this.nativeQueueFactory = nativeQueueFactory;
        this.config = config;
        this.sharedKeyBuilder =
                new SerializedCompositeKeyBuilder<>(keySerializer, keyGroupPrefixBytes, 32);
        this.checkpointSnapshotStrategy =
                new NativeSnapshotStrategy<>(
                        store,
                        storeResourceGuard,
                        this::stateMetaInfoSnapshots,
                        keySerializer,
                        keyContext.getKeyGroupRange(),
                        keyGroupPrefixBytes,
                        instanceDirectory,
                        backendIdentifier,
                        confirmedSnapshotFiles);
        kvStateInformation
                .values()
                .forEach(registered -> metricColumnFamilies.add(registered.columnFamily()));
        BackendMetrics.register(
                metricGroup,
                storeResourceGuard,
                memory.getResourceHandle().nativeMemory(),
                memory.getResourceHandle().valueCache(),
                metricColumnFamilies,
                checkpointSnapshotStrategy.timings(),
                skippedCorruptEntries);
    }

    // ------------------------------------------------------------------------
    //  What the state kinds see of this backend
    // ------------------------------------------------------------------------

    /** The only view of this backend that its states get. */
    private final class StateContext implements KeyedStateContext<K> {
        @Override
        public NativeStore store() {
            return store;
        }

        @Override
        public SerializedCompositeKeyBuilder<K> sharedKeyBuilder() {
            return sharedKeyBuilder;
        }

        @Override
        public TypeSerializer<K> keySerializer() {
            return keySerializer;
        }

        @Override
        public int keyGroupPrefixBytes() {
            return keyGroupPrefixBytes;
        }

        @Override
        public int numberOfKeyGroups() {
            return numberOfKeyGroups;
        }

        @Override
        public ResourceGuard.Lease storeLease() throws IOException {
            return storeResourceGuard.acquireResource();
        }

        @Override
        public TtlTimeProvider ttlTimeProvider() {
            return ttlTimeProvider;
        }

        @Override
        public SkippedCorruptEntries skippedCorruptEntries() {
            return skippedCorruptEntries;
        }

        @Override
        @Nullable
        public <V> StateValueCache<V> valueCacheFor(
                String stateName,
                TypeSerializer<V> serializer,
                StateValueCache.StoredBytesDecoder<V> bytesDecoder) {
            DecodedValueCache cache = memory.getResourceHandle().valueCache();
            return cache != null && config.cachesState(stateName)
                    ? new StateValueCache<>(cache, cacheOwnerId, serializer, bytesDecoder)
                    : null;
        }
    }

    /** The native store; for tests that count what reached the native side. */
    @VisibleForTesting
    public NativeStore nativeStore() {
        return store;
    }

    /** The slot memory this backend's store uses, shared with the slot's other backends. */
    NativeSlotMemory slotMemory() {
        return memory.getResourceHandle().nativeMemory();
    }

    @VisibleForTesting
    int getKeyGroupPrefixBytes() {
        return keyGroupPrefixBytes;
    }

    @VisibleForTesting
    SkippedCorruptEntries skippedCorruptEntries() {
        return skippedCorruptEntries;
    }

    /** The slot's decoded-value cache, or null; for tests. */
    @Nullable
    DecodedValueCache slotCacheForTests() {
        return memory.getResourceHandle().valueCache();
    }

    @Override
    public void setCurrentKey(K newKey) {
        super.setCurrentKey(newKey);
        sharedKeyBuilder.setKeyAndKeyGroup(getCurrentKey(), getCurrentKeyGroupIndex());
        countKey();
    }

    @Override
    public void setCurrentKeyAndKeyGroup(K newKey, int newKeyGroupIndex) {
        super.setCurrentKeyAndKeyGroup(newKey, newKeyGroupIndex);
        sharedKeyBuilder.setKeyAndKeyGroup(getCurrentKey(), getCurrentKeyGroupIndex());
        countKey();
    }

    /** Lets the slot's decoded-value cache see the pace of work, to check its loan by. */
    private void countKey() {
        if (valueCache != null) {
            valueCache.countKey();
        }
    }

    // ------------------------------------------------------------------------
    //  State registration
    // ------------------------------------------------------------------------

    @Nonnull
    @Override
    public <N, SV, SEV, S extends State, IS extends S> IS createOrUpdateInternalState(
            @Nonnull TypeSerializer<N> namespaceSerializer,
            @Nonnull StateDescriptor<S, SV> stateDesc,
            @Nonnull StateSnapshotTransformFactory<SEV> snapshotTransformFactory)
            throws Exception {
        return createOrUpdateInternalState(
                namespaceSerializer, stateDesc, snapshotTransformFactory, false);
    }

    @Nonnull
    @Override
    @SuppressWarnings("unchecked")
    public <N, SV, SEV, S extends State, IS extends S> IS createOrUpdateInternalState(
            @Nonnull TypeSerializer<N> namespaceSerializer,
            @Nonnull StateDescriptor<S, SV> stateDesc,
            @Nonnull StateSnapshotTransformFactory<SEV> snapshotTransformFactory,
            boolean allowFutureMetadataUpdates)
            throws Exception {
        Tuple2<RegisteredColumnFamily, RegisteredKeyValueStateBackendMetaInfo<N, SV>> registered =
                registerKvState(
                        stateDesc,
                        namespaceSerializer,
                        snapshotTransformFactory,
                        allowFutureMetadataUpdates);
        State existing = createdKvStates.get(stateDesc.getName());
        if (existing != null) {
            ((AbstractStreamFusionState<K, N, SV>) existing)
                    .updateRegistration(registered.f1, stateDesc.getDefaultValue());
            return (IS) existing;
        }
        State created =
                StateKinds.create(
                        stateContext, stateDesc, registered.f0.columnFamily(), registered.f1);
        createdKvStates.put(stateDesc.getName(), created);
        return (IS) created;
    }

    @SuppressWarnings("unchecked")
    private <N, SV, SEV>
            Tuple2<RegisteredColumnFamily, RegisteredKeyValueStateBackendMetaInfo<N, SV>>
                    registerKvState(
                            StateDescriptor<?, SV> stateDesc,
                            TypeSerializer<N> namespaceSerializer,
                            StateSnapshotTransformFactory<SEV> snapshotTransformFactory,
                            boolean allowFutureMetadataUpdates)
                            throws Exception {
        RegisteredColumnFamily existing = kvStateInformation.get(stateDesc.getName());
        RegisteredKeyValueStateBackendMetaInfo<N, SV> metaInfo;
        RegisteredColumnFamily registered;
        if (existing != null) {
            if (!existing.isKeyValueState()) {
                throw new FlinkRuntimeException(
                        "State '"
                                + stateDesc.getName()
                                + "' is a timer queue and cannot be used as key/value state");
            }
            metaInfo = (RegisteredKeyValueStateBackendMetaInfo<N, SV>) existing.metaInfo();
            checkRestoredCompatibility(
                    metaInfo, stateDesc, namespaceSerializer, existing.columnFamily());
            registered = existing;
        } else {
            metaInfo =
                    new RegisteredKeyValueStateBackendMetaInfo<>(
                            stateDesc.getType(),
                            stateDesc.getName(),
                            namespaceSerializer,
                            stateDesc.getSerializer(),
                            StateSnapshotTransformFactory.noTransform());
            registered =
                    new RegisteredColumnFamily(
                            metaInfo, store.openColumnFamily(stateDesc.getName()));
            kvStateInformation.put(stateDesc.getName(), registered);
            metricColumnFamilies.add(registered.columnFamily());
        }
        if (allowFutureMetadataUpdates) {
            metaInfo = metaInfo.withSerializerUpgradesAllowed();
        }
        metaInfo.updateSnapshotTransformFactory(
                SerializedSnapshotTransformFactory.forState(
                        stateDesc, snapshotTransformFactory, metaInfo.getStateSerializer()));
        registered.updateMetaInfo(metaInfo);
        TtlCompactionFilters.configure(
                registered.columnFamily(), stateDesc, ttlTimeProvider, config.ttlCompaction());
        return Tuple2.of(registered, metaInfo);
    }

    private <N, SV> void checkRestoredCompatibility(
            RegisteredKeyValueStateBackendMetaInfo<N, SV> restored,
            StateDescriptor<?, SV> stateDesc,
            TypeSerializer<N> namespaceSerializer,
            NativeColumnFamily columnFamily)
            throws Exception {
        TypeSerializer<N> previousNamespaceSerializer = restored.getNamespaceSerializer();
        TypeSerializerSchemaCompatibility<N> namespaceCompatibility =
                restored.updateNamespaceSerializer(namespaceSerializer);
        if (!namespaceCompatibility.isCompatibleAsIs()
                && !namespaceCompatibility.isCompatibleWithReconfiguredSerializer()) {
            throw new StateMigrationException(
                    "State '"
                            + stateDesc.getName()
                            + "': the new namespace serializer ("
                            + namespaceSerializer
                            + ") must be compatible with the old namespace serializer ("
                            + previousNamespaceSerializer
                            + ").");
        }
        restored.checkStateMetaInfo(stateDesc);
        TypeSerializer<SV> previousStateSerializer = restored.getStateSerializer();
        TypeSerializerSchemaCompatibility<SV> stateCompatibility =
                restored.updateStateSerializer(stateDesc.getSerializer());
        if (stateCompatibility.isCompatibleAfterMigration()) {
            LOG.info(
                    "Migrating the stored values of state '{}' to its new serializer",
                    stateDesc.getName());
            StateValueMigration.migrate(stateContext, stateDesc, columnFamily, restored);
        }
        if (stateCompatibility.isIncompatible()) {
            throw new StateMigrationException(
                    "State '"
                            + stateDesc.getName()
                            + "': the new state serializer ("
                            + stateDesc.getSerializer()
                            + ") must not be incompatible with the old state serializer ("
                            + previousStateSerializer
                            + ").");
        }
    }

    @Override
    public <V> BatchValueState<K, V> getBatchValueState(ValueStateDescriptor<V> descriptor)
            throws Exception {
        if (descriptor.getTtlConfig().isEnabled()) {
            throw new UnsupportedOperationException(
                    "Batch access to state '"
                            + descriptor.getName()
                            + "' with TTL is not supported; use"
                            + " per-record access for states with TTL.");
        }
        getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
        RegisteredColumnFamily registered = kvStateInformation.get(descriptor.getName());
        @SuppressWarnings("unchecked")
        TypeSerializer<V> valueSerializer =
                (TypeSerializer<V>) registered.keyValueMetaInfo().getStateSerializer();
        @SuppressWarnings("unchecked")
        StreamFusionValueState<K, VoidNamespace, V> perRecord =
                (StreamFusionValueState<K, VoidNamespace, V>)
                        createdKvStates.get(descriptor.getName());
        return new StreamFusionBatchValueState<>(
                store,
                registered.columnFamily(),
                perRecord.cache(),
                keySerializer,
                valueSerializer,
                keyGroupPrefixBytes,
                numberOfKeyGroups,
                keyGroupRange);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V> CandidateIndexState<V> getCandidateIndexState(
            String name, TypeSerializer<V> candidateSerializer, StateTtlConfig ttlConfig)
            throws Exception {
        // Registered as an ordinary map state: snapshots, rescaling and savepoints carry it as
        // such.
        getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new MapStateDescriptor<>(
                        name,
                        BytePrimitiveArraySerializer.INSTANCE,
                        BytePrimitiveArraySerializer.INSTANCE));
        RegisteredColumnFamily registered = kvStateInformation.get(name);
        return new StreamFusionCandidateIndexState<>(
                stateContext,
                registered.columnFamily(),
                (RegisteredKeyValueStateBackendMetaInfo<VoidNamespace, Map<byte[], byte[]>>)
                        registered.keyValueMetaInfo(),
                candidateSerializer,
                CandidateIndexExpiry.of(ttlConfig, ttlTimeProvider),
                candidateIndexMemos.computeIfAbsent(
                        name,
                        unused ->
                                StreamFusionCandidateIndexState.newMemo(
                                        registered.columnFamily())));
    }

    @Override
    public Top1Ranker openTop1Ranker(
            ValueStateDescriptor<?> winnerState,
            @Nullable ValueStateDescriptor<Boolean> emittedFlags,
            Top1RankerSpec spec,
            long batchSchemaAddress)
            throws Exception {
        checkRowDataSerializer("key", keySerializer);
        // Registers the state as getState would, which also initializes its serializer.
        getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, winnerState);
        String value = "value of state '" + winnerState.getName() + "'";
        if (spec.keepsRows()) {
            checkRowDataSerializer(value, winnerState.getSerializer());
        } else {
            checkBooleanSerializer(value, winnerState.getSerializer());
        }
        EmittedFlags flags = null;
        if (emittedFlags != null) {
            getPartitionedState(
                    VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, emittedFlags);
            checkBooleanSerializer(
                    "value of state '" + emittedFlags.getName() + "'",
                    emittedFlags.getSerializer());
            flags =
                    new EmittedFlags(
                            kvStateInformation.get(emittedFlags.getName()).columnFamily(),
                            emittedFlags);
        }
        RegisteredColumnFamily registered = kvStateInformation.get(winnerState.getName());
        Top1Ranker ranker =
                Top1RankerFactory.open(
                        registered.columnFamily(),
                        winnerState,
                        flags,
                        spec,
                        kernelContext(),
                        batchSchemaAddress);
        openKernels.add(ranker);
        return ranker;
    }

    @Override
    public GroupAggregator openGroupAggregator(
            ValueStateDescriptor<?> accState,
            List<ElementTableState> elementTables,
            GroupAggregatorSpec spec,
            long batchSchemaAddress)
            throws Exception {
        checkRowDataSerializer("key", keySerializer);
        getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, accState);
        checkRowDataSerializer(
                "value of state '" + accState.getName() + "'", accState.getSerializer());
        List<NativeGroupAggregator.ElementTable> tables = new ArrayList<>();
        for (ElementTableState table : elementTables) {
            tables.add(
                    new NativeGroupAggregator.ElementTable(
                            registeredColumnFamily(table.map()),
                            table.nulls() == null ? null : registeredColumnFamily(table.nulls())));
        }
        GroupAggregator aggregator =
                GroupAggregatorFactory.open(
                        kvStateInformation.get(accState.getName()).columnFamily(),
                        tables,
                        accState,
                        elementTables,
                        spec,
                        kernelContext(),
                        batchSchemaAddress);
        openKernels.add(aggregator);
        return aggregator;
    }

    /** The column family of {@code descriptor}'s state, registered in the void namespace. */
    private NativeColumnFamily registeredColumnFamily(StateDescriptor<?, ?> descriptor)
            throws Exception {
        getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
        return kvStateInformation.get(descriptor.getName()).columnFamily();
    }

    @Override
    public UpsertMaterializer openUpsertMaterializer(
            String indexName,
            StateTtlConfig ttlConfig,
            @Nullable FlinkUpsertState flinkState,
            UpsertMaterializerSpec spec,
            long batchSchemaAddress)
            throws Exception {
        checkRowDataSerializer("key", keySerializer);
        getCandidateIndexState(indexName, BytePrimitiveArraySerializer.INSTANCE, ttlConfig);
        NativeColumnFamily flinkList = null;
        if (flinkState != null) {
            getPartitionedState(
                    VoidNamespace.INSTANCE,
                    VoidNamespaceSerializer.INSTANCE,
                    flinkState.descriptor());
            flinkList = kvStateInformation.get(flinkState.descriptor().getName()).columnFamily();
        }
        UpsertMaterializer materializer =
                UpsertMaterializerFactory.open(
                        kvStateInformation.get(indexName).columnFamily(),
                        ttlConfig,
                        flinkList,
                        flinkState,
                        spec,
                        kernelContext(),
                        batchSchemaAddress);
        openKernels.add(materializer);
        return materializer;
    }

    private ColumnarKernelContext kernelContext() {
        return new ColumnarKernelContext(
                keyGroupPrefixBytes, numberOfKeyGroups, keyGroupRange, ttlTimeProvider);
    }

    @Nullable
    @Override
    public TypeSerializer<?> restoredStateSerializer(String name) {
        return restoredStateSerializers.get(name);
    }

    /** Native kernels read the bytes of Flink's {@code RowDataSerializer} and nothing else. */
    private static void checkRowDataSerializer(String what, TypeSerializer<?> serializer) {
        if (!ROW_DATA_SERIALIZER.equals(serializer.getClass().getName())) {
            throw new UnsupportedOperationException(
                    "A columnar kernel needs the "
                            + what
                            + " serialized by Flink's RowDataSerializer, not "
                            + serializer.getClass().getName());
        }
    }

    private static void checkBooleanSerializer(String what, TypeSerializer<?> serializer) {
        if (!(serializer instanceof BooleanSerializer)) {
            throw new UnsupportedOperationException(
                    "A columnar kernel that keeps seen flags needs the "
                            + what
                            + " serialized by Flink's BooleanSerializer, not "
                            + serializer.getClass().getName());
        }
    }

    // ------------------------------------------------------------------------
    //  Timers
    // ------------------------------------------------------------------------

    @Nonnull
    @Override
    public <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> create(
                    @Nonnull String stateName,
                    @Nonnull TypeSerializer<T> byteOrderedElementSerializer) {
        return create(stateName, byteOrderedElementSerializer, false);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> create(
                    @Nonnull String stateName,
                    @Nonnull TypeSerializer<T> byteOrderedElementSerializer,
                    boolean allowFutureMetadataUpdates) {
        if (nativeQueueFactory == null) {
            return heapPriorityQueuesManager.createOrUpdate(
                    stateName, byteOrderedElementSerializer, allowFutureMetadataUpdates);
        }
        NativeTimerQueue<?> existing = nativeQueues.get(stateName);
        if (existing != null && existing.serializer == byteOrderedElementSerializer) {
            return (KeyGroupedInternalPriorityQueue<T>) existing.queue;
        }
        RegisteredColumnFamily registered =
                registerPriorityQueue(
                        stateName, byteOrderedElementSerializer, allowFutureMetadataUpdates);
        // A changed serializer needs a fresh queue: the old one's cache holds bytes of the old
        // format.
        KeyGroupedInternalPriorityQueue<T> queue =
                nativeQueueFactory.create(registered.columnFamily(), byteOrderedElementSerializer);
        nativeQueues.put(stateName, new NativeTimerQueue<>(byteOrderedElementSerializer, queue));
        return queue;
    }

    /** A native timer queue and the serializer it was built with. */
    private static final class NativeTimerQueue<T> {
        final TypeSerializer<T> serializer;
        final KeyGroupedInternalPriorityQueue<T> queue;

        NativeTimerQueue(TypeSerializer<T> serializer, KeyGroupedInternalPriorityQueue<T> queue) {
            this.serializer = serializer;
            this.queue = queue;
        }
    }

    /** Registers (or re-registers) a native timer queue, as Flink's RocksDB backend does. */
    private <T> RegisteredColumnFamily registerPriorityQueue(
            String stateName, TypeSerializer<T> serializer, boolean allowFutureMetadataUpdates) {
        RegisteredColumnFamily existing = kvStateInformation.get(stateName);
        if (existing == null) {
            RegisteredPriorityQueueStateBackendMetaInfo<T> metaInfo =
                    new RegisteredPriorityQueueStateBackendMetaInfo<>(stateName, serializer);
            RegisteredColumnFamily registered =
                    new RegisteredColumnFamily(
                            allowFutureMetadataUpdates
                                    ? metaInfo.withSerializerUpgradesAllowed()
                                    : metaInfo,
                            store.openColumnFamily(stateName));
            kvStateInformation.put(stateName, registered);
            metricColumnFamilies.add(registered.columnFamily());
            return registered;
        }
        if (existing.isKeyValueState()) {
            throw new FlinkRuntimeException(
                    "State '"
                            + stateName
                            + "' is a key/value state and cannot be used as a timer queue");
        }
        @SuppressWarnings("unchecked")
        RegisteredPriorityQueueStateBackendMetaInfo<T> restored =
                (RegisteredPriorityQueueStateBackendMetaInfo<T>) existing.metaInfo();
        if (restored.getPreviousElementSerializer() != serializer) {
            TypeSerializerSchemaCompatibility<T> compatibility =
                    restored.updateElementSerializer(serializer);
            if (compatibility.isIncompatible()) {
                throw new FlinkRuntimeException(
                        new StateMigrationException(
                                "Timer queue '"
                                        + stateName
                                        + "': the new priority queue serializer must not be"
                                        + " incompatible."));
            }
            RegisteredPriorityQueueStateBackendMetaInfo<T> metaInfo =
                    new RegisteredPriorityQueueStateBackendMetaInfo<>(stateName, serializer);
            existing.updateMetaInfo(
                    allowFutureMetadataUpdates
                            ? metaInfo.withSerializerUpgradesAllowed()
                            : metaInfo);
        }
        return existing;
    }

    @Override
    public boolean requiresLegacySynchronousTimerSnapshots(SnapshotType checkpointType) {
        // Heap timers are written by the timer service into raw keyed state for checkpoints and
        // native savepoints, whose RocksDB files cannot hold heap queues; canonical savepoints
        // carry them in the key-grouped stream instead. Native timers are ordinary column families
        // in
        // every snapshot.
        return nativeQueueFactory == null && !isCanonicalSavepoint(checkpointType);
    }

    private static boolean isCanonicalSavepoint(SnapshotType type) {
        return type.isSavepoint()
                && ((SavepointType) type).getFormatType() == SavepointFormatType.CANONICAL;
    }

    @Override
    public boolean isSafeToReuseKVState() {
        // Same rule as Flink's RocksDB backend: unsafe only with heap timers.
        return nativeQueueFactory != null;
    }

    // ------------------------------------------------------------------------
    //  Keys
    // ------------------------------------------------------------------------

    @Override
    @SuppressWarnings("unchecked")
    public <N> Stream<K> getKeys(String state, N namespace) {
        RegisteredColumnFamily registered = kvStateInformation.get(state);
        if (registered == null || !registered.isKeyValueState()) {
            return Stream.empty();
        }
        return ColumnFamilyKeys.keys(
                stateContext,
                registered.columnFamily(),
                (TypeSerializer<N>) registered.keyValueMetaInfo().getNamespaceSerializer(),
                namespace);
    }

    @Override
    public <N> Stream<K> getKeys(List<String> states, N namespace) {
        return states.stream().flatMap(state -> getKeys(state, namespace)).distinct();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <N> Stream<Tuple2<K, N>> getKeysAndNamespaces(String state) {
        RegisteredColumnFamily registered = kvStateInformation.get(state);
        if (registered == null || !registered.isKeyValueState()) {
            return Stream.empty();
        }
        return ColumnFamilyKeys.keysAndNamespaces(
                stateContext,
                registered.columnFamily(),
                (TypeSerializer<N>) registered.keyValueMetaInfo().getNamespaceSerializer());
    }

    @Override
    public int numKeyValueStateEntries() {
        long count = 0;
        for (RegisteredColumnFamily registered : kvStateInformation.values()) {
            count += registered.columnFamily().countEntries();
        }
        return Math.toIntExact(count);
    }

    // ------------------------------------------------------------------------
    //  Snapshots
    // ------------------------------------------------------------------------

    /**
     * Checkpoints and native savepoints: both go through the native snapshot strategy, which shares
     * files between checkpoints only in incremental mode and never with savepoints. Flink takes
     * canonical savepoints through {@link #savepoint()} instead.
     */
    @Nonnull
    @Override
    public RunnableFuture<SnapshotResult<KeyedStateHandle>> snapshot(
            long checkpointId,
            long timestamp,
            @Nonnull CheckpointStreamFactory streamFactory,
            @Nonnull CheckpointOptions checkpointOptions)
            throws Exception {
        flushCandidateIndexCounters();
        return new SnapshotStrategyRunner<>(
                        checkpointSnapshotStrategy.getDescription(),
                        checkpointSnapshotStrategy,
                        cancelStreamRegistry,
                        ASYNCHRONOUS)
                .snapshot(checkpointId, timestamp, streamFactory, checkpointOptions);
    }

    private List<StateMetaInfoSnapshot> stateMetaInfoSnapshots() {
        List<StateMetaInfoSnapshot> snapshots = new ArrayList<>(kvStateInformation.size());
        kvStateInformation
                .values()
                .forEach(registered -> snapshots.add(registered.metaInfo().snapshot()));
        return snapshots;
    }

    /**
     * A canonical savepoint: one ordered native scan written by Flink's {@code
     * FullSnapshotAsyncWriter}. Native timers are column families and always included; heap timers
     * are included too, since the timer service writes them to raw keyed state only for checkpoints
     * and native savepoints.
     */
    @Nonnull
    @Override
    public SavepointResources<K> savepoint() throws Exception {
        flushCandidateIndexCounters();
        return new SavepointResources<>(
                CanonicalSnapshotResources.create(
                        store,
                        storeResourceGuard,
                        new ArrayList<>(kvStateInformation.values()),
                        registeredPQStates.values(),
                        keyGroupRange,
                        keySerializer,
                        keyGroupPrefixBytes,
                        keyGroupCompressionDecorator),
                ASYNCHRONOUS);
    }

    /**
     * Candidate index counters are written back (see CandidateIndexMemo): a snapshot must see them.
     */
    private void flushCandidateIndexCounters() {
        candidateIndexMemos.values().forEach(CandidateIndexMemo::flush);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        checkpointSnapshotStrategy.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        checkpointSnapshotStrategy.notifyCheckpointAborted(checkpointId);
    }

    // ------------------------------------------------------------------------
    //  Lifecycle
    // ------------------------------------------------------------------------

    @Override
    public String getBackendTypeIdentifier() {
        return BACKEND_TYPE_IDENTIFIER;
    }

    @Override
    public void dispose() {
        if (disposed) {
            return;
        }
        disposed = true;
        openKernels.forEach(IOUtils::closeQuietly);
        openKernels.clear();
        super.dispose();
        // Blocks until every snapshot holding a lease has released it, so no native call can
        // run on a freed store.
        storeResourceGuard.close();
        for (RegisteredColumnFamily registered : kvStateInformation.values()) {
            IOUtils.closeQuietly(registered.columnFamily());
        }
        kvStateInformation.clear();
        metricColumnFamilies.clear();
        createdKvStates.clear();
        nativeQueues.clear();
        IOUtils.closeQuietly(store);
        DecodedValueCache cache = memory.getResourceHandle().valueCache();
        if (cache != null) {
            cache.invalidateOwner(cacheOwnerId);
        }
        // Releases this backend's lease; the slot's memory is freed with the last lease.
        IOUtils.closeQuietly(memory);
        try {
            FileUtils.deleteDirectory(instanceDirectory);
        } catch (IOException e) {
            LOG.warn("Could not delete StreamFusion working directory {}", instanceDirectory, e);
        }
    }

    /** The native column families by state name, for tests and diagnostics. */
    public Map<String, NativeColumnFamily> nativeColumns() {
        Map<String, NativeColumnFamily> columnFamilies = new LinkedHashMap<>();
        kvStateInformation.forEach(
                (name, registered) -> columnFamilies.put(name, registered.columnFamily()));
        return columnFamilies;
    }
}
