package io.streamfusion.bench.sql;

import io.streamfusion.bench.BenchRecord;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.FileUtils;

import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs the end-to-end SQL workloads on an embedded MiniCluster, once per backend, with the same
 * parallelism, managed memory and checkpoint interval for every backend, and writes the results as
 * report records.
 *
 * <p>Unbounded workloads report rows/s of the source (which runs at the job's pace under
 * backpressure) over fixed windows after a warm-up. Bounded workloads report rows/s of complete
 * jobs (rows over Flink's net job runtime).
 */
public final class SqlJobBenchmark {

    static final int PARALLELISM = 1;
    static final MemorySize MANAGED_MEMORY = MemorySize.parse("256m");
    static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(5);

    private final Timing timing;
    private final Path checkpoints;

    /** Warm-up and measurement windows of unbounded jobs, and repeats of bounded ones. */
    record Timing(Duration warmUp, Duration window, int windows, int boundedRepeats) {
        static Timing of(boolean full) {
            return full
                    ? new Timing(Duration.ofSeconds(10), Duration.ofSeconds(5), 5, 3)
                    : new Timing(Duration.ofSeconds(5), Duration.ofSeconds(2), 3, 1);
        }

        /**
         * The Top-1 suite is measured over windows of at least 10 s after a warm-up of at least 10
         * s, as the published figures it is compared with were; the constraint suite's short jobs
         * run at least three times each.
         */
        Timing forSuite(String suite) {
            if (SqlWorkloads.CONSTRAINTS.equals(suite)) {
                // Jobs of about a second, where one JIT-cold run swings the figure by half.
                return new Timing(warmUp, window, windows, Math.max(boundedRepeats, 3));
            }
            return SqlWorkloads.TOP1.equals(suite)
                    ? new Timing(
                            max(warmUp, Duration.ofSeconds(10)),
                            max(window, Duration.ofSeconds(10)),
                            windows,
                            boundedRepeats)
                    : this;
        }

        private static Duration max(Duration a, Duration b) {
            return a.compareTo(b) >= 0 ? a : b;
        }

        /** A rough duration of one job, for the progress line (MiniCluster start included). */
        Duration estimate(SqlWorkload workload) {
            return workload.bounded()
                    ? Duration.ofSeconds(30L * boundedRepeats)
                    : warmUp.plus(window.multipliedBy(windows)).plusSeconds(3);
        }
    }

    SqlJobBenchmark(Timing timing, Path checkpoints) {
        this.timing = timing;
        this.checkpoints = checkpoints;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            throw new IllegalArgumentException(
                    "Usage: SqlJobBenchmark <output.json> <quick|full> <suite> <backend,...> [case filter]");
        }
        boolean full = "full".equals(args[1]);
        String filter = args.length > 4 ? args[4] : "";
        List<SqlWorkload> workloads = new ArrayList<>(SqlWorkloads.of(args[2], full));
        workloads.removeIf(workload -> !workload.caseName().contains(filter));
        Timing timing = Timing.of(full).forSuite(args[2]);
        String[] backends = args[3].split(",");
        Path checkpoints = Files.createTempDirectory("streamfusion-sql-bench-");
        List<String> records = new ArrayList<>();
        try {
            SqlJobBenchmark benchmark = new SqlJobBenchmark(timing, checkpoints);
            int total = workloads.size() * backends.length;
            Duration left = Duration.ZERO;
            for (SqlWorkload w : workloads) {
                left = left.plus(benchmark.timing.estimate(w).multipliedBy(backends.length));
            }
            int done = 0;
            for (SqlWorkload workload : workloads) {
                for (String backend : backends) {
                    System.err.printf(
                            Locale.ROOT,
                            "== %s: %s on %s (%d of %d, about %d s left)%n",
                            workload.suite(),
                            workload.caseName(),
                            backend,
                            ++done,
                            total,
                            left.toSeconds());
                    double[] runs = benchmark.measure(workload, backend);
                    records.add(
                            BenchRecord.json(
                                    workload.suite(),
                                    workload.caseName(),
                                    backend,
                                    "rows/s",
                                    runs));
                    left = left.minus(benchmark.timing.estimate(workload));
                }
            }
        } finally {
            FileUtils.deleteDirectory(checkpoints.toFile());
        }
        try (Writer out = Files.newBufferedWriter(Path.of(args[0]), StandardCharsets.UTF_8)) {
            out.write("[\n" + String.join(",\n", records) + "\n]\n");
        }
    }

    double[] measure(SqlWorkload workload, String backend) throws Exception {
        BenchSetup setup = BenchSetup.parse(backend);
        if (workload.bounded()) {
            double[] runs = new double[timing.boundedRepeats()];
            for (int r = 0; r < runs.length; r++) {
                TableResult result = submit(workload, setup);
                JobClient job = result.getJobClient().orElseThrow();
                long netMillis = job.getJobExecutionResult().get().getNetRuntime();
                runs[r] = workload.rows() * 1000.0 / netMillis;
                System.err.printf(
                        Locale.ROOT,
                        "   complete job: %,d rows in %,d ms = %,.0f rows/s%n",
                        workload.rows(),
                        netMillis,
                        runs[r]);
            }
            return runs;
        }
        TableResult result = submit(workload, setup);
        JobClient job = result.getJobClient().orElseThrow();
        try {
            long start = GeneratedRows.emitted();
            while (GeneratedRows.emitted() == start) {
                Thread.sleep(10);
            }
            Thread.sleep(timing.warmUp().toMillis());
            double[] runs = new double[timing.windows()];
            for (int w = 0; w < runs.length; w++) {
                long rowsBefore = GeneratedRows.emitted();
                long nanosBefore = System.nanoTime();
                Thread.sleep(timing.window().toMillis());
                runs[w] =
                        (GeneratedRows.emitted() - rowsBefore)
                                * 1e9
                                / (System.nanoTime() - nanosBefore);
                System.err.printf(Locale.ROOT, "   window %d: %,.0f rows/s%n", w + 1, runs[w]);
            }
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                throw new IllegalStateException(
                        "The job ended before its windows were measured: "
                                + job.getJobExecutionResult().get());
            }
            return runs;
        } finally {
            job.cancel().get();
        }
    }

    private TableResult submit(SqlWorkload workload, BenchSetup setup) {
        long rows = workload.bounded() ? workload.rows() : Long.MAX_VALUE;
        StreamTableEnvironment tables = define(workload, configuration(setup), rows);
        if (setup.runsOperators()) {
            tables.getConfig()
                    .getConfiguration()
                    .setString("streamfusion.operators.enabled", "true");
            tables.getConfig()
                    .getConfiguration()
                    .setString("execution.target", "streamfusion-local");
        }
        return tables.executeSql(workload.insertSql());
    }

    /**
     * The explained plan of a workload, for tests that check the planner builds the intended job.
     */
    static String explain(SqlWorkload workload) {
        return define(workload, new Configuration(), 1).explainSql(workload.insertSql());
    }

    /** A fresh environment with the source view {@code src} and the workload's sink table. */
    private static StreamTableEnvironment define(
            SqlWorkload workload, Configuration config, long rows) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        DataGeneratorSource<RowData> source =
                new DataGeneratorSource<>(
                        workload.generator(), rows, GeneratedRows.type(workload.payloadType()));
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        workload.tableOptions()
                .forEach(
                        (key, value) ->
                                tables.getConfig().getConfiguration().setString(key, value));
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("g", DataTypes.BIGINT())
                        .column("k", DataTypes.BIGINT())
                        .column("v", DataTypes.BIGINT())
                        .column("payload", workload.payloadType());
        if (workload.rowTime()) {
            schema.columnByExpression("rt", "TO_TIMESTAMP_LTZ(v, 3)")
                    .watermark("rt", "rt - INTERVAL '1' SECOND");
        }
        tables.createTemporaryView(
                "src",
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "generated rows"),
                schema.build());
        tables.executeSql(workload.sinkDdl());
        return tables;
    }

    private Configuration configuration(BenchSetup setup) {
        Configuration config = new Configuration();
        config.set(StateBackendOptions.STATE_BACKEND, setup.stateBackend());
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, CHECKPOINT_INTERVAL);
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        config.set(CoreOptions.DEFAULT_PARALLELISM, PARALLELISM);
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MANAGED_MEMORY);
        setup.options().forEach(config::setString);
        return config;
    }
}
