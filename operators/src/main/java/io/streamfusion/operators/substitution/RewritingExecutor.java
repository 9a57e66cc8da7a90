package io.streamfusion.operators.substitution;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.dag.Pipeline;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.JobStatusHook;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.table.delegation.Executor;

import javax.annotation.Nullable;

import java.util.List;

/**
 * A Table environment's executor that rewrites every StreamGraph it creates with the columnar
 * operators, under the table configuration the graph was made with; everything else is the wrapped
 * executor's. Installed by {@code StreamFusionOperators.install}, so it works in every deployment
 * mode, application mode included.
 */
public final class RewritingExecutor implements Executor {

    private final Executor delegate;

    private RewritingExecutor(Executor delegate) {
        this.delegate = delegate;
    }

    /** {@code executor}, rewriting; unchanged if it rewrites already. */
    public static Executor wrap(Executor executor) {
        return executor instanceof RewritingExecutor ? executor : new RewritingExecutor(executor);
    }

    @Override
    public ReadableConfig getConfiguration() {
        return delegate.getConfiguration();
    }

    @Override
    public Pipeline createPipeline(
            List<Transformation<?>> transformations,
            ReadableConfig tableConfiguration,
            @Nullable String defaultJobName) {
        return rewritten(
                delegate.createPipeline(transformations, tableConfiguration, defaultJobName),
                tableConfiguration);
    }

    @Override
    public Pipeline createPipeline(
            List<Transformation<?>> transformations,
            ReadableConfig tableConfiguration,
            @Nullable String defaultJobName,
            List<JobStatusHook> jobStatusHookList) {
        return rewritten(
                delegate.createPipeline(
                        transformations, tableConfiguration, defaultJobName, jobStatusHookList),
                tableConfiguration);
    }

    private static Pipeline rewritten(Pipeline pipeline, ReadableConfig tableConfiguration) {
        if (pipeline instanceof StreamGraph) {
            new StreamGraphRewriter().rewrite((StreamGraph) pipeline, tableConfiguration);
        }
        return pipeline;
    }

    @Override
    public JobExecutionResult execute(Pipeline pipeline) throws Exception {
        return delegate.execute(pipeline);
    }

    @Override
    public JobClient executeAsync(Pipeline pipeline) throws Exception {
        return delegate.executeAsync(pipeline);
    }

    @Override
    public boolean isCheckpointingEnabled() {
        return delegate.isCheckpointingEnabled();
    }
}
