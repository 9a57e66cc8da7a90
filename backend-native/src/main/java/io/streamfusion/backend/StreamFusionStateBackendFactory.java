package io.streamfusion.backend;

import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.runtime.state.StateBackendFactory;

/**
 * Creates {@link StreamFusionStateBackend} from configuration. Selected with {@code
 * state.backend.type: io.streamfusion.backend.StreamFusionStateBackendFactory} or the short name
 * {@code streamfusion}.
 */
public class StreamFusionStateBackendFactory
        implements StateBackendFactory<StreamFusionStateBackend> {

    @Override
    public StreamFusionStateBackend createFromConfig(ReadableConfig config, ClassLoader classLoader)
            throws IllegalConfigurationException {
        return new StreamFusionStateBackend().configure(config, classLoader);
    }
}
