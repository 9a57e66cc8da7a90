package io.streamfusion.backend.conformance;

import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.api.TimerServiceFactory;
import io.streamfusion.backend.StreamFusionStateBackend;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.testutils.junit.utils.TempDirUtils;
import org.apache.flink.util.function.SupplierWithException;

import java.io.IOException;
import java.util.function.Supplier;

/** The backend and checkpoint storages that StreamFusion's subclasses of Flink's suites run with. */
final class ConformanceSetup {

    private ConformanceSetup() {}

    static SupplierWithException<CheckpointStorage, IOException> jobManagerStorage() {
        return JobManagerCheckpointStorage::new;
    }

    /** Storage in a new folder; {@code folders} is read late, since JUnit injects it after parameters are built. */
    static SupplierWithException<CheckpointStorage, IOException> fileSystemStorage(
            Supplier<java.nio.file.Path> folders) {
        return () ->
                new FileSystemCheckpointStorage(
                        new Path(TempDirUtils.newFolder(folders.get()).toURI().toString()), 0, -1);
    }

    /** A backend with its own working directory under {@code folders}. */
    static StreamFusionStateBackend backend(java.nio.file.Path folders, TimerServiceFactory timers) throws IOException {
        Configuration config = new Configuration();
        config.setString(StreamFusionOptions.LOCAL_DIRECTORIES.key(), TempDirUtils.newFolder(folders).getAbsolutePath());
        config.set(StreamFusionOptions.TIMER_SERVICE_FACTORY, timers);
        return new StreamFusionStateBackend().configure(config, Thread.currentThread().getContextClassLoader());
    }
}
