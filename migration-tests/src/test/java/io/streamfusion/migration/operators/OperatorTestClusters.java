package io.streamfusion.migration.operators;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** The MiniClusters the columnar operator tests run on: one TaskManager, sized per test class. */
final class OperatorTestClusters {

    private OperatorTestClusters() {}

    /**
     * A cluster of one TaskManager with {@code slots} slots sharing {@code managedMemory} of
     * managed memory, plus any {@code extra} settings (a metric reporter, say).
     */
    static MiniClusterExtension oneTaskManager(
            int slots, String managedMemory, Configuration extra) {
        Configuration config = new Configuration(extra);
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse(managedMemory));
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(1)
                        .setNumberSlotsPerTaskManager(slots)
                        .setConfiguration(config)
                        .build());
    }

    static MiniClusterExtension oneTaskManager(int slots, String managedMemory) {
        return oneTaskManager(slots, managedMemory, new Configuration());
    }
}
