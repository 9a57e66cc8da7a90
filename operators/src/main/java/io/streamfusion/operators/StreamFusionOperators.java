package io.streamfusion.operators;

import io.streamfusion.operators.substitution.FlinkFields;
import io.streamfusion.operators.substitution.RewritingExecutor;
import io.streamfusion.operators.substitution.StreamGraphRewriter;
import io.streamfusion.operators.substitution.SubstitutionReport;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.delegation.Executor;

/**
 * What a program calls to use StreamFusion's columnar operators without the {@code
 * streamfusion-<target>} execution target: {@link #install} for a Table environment (the way for
 * application mode), {@link #explain} to see which nodes of an INSERT would be replaced. Either way
 * {@code streamfusion.operators.enabled: true} must be set, and the job's state backend must be
 * StreamFusion.
 */
public final class StreamFusionOperators {

    private StreamFusionOperators() {}

    /**
     * Makes every job that {@code tableEnvironment} submits from now on run with the columnar
     * operators where they apply. Installing twice does nothing more.
     */
    public static void install(TableEnvironment tableEnvironment) {
        Executor executor =
                FlinkFields.read(tableEnvironment, TableEnvironmentImpl.class, "execEnv");
        FlinkFields.write(
                tableEnvironment,
                TableEnvironmentImpl.class,
                "execEnv",
                RewritingExecutor.wrap(executor));
    }

    /**
     * The report of what the operator layer would replace in the job of an INSERT statement,
     * without running it (the statement is attached to the environment and its StreamGraph is
     * built, then dropped).
     */
    public static SubstitutionReport explain(
            StreamExecutionEnvironment environment,
            StreamTableEnvironment tableEnvironment,
            String insertStatement) {
        StreamStatementSet statements = tableEnvironment.createStatementSet();
        statements.addInsertSql(insertStatement);
        statements.attachAsDataStream();
        StreamGraph graph = environment.getStreamGraph();
        return new StreamGraphRewriter().explain(graph, tableEnvironment.getConfig());
    }
}
