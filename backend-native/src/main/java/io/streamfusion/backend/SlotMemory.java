package io.streamfusion.backend;

import io.streamfusion.backend.nativelib.NativeSharedMemory;

import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.memory.OpaqueMemoryResource;
import org.apache.flink.util.function.LongFunctionWithException;

/**
 * Obtains the slot's shared native memory from Flink's memory manager, the way Flink's RocksDB
 * backend obtains its shared cache: from the slot's managed memory by default, or as a fixed
 * external budget per slot. The first keyed backend of a slot allocates it; the last one to
 * release its lease frees it.
 */
final class SlotMemory {

    static final String MANAGED_RESOURCE_ID = "state-streamfusion-managed-memory";
    static final String FIXED_RESOURCE_ID = "state-streamfusion-fixed-slot-memory";

    private SlotMemory() {}

    static OpaqueMemoryResource<NativeSharedMemory> acquire(
            Environment env, StreamFusionConfig config, double managedMemoryFraction) throws Exception {
        LongFunctionWithException<NativeSharedMemory, Exception> allocator =
                size -> {
                    if (size <= 0) {
                        throw new IllegalConfigurationException(
                                "StreamFusion got no managed memory for this slot (fraction "
                                        + managedMemoryFraction
                                        + "). Give the TaskManager managed memory"
                                        + " (taskmanager.memory.managed.size or .fraction), or set"
                                        + " 'state.backend.streamfusion.memory.fixed-per-slot'.");
                    }
                    return NativeSharedMemory.allocate(size, config.writeBufferRatio());
                };
        if (config.fixedMemoryPerSlot() != null) {
            return env.getMemoryManager()
                    .getExternalSharedMemoryResource(
                            FIXED_RESOURCE_ID, allocator, config.fixedMemoryPerSlot().getBytes());
        }
        return env.getMemoryManager()
                .getSharedMemoryResourceForManagedMemory(MANAGED_RESOURCE_ID, allocator, managedMemoryFraction);
    }
}
