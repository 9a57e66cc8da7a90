package io.streamfusion.backend.conformance;

import io.streamfusion.api.PriorityQueueStateType;
import io.streamfusion.backend.StreamFusionStateBackend;

import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.ConfigurableStateBackend;
import org.apache.flink.runtime.state.StateBackendTestBase;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameter;
import org.apache.flink.testutils.junit.extensions.parameterized.ParameterizedTestExtension;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameters;
import org.apache.flink.util.function.SupplierWithException;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * Flink's own keyed-backend conformance suite ({@link StateBackendTestBase}, 71 test templates) run
 * against StreamFusion with native and heap timers, incremental and full native checkpoints, stored
 * in the JobManager and on the file system, as Flink's EmbeddedRocksDBStateBackendTest
 * parameterises it. docs/conformance.md records every test that does not run, with its reason.
 */
@ExtendWith(ParameterizedTestExtension.class)
public class StreamFusionStateBackendTest extends StateBackendTestBase<StreamFusionStateBackend> {

    @TempDir static java.nio.file.Path FOLDERS;

    @Parameter(0)
    public String storageName;

    @Parameter(1)
    public SupplierWithException<CheckpointStorage, IOException> storageSupplier;

    @Parameter(2)
    public PriorityQueueStateType timers;

    @Parameter(3)
    public boolean incremental;

    @Parameters(name = "storage={0}, timers={2}, incremental={3}")
    public static List<Object[]> modes() {
        SupplierWithException<CheckpointStorage, IOException> jobManager =
                ConformanceSetup.jobManagerStorage();
        SupplierWithException<CheckpointStorage, IOException> fileSystem =
                ConformanceSetup.fileSystemStorage(() -> FOLDERS);
        return Arrays.asList(
                new Object[] {"jobmanager", jobManager, PriorityQueueStateType.NATIVE, true},
                new Object[] {"filesystem", fileSystem, PriorityQueueStateType.NATIVE, true},
                new Object[] {"jobmanager", jobManager, PriorityQueueStateType.HEAP, true},
                new Object[] {"filesystem", fileSystem, PriorityQueueStateType.NATIVE, false},
                new Object[] {"jobmanager", jobManager, PriorityQueueStateType.HEAP, false});
    }

    @Override
    protected ConfigurableStateBackend getStateBackend() throws IOException {
        return ConformanceSetup.backend(FOLDERS, timers, incremental);
    }

    @Override
    protected CheckpointStorage getCheckpointStorage() throws Exception {
        return storageSupplier.get();
    }

    @Override
    protected boolean isSerializerPresenceRequiredOnRestore() {
        return false;
    }

    @Override
    protected boolean supportsAsynchronousSnapshots() {
        return true;
    }

    @Override
    protected boolean isSafeToReuseKVState() {
        return timers == PriorityQueueStateType.NATIVE;
    }
}
