package io.streamfusion.backend;

import io.streamfusion.api.StreamFusionOptions;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateBackendParametersImpl;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import java.io.File;
import java.util.Collection;
import java.util.List;

/** Builds StreamFusion keyed backends the way a task does, for tests below the job level. */
final class TestKeyedBackends {

    static final int KEY_GROUPS = 128;

    private final MockEnvironment env;
    private final File workDir;
    private KeyGroupRange keyGroups = new KeyGroupRange(0, KEY_GROUPS - 1);
    private Collection<KeyedStateHandle> handles = List.of();
    private MetricGroup metrics = new UnregisteredMetricsGroup();
    private Configuration config = new Configuration();
    private TtlTimeProvider ttlTime = TtlTimeProvider.DEFAULT;

    private TestKeyedBackends(MockEnvironment env, File workDir) {
        this.env = env;
        this.workDir = workDir;
    }

    static MockEnvironment environment() {
        return environment(64L << 20);
    }

    static MockEnvironment environment(long managedMemoryBytes) {
        return MockEnvironment.builder()
                .setManagedMemorySize(managedMemoryBytes)
                .setMaxParallelism(KEY_GROUPS)
                .build();
    }

    /** A backend with every key group, working in {@code workDir}; see the setters for the rest. */
    static TestKeyedBackends in(MockEnvironment env, File workDir) {
        return new TestKeyedBackends(env, workDir);
    }

    static <K> StreamFusionKeyedStateBackend<K> create(
            MockEnvironment env, File workDir, TypeSerializer<K> keySerializer) throws Exception {
        return in(env, workDir).build(keySerializer);
    }

    /** A backend restored from {@code handles}, as a task restores it after a failure. */
    static <K> StreamFusionKeyedStateBackend<K> restore(
            MockEnvironment env,
            File workDir,
            TypeSerializer<K> keySerializer,
            Collection<KeyedStateHandle> handles)
            throws Exception {
        return in(env, workDir).restoring(handles).build(keySerializer);
    }

    /** Only these key groups, as a subtask of a job at parallelism above one. */
    TestKeyedBackends keyGroups(KeyGroupRange range) {
        this.keyGroups = range;
        return this;
    }

    TestKeyedBackends restoring(Collection<KeyedStateHandle> handles) {
        this.handles = handles;
        return this;
    }

    TestKeyedBackends metrics(MetricGroup group) {
        this.metrics = group;
        return this;
    }

    /** Options on top of the working directory. */
    TestKeyedBackends config(Configuration options) {
        this.config = options;
        return this;
    }

    TestKeyedBackends ttlTime(TtlTimeProvider clock) {
        this.ttlTime = clock;
        return this;
    }

    @SuppressWarnings("unchecked")
    <K> StreamFusionKeyedStateBackend<K> build(TypeSerializer<K> keySerializer) throws Exception {
        Configuration options = new Configuration(config);
        options.setString(StreamFusionOptions.LOCAL_DIRECTORIES.key(), workDir.getAbsolutePath());
        StreamFusionStateBackend backend =
                new StreamFusionStateBackend()
                        .configure(options, TestKeyedBackends.class.getClassLoader());
        return (StreamFusionKeyedStateBackend<K>)
                backend.createKeyedStateBackend(
                        new KeyedStateBackendParametersImpl<>(
                                env,
                                new JobID(),
                                "test-operator",
                                keySerializer,
                                KEY_GROUPS,
                                keyGroups,
                                env.getTaskKvStateRegistry(),
                                ttlTime,
                                metrics,
                                (name, value) -> {},
                                handles,
                                new CloseableRegistry(),
                                1.0));
    }
}
