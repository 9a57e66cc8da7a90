package io.streamfusion.operators.substitution;

import io.streamfusion.operators.OperatorOptions;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.core.execution.DefaultExecutorServiceLoader;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * The execution targets {@code streamfusion-<target>} ({@code streamfusion-local}, {@code
 * streamfusion-remote}, ...): rewrite the job's StreamGraph with the columnar operators, then
 * submit it with Flink's executor for {@code <target>}. Registered through {@code
 * META-INF/services}, so setting {@code execution.target} is all a job needs (with {@code
 * streamfusion.operators.enabled: true}). Not reached in application mode, where Flink always uses
 * its embedded executor; there, {@code StreamFusionOperators.install} does the same.
 */
public final class StreamFusionPipelineExecutorFactory implements PipelineExecutorFactory {

    @Override
    public String getName() {
        return OperatorOptions.EXECUTION_TARGET_PREFIX + "*";
    }

    @Override
    public boolean isCompatibleWith(Configuration configuration) {
        String target = configuration.get(DeploymentOptions.TARGET);
        return target != null
                && target.startsWith(OperatorOptions.EXECUTION_TARGET_PREFIX)
                && target.length() > OperatorOptions.EXECUTION_TARGET_PREFIX.length();
    }

    @Override
    public PipelineExecutor getExecutor(Configuration configuration) {
        return (pipeline, jobConfiguration, classLoader) -> {
            Configuration delegated = delegated(jobConfiguration);
            if (pipeline instanceof StreamGraph) {
                new StreamGraphRewriter().rewrite((StreamGraph) pipeline, jobConfiguration);
            }
            PipelineExecutorFactory flinkFactory =
                    new DefaultExecutorServiceLoader().getExecutorFactory(delegated);
            return flinkFactory.getExecutor(delegated).execute(pipeline, delegated, classLoader);
        };
    }

    /** {@code configuration} with the execution target Flink's own executor knows. */
    private static Configuration delegated(Configuration configuration) {
        Configuration delegated = new Configuration(configuration);
        String target = configuration.get(DeploymentOptions.TARGET);
        delegated.set(
                DeploymentOptions.TARGET,
                target.substring(OperatorOptions.EXECUTION_TARGET_PREFIX.length()));
        return delegated;
    }
}
