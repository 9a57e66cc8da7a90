package io.streamfusion.migration.operators;

import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.operators.OperatorOptions;
import io.streamfusion.operators.StreamFusionOperators;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A Top-1 SQL job over scripted {@code (k INT, v BIGINT)} rows, on StreamFusion with the columnar
 * layer on and without restarts, into the collecting sink: the job the operator tests that are not
 * about parity submit.
 */
final class ScriptedTop1Job {

    private ScriptedTop1Job() {}

    /**
     * Registers {@code rows} as run {@code run}, opens its source gate for {@code openRows} of
     * them, and submits the job with the operator {@code options}; the sink fails after {@code
     * sinkFailsAfter} rows, or never if it is negative.
     */
    static JobClient submit(
            Path workDir,
            String run,
            List<Row> rows,
            long openRows,
            int sinkFailsAfter,
            Map<String, String> options) {
        ScriptedRows.register(run, rows);
        ScriptedRows.openUntil(run, openRows);
        Configuration config = new Configuration();
        config.set(StateBackendOptions.STATE_BACKEND, "streamfusion");
        config.setString(StreamFusionOptions.LOCAL_DIRECTORIES.key(), workDir.toString());
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(1);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.getConfig().set(OperatorOptions.ENABLED, true);
        options.forEach(
                (key, value) -> tables.getConfig().getConfiguration().setString(key, value));
        StreamFusionOperators.install(tables);
        DataGeneratorSource<Row> source =
                new DataGeneratorSource<>(
                        new ScriptedRows.Generator(run),
                        rows.size(),
                        new ScriptedRows.Gate(run),
                        Types.ROW_NAMED(new String[] {"k", "v"}, Types.INT, Types.LONG));
        tables.createTemporaryView(
                "src", env.fromSource(source, WatermarkStrategy.noWatermarks(), "rows"));
        tables.executeSql(
                "CREATE TEMPORARY TABLE sink (k INT, v BIGINT) WITH ('connector' = '"
                        + CollectingSinkFactory.IDENTIFIER
                        + "', 'output' = '"
                        + run
                        + "', 'fail-after' = '"
                        + sinkFailsAfter
                        + "')");
        return tables.executeSql(
                        "INSERT INTO sink SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v"
                                + " ASC) AS rn FROM src) WHERE rn = 1")
                .getJobClient()
                .orElseThrow();
    }
}
