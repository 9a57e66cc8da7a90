package io.streamfusion.backend.conformance;

import io.streamfusion.api.PriorityQueueStateType;
import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.backend.StreamFusionStateBackend;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.testutils.junit.utils.TempDirUtils;
import org.apache.flink.util.function.SupplierWithException;

import java.io.IOException;
import java.util.function.Supplier;

/**
 * The backend and checkpoint storages that StreamFusion's subclasses of Flink's suites run with.
 */
final class ConformanceSetup {

    /**
     * Flink's suites give a slot 32 MiB of managed memory, too little to spare the default 64 MiB
     * cache; a small cache keeps the decoded-value cache in play in every suite.
     */
    static final MemorySize SUITE_CACHE_SIZE = MemorySize.parse("4mb");

    private ConformanceSetup() {}

    static SupplierWithException<CheckpointStorage, IOException> jobManagerStorage() {
        return JobManagerCheckpointStorage::new;
    }

    /**
     * Storage in a new folder; {@code folders} is read late, since JUnit injects it after
     * parameters are built.
     */
    static SupplierWithException<CheckpointStorage, IOException> fileSystemStorage(
            Supplier<java.nio.file.Path> folders) {
        return () ->
                new FileSystemCheckpointStorage(
                        new Path(TempDirUtils.newFolder(folders.get()).toURI().toString()), 0, -1);
    }

    /** A backend with its own working directory under {@code folders}. */
    static StreamFusionStateBackend backend(
            java.nio.file.Path folders, PriorityQueueStateType timers) throws IOException {
        return backend(folders, timers, true);
    }

    /** As above, with incremental or full native checkpoints. */
    static StreamFusionStateBackend backend(
            java.nio.file.Path folders, PriorityQueueStateType timers, boolean incremental)
            throws IOException {
        Configuration config = new Configuration();
        config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, incremental);
        config.setString(
                StreamFusionOptions.LOCAL_DIRECTORIES.key(),
                TempDirUtils.newFolder(folders).getAbsolutePath());
        config.set(StreamFusionOptions.TIMER_SERVICE_FACTORY, timers);
        config.set(StreamFusionOptions.CACHE_SIZE, SUITE_CACHE_SIZE);
        return new StreamFusionStateBackend()
                .configure(config, Thread.currentThread().getContextClassLoader());
    }
}
