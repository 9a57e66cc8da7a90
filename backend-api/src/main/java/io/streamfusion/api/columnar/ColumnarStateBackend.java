package io.streamfusion.api.columnar;

/**
 * Implemented by state backends whose keyed backends are {@link ColumnarKeyedStateBackend}s. A
 * columnar operator asks its task's state backend before it picks its implementation, so a job
 * whose backend turns out not to support columnar kernels (another backend, or one wrapped by the
 * changelog backend) runs Flink's own operator instead.
 */
public interface ColumnarStateBackend {}
