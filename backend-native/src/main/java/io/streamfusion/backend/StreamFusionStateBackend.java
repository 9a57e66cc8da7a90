package io.streamfusion.backend;

import io.streamfusion.api.columnar.ColumnarStateBackend;
import io.streamfusion.api.columnar.SinkConstraints;
import io.streamfusion.api.columnar.SinkConstraintsSpec;
import io.streamfusion.backend.memory.SlotMemory;
import io.streamfusion.backend.memory.SlotMemoryProvider;
import io.streamfusion.backend.nativelib.NativeLibrary;
import io.streamfusion.backend.nativelib.NativeSinkConstraints;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.memory.OpaqueMemoryResource;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.AbstractManagedMemoryStateBackend;
import org.apache.flink.runtime.state.ConfigurableStateBackend;
import org.apache.flink.runtime.state.DefaultOperatorStateBackendBuilder;
import org.apache.flink.runtime.state.LocalRecoveryConfig;
import org.apache.flink.runtime.state.OperatorStateBackend;
import org.apache.flink.runtime.state.metrics.LatencyTrackingStateConfig;
import org.apache.flink.runtime.state.metrics.SizeTrackingStateConfig;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The StreamFusion state backend: keyed state in a native RocksDB instance per keyed backend,
 * driven by a Rust library through JNI. Operator state uses Flink's own {@code
 * DefaultOperatorStateBackend}, as Flink's RocksDB backend does.
 */
public class StreamFusionStateBackend extends AbstractManagedMemoryStateBackend
        implements ConfigurableStateBackend, ColumnarStateBackend {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(StreamFusionStateBackend.class);

    /** Spreads instances over the working directories, as Flink's RocksDB backend does. */
    private static final AtomicInteger NEXT_DIRECTORY = new AtomicInteger();

    private final StreamFusionConfig config;
    private final LatencyTrackingStateConfig.Builder latencyTracking;
    private final SizeTrackingStateConfig.Builder sizeTracking;

    public StreamFusionStateBackend() {
        this(StreamFusionConfig.defaults());
    }

    public StreamFusionStateBackend(StreamFusionConfig config) {
        this(config, LatencyTrackingStateConfig.newBuilder(), SizeTrackingStateConfig.newBuilder());
    }

    private StreamFusionStateBackend(
            StreamFusionConfig config,
            LatencyTrackingStateConfig.Builder latencyTracking,
            SizeTrackingStateConfig.Builder sizeTracking) {
        this.config = config;
        this.latencyTracking = latencyTracking;
        this.sizeTracking = sizeTracking;
    }

    @Override
    public StreamFusionStateBackend configure(ReadableConfig flinkConfig, ClassLoader classLoader)
            throws IllegalConfigurationException {
        return new StreamFusionStateBackend(
                StreamFusionConfig.from(flinkConfig, config),
                LatencyTrackingStateConfig.newBuilder().configure(flinkConfig),
                SizeTrackingStateConfig.newBuilder().configure(flinkConfig));
    }

    public StreamFusionConfig getConfig() {
        return config;
    }

    @Override
    public String getName() {
        return "StreamFusionStateBackend";
    }

    @Override
    public boolean supportsNoClaimRestoreMode() {
        // In no-claim mode Flink makes the first checkpoint after a restore a full one
        // (SharingFilesStrategy.FORWARD), which the native snapshot strategy honours by
        // referencing none of the restored files.
        return true;
    }

    @Override
    public boolean supportsSavepointFormat(SavepointFormatType formatType) {
        return formatType == SavepointFormatType.CANONICAL
                || formatType == SavepointFormatType.NATIVE;
    }

    @Override
    public SinkConstraints openSinkConstraints(SinkConstraintsSpec spec, long batchSchemaAddress) {
        return NativeSinkConstraints.open(spec, batchSchemaAddress);
    }

    @Override
    public <K> AbstractKeyedStateBackend<K> createKeyedStateBackend(
            KeyedStateBackendParameters<K> parameters) throws IOException {
        NativeLibrary.ensureLoaded();
        Environment env = parameters.getEnv();
        File instanceDirectory = instanceDirectory(env, parameters.getOperatorIdentifier());
        LOG.info(
                "Creating StreamFusion keyed backend for {} in {} with {}",
                parameters.getOperatorIdentifier(),
                instanceDirectory,
                config);
        warnIfLocalRecoveryIsEnabled(env);
        OpaqueMemoryResource<SlotMemory> memory;
        try {
            memory = SlotMemoryProvider.acquire(env, config, parameters.getManagedMemoryFraction());
        } catch (Exception e) {
            throw new IOException(
                    "Could not obtain StreamFusion's memory for this slot: " + e.getMessage(), e);
        }
        return new StreamFusionKeyedStateBackendBuilder<>(
                        parameters,
                        config,
                        instanceDirectory,
                        memory,
                        parameters.getMetricGroup(),
                        latencyTracking.setMetricGroup(parameters.getMetricGroup()).build(),
                        sizeTracking.setMetricGroup(parameters.getMetricGroup()).build())
                .build();
    }

    private static void warnIfLocalRecoveryIsEnabled(Environment env) {
        LocalRecoveryConfig localRecovery = env.getTaskStateManager().createLocalRecoveryConfig();
        if (localRecovery.isLocalRecoveryOrLocalBackupEnabled()) {
            LOG.warn(
                    "Local recovery ('{}' / '{}') is enabled, but StreamFusion does not support it yet: its keyed"
                            + " state keeps no local copy of snapshots and always recovers from checkpoint storage."
                            + " Operator state and other backends in the job are unaffected.",
                    StateRecoveryOptions.LOCAL_RECOVERY.key(),
                    CheckpointingOptions.LOCAL_BACKUP_ENABLED.key());
        }
    }

    private File instanceDirectory(Environment env, String operatorIdentifier) {
        List<File> roots = config.localDirectoriesOr(env.getIOManager().getSpillingDirectories());
        File root = roots.get(Math.floorMod(NEXT_DIRECTORY.getAndIncrement(), roots.size()));
        String safeOperator = operatorIdentifier.replaceAll("[^a-zA-Z0-9\\-]", "_");
        return new File(
                root,
                "streamfusion_job_"
                        + env.getJobID()
                        + "_op_"
                        + safeOperator
                        + "_uuid_"
                        + UUID.randomUUID());
    }

    @Override
    public OperatorStateBackend createOperatorStateBackend(
            OperatorStateBackendParameters parameters) throws Exception {
        return new DefaultOperatorStateBackendBuilder(
                        parameters.getEnv().getUserCodeClassLoader().asClassLoader(),
                        parameters.getEnv().getExecutionConfig(),
                        true,
                        parameters.getStateHandles(),
                        parameters.getCancelStreamRegistry())
                .build();
    }
}
