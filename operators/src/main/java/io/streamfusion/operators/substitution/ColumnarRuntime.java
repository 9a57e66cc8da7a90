package io.streamfusion.operators.substitution;

import io.streamfusion.api.columnar.ColumnarStateBackend;

import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.streaming.runtime.tasks.StreamTask;

import java.util.Optional;

/** Whether a task can run columnar operators: its state backend decides, at run time. */
public final class ColumnarRuntime {

    private ColumnarRuntime() {}

    /**
     * The task's state backend, for the kernels that need no keyed state; only for a task {@link
     * #whyNot} accepted.
     */
    public static ColumnarStateBackend backendOf(StreamTask<?, ?> task) {
        StateBackend backend = FlinkFields.read(task, StreamTask.class, "stateBackend");
        if (!(backend instanceof ColumnarStateBackend)) {
            throw new IllegalStateException(whyNot(task).orElse("no columnar state backend"));
        }
        return (ColumnarStateBackend) backend;
    }

    /** Why {@code task} cannot run a columnar operator, or empty if it can. */
    static Optional<String> whyNot(StreamTask<?, ?> task) {
        StateBackend backend;
        try {
            backend = FlinkFields.read(task, StreamTask.class, "stateBackend");
        } catch (FlinkFields.UnsupportedFlinkInternalsException e) {
            return Optional.of("the task's state backend is unknown: " + e.getMessage());
        }
        if (backend instanceof ColumnarStateBackend) {
            return Optional.empty();
        }
        String name = backend == null ? "none" : backend.getClass().getName();
        return Optional.of(
                "the task's state backend is "
                        + name
                        + (name.contains("Changelog")
                                ? " (the changelog backend wraps StreamFusion; set state.changelog.enabled: false)"
                                : ", not StreamFusion (state.backend.type: streamfusion)"));
    }
}
