package io.streamfusion.api.columnar;

/**
 * Implemented by state backends whose keyed backends are {@link ColumnarKeyedStateBackend}s. A
 * columnar operator asks its task's state backend before it picks its implementation, so a job
 * whose backend turns out not to support columnar kernels (another backend, or one wrapped by the
 * changelog backend) runs Flink's own operator instead. Kernels without keyed state, which
 * non-keyed operators run, open here.
 */
public interface ColumnarStateBackend {

    /**
     * Opens a sink constraint enforcer for batches of the given schema.
     *
     * @param batchSchemaAddress an exported {@code ArrowSchema} of the batches; taken over
     */
    SinkConstraints openSinkConstraints(SinkConstraintsSpec spec, long batchSchemaAddress);
}
