import io.streamfusion.backend.StreamFusionStateBackend;
import io.streamfusion.backend.StreamFusionStateBackendFactory;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.runtime.state.StateBackendFactory;

/**
 * The short name {@code state.backend.type: streamfusion}.
 *
 * <p>Flink 2.2.1 resolves any backend type other than its own three with {@code
 * Class.forName(value)}, so this alias must be a class literally named {@code streamfusion} in the
 * unnamed package. It only delegates to {@link StreamFusionStateBackendFactory}.
 */
@SuppressWarnings("checkstyle:TypeName")
public final class streamfusion implements StateBackendFactory<StreamFusionStateBackend> {

    private final StreamFusionStateBackendFactory delegate = new StreamFusionStateBackendFactory();

    @Override
    public StreamFusionStateBackend createFromConfig(
            ReadableConfig config, ClassLoader classLoader) {
        return delegate.createFromConfig(config, classLoader);
    }
}
