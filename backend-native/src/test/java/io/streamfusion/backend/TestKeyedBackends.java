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
import java.util.Collections;

/** Builds StreamFusion keyed backends the way a task does, for tests below the job level. */
final class TestKeyedBackends {

    static final int KEY_GROUPS = 128;

    private TestKeyedBackends() {}

    static MockEnvironment environment() {
        return environment(64L << 20);
    }

    static MockEnvironment environment(long managedMemoryBytes) {
        return MockEnvironment.builder()
                .setManagedMemorySize(managedMemoryBytes)
                .setMaxParallelism(KEY_GROUPS)
                .build();
    }

    static <K> StreamFusionKeyedStateBackend<K> create(
            MockEnvironment env, File workDir, TypeSerializer<K> keySerializer) throws Exception {
        return restore(env, workDir, keySerializer, Collections.emptyList());
    }

    /** A backend restored from {@code handles}, as a task restores it after a failure. */
    static <K> StreamFusionKeyedStateBackend<K> restore(
            MockEnvironment env, File workDir, TypeSerializer<K> keySerializer, Collection<KeyedStateHandle> handles)
            throws Exception {
        return create(env, workDir, keySerializer, handles, new UnregisteredMetricsGroup());
    }

    static <K> StreamFusionKeyedStateBackend<K> create(
            MockEnvironment env,
            File workDir,
            TypeSerializer<K> keySerializer,
            Collection<KeyedStateHandle> handles,
            MetricGroup metrics)
            throws Exception {
        return create(env, workDir, keySerializer, new KeyGroupRange(0, KEY_GROUPS - 1), handles, metrics, new Configuration());
    }

    /** A backend for some of the key groups, as a subtask of a job at parallelism above one. */
    static <K> StreamFusionKeyedStateBackend<K> create(
            MockEnvironment env,
            File workDir,
            TypeSerializer<K> keySerializer,
            KeyGroupRange keyGroups,
            Collection<KeyedStateHandle> handles,
            MetricGroup metrics,
            Configuration extraConfig)
            throws Exception {
        return create(env, workDir, keySerializer, keyGroups, handles, metrics, extraConfig, TtlTimeProvider.DEFAULT);
    }

    /** As above, with a clock for state TTL. */
    static <K> StreamFusionKeyedStateBackend<K> create(
            MockEnvironment env,
            File workDir,
            TypeSerializer<K> keySerializer,
            KeyGroupRange keyGroups,
            Collection<KeyedStateHandle> handles,
            MetricGroup metrics,
            Configuration extraConfig,
            TtlTimeProvider ttlTime)
            throws Exception {
        Configuration config = new Configuration(extraConfig);
        config.setString(StreamFusionOptions.LOCAL_DIRECTORIES.key(), workDir.getAbsolutePath());
        StreamFusionStateBackend backend =
                new StreamFusionStateBackend().configure(config, TestKeyedBackends.class.getClassLoader());
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
