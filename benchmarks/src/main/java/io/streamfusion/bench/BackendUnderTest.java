package io.streamfusion.bench;

import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.backend.StreamFusionStateBackend;
import io.streamfusion.bench.sql.BenchSetup;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractStateBackend;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateBackendParametersImpl;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.util.IOUtils;

import java.io.File;
import java.nio.file.Files;
import java.util.Collection;
import java.util.Collections;
import java.util.Locale;

/**
 * A keyed backend of one of the three kinds a benchmark compares, built the way a task builds it
 * (Flink's {@code MockEnvironment}, managed memory, 128 key groups), with {@code Long} keys. Each
 * backend gets the same managed memory budget.
 */
public final class BackendUnderTest implements AutoCloseable {

    /** The backends every comparison runs. */
    public static final String[] ALL = {"hashmap", "rocksdb", "streamfusion"};

    static final int MAX_PARALLELISM = 128;
    static final long MANAGED_MEMORY = 512L << 20;

    private final MockEnvironment environment;
    private final CheckpointableKeyedStateBackend<Long> keyedBackend;
    private final File workDirectory;

    private BackendUnderTest(
            MockEnvironment environment,
            CheckpointableKeyedStateBackend<Long> keyedBackend,
            File workDirectory) {
        this.environment = environment;
        this.keyedBackend = keyedBackend;
        this.workDirectory = workDirectory;
    }

    /**
     * A backend named as a {@link BenchSetup}: a kind, optionally followed by options in brackets,
     * such as {@code streamfusion[state.backend.streamfusion.write-back.size=0]}, so that one JMH
     * run compares variants of a backend.
     */
    public static BackendUnderTest create(String setup) throws Exception {
        BenchSetup parsed = BenchSetup.parse(setup);
        return create(parsed.backend(), Configuration.fromMap(parsed.options()));
    }

    /** A backend of {@code kind} whose configuration also carries {@code options}. */
    public static BackendUnderTest create(String kind, Configuration options) throws Exception {
        return create(kind, options, new UnregisteredMetricsGroup());
    }

    /** The same, registering the backend's metrics in {@code metrics}. */
    public static BackendUnderTest create(String kind, Configuration options, MetricGroup metrics)
            throws Exception {
        return create(
                kind,
                new KeyGroupRange(0, MAX_PARALLELISM - 1),
                Collections.emptyList(),
                options,
                metrics);
    }

    /** A backend for some key groups, restored from {@code handles}, as a rescaled subtask is. */
    public static BackendUnderTest create(
            String kind, KeyGroupRange keyGroups, Collection<KeyedStateHandle> handles)
            throws Exception {
        return create(
                kind, keyGroups, handles, new Configuration(), new UnregisteredMetricsGroup());
    }

    private static BackendUnderTest create(
            String kind,
            KeyGroupRange keyGroups,
            Collection<KeyedStateHandle> handles,
            Configuration options,
            MetricGroup metrics)
            throws Exception {
        File work = Files.createTempDirectory("streamfusion-bench-" + kind + "-").toFile();
        MockEnvironment env =
                MockEnvironment.builder()
                        .setManagedMemorySize(MANAGED_MEMORY)
                        .setMaxParallelism(MAX_PARALLELISM)
                        .build();
        AbstractStateBackend backend = stateBackend(kind, work, options);
        CheckpointableKeyedStateBackend<Long> keyed =
                backend.createKeyedStateBackend(
                        new KeyedStateBackendParametersImpl<>(
                                env,
                                new JobID(),
                                "benchmark",
                                LongSerializer.INSTANCE,
                                MAX_PARALLELISM,
                                keyGroups,
                                env.getTaskKvStateRegistry(),
                                TtlTimeProvider.DEFAULT,
                                metrics,
                                (name, value) -> {},
                                handles,
                                new CloseableRegistry(),
                                1.0));
        return new BackendUnderTest(env, keyed, work);
    }

    private static AbstractStateBackend stateBackend(
            String kind, File work, Configuration options) {
        Configuration config = new Configuration(options);
        ClassLoader loader = BackendUnderTest.class.getClassLoader();
        switch (kind.toLowerCase(Locale.ROOT)) {
            case "hashmap":
                return new HashMapStateBackend();
            case "rocksdb":
                config.setString(RocksDBOptions.LOCAL_DIRECTORIES.key(), work.getAbsolutePath());
                // Flink's switch defaults to false; StreamFusion's default is incremental, so
                // snapshot comparisons pit incremental against incremental.
                config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
                return new EmbeddedRocksDBStateBackend().configure(config, loader);
            case "streamfusion":
            case "streamfusion-nocache":
                config.setString(
                        StreamFusionOptions.LOCAL_DIRECTORIES.key(), work.getAbsolutePath());
                config.set(StreamFusionOptions.CACHE_ENABLED, !kind.endsWith("-nocache"));
                return new StreamFusionStateBackend().configure(config, loader);
            default:
                throw new IllegalArgumentException(
                        "Unknown backend '"
                                + kind
                                + "'; use hashmap, rocksdb, streamfusion or streamfusion-nocache");
        }
    }

    public CheckpointableKeyedStateBackend<Long> keyed() {
        return keyedBackend;
    }

    /** The task environment the backend was built in, for code that needs a runtime context. */
    public MockEnvironment environment() {
        return environment;
    }

    @Override
    public void close() throws Exception {
        IOUtils.closeQuietly(keyedBackend);
        keyedBackend.dispose();
        environment.close();
        org.apache.flink.util.FileUtils.deleteDirectory(workDirectory);
    }
}
