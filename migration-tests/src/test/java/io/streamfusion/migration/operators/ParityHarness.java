package io.streamfusion.migration.operators;

import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.operators.OperatorOptions;
import io.streamfusion.operators.StreamFusionOperators;
import io.streamfusion.operators.batch.BatchingOperator;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs one SQL statement over a scripted input on the test MiniCluster, with the columnar operator
 * layer off and on, and compares the changelogs the sink received record by record, row kinds
 * included, in order. A run is a list of phases: each phase is one job, at its own parallelism and
 * with the layer on or off, stopped after a given number of input rows by a checkpoint (then
 * cancelled) or by a native or canonical savepoint, and the next phase restores from it. The last
 * phase runs to the end of the input.
 *
 * <p>Runs where a phase has a parallelism above one are compared per key, in order (a key's records
 * are ordered; records of different keys from different subtasks interleave freely). Every run on
 * checks that the columnar operators really processed rows, from their accumulators.
 */
final class ParityHarness {

    private static final Duration WAIT = Duration.ofMinutes(2);

    private final MiniCluster miniCluster;
    private final Path dir;

    ParityHarness(MiniCluster miniCluster, Path dir) {
        this.miniCluster = miniCluster;
        this.dir = dir;
    }

    /** A raw column of this name becomes the row-time attribute {@code ts} of {@code scripted}. */
    static final String ROWTIME_SOURCE_COLUMN = "rt";

    /**
     * Options that take a kernel to its edges: TTL on (which changes what Flink emits and writes),
     * batches of three rows (so a key's rows straddle batches) and no cache (so every row is read
     * from state).
     */
    static final Map<String, String> TTL_AND_BATCHES_OF_THREE_WITHOUT_CACHE =
            Map.of(
                    "table.exec.state.ttl",
                    "1 h",
                    "streamfusion.operators.batch-rows",
                    "3",
                    "streamfusion.operators.cache-size",
                    "0");

    /**
     * A shape option the harness reads, not Flink: the watermark of {@code ts} as a SQL expression.
     * Without it the watermark is {@code ts}, emitted periodically. With it, Flink's watermark
     * assigner emits every increase at once, so the rows a watermark overtakes and the timers it
     * fires are the same in every run at parallelism 1.
     */
    static final String WATERMARK = "parity-harness.watermark";

    /**
     * What runs: the scripted input (a view {@code src} over the table {@code scripted} of raw
     * rows, which may cast; a raw column {@code rt} adds the row-time attribute {@code ts}), a sink
     * table and the INSERT into it, and the table options of the job.
     *
     * @param keyColumns the sink columns that hold each output row's key, for per-key comparison
     */
    record Shape(
            String name,
            String[] columns,
            TypeInformation<?>[] types,
            List<Row> rows,
            String inputView,
            String sinkColumns,
            boolean upsertSink,
            String insert,
            Map<String, String> options,
            int... keyColumns) {

        @Override
        public String toString() {
            return name;
        }
    }

    /** How a phase ends. */
    enum Stop {
        END,
        CHECKPOINT,
        NATIVE_SAVEPOINT,
        CANONICAL_SAVEPOINT
    }

    /** One job of a run: its parallelism, the layer, and after how many input rows it stops. */
    record Phase(int parallelism, boolean layer, Stop stop, long afterRows) {
        static Phase toEnd(int parallelism, boolean layer) {
            return new Phase(parallelism, layer, Stop.END, Long.MAX_VALUE);
        }
    }

    /** What a run's sink received, and how many rows the columnar operators processed. */
    record Outcome(List<Row> changelog, long columnarRows) {}

    Outcome run(Shape shape, List<Phase> phases) throws Exception {
        return runEach(Collections.nCopies(phases.size(), shape), phases);
    }

    /**
     * Runs phase {@code i} with {@code shapes.get(i)}: shapes that differ in their options only
     * (say, a strategy), over the first shape's rows.
     */
    Outcome runEach(List<Shape> shapes, List<Phase> phases) throws Exception {
        Shape first = shapes.get(0);
        String run = first.name().replaceAll("[^A-Za-z0-9]", "_") + "-" + UUID.randomUUID();
        ScriptedRows.register(run, first.rows());
        try {
            String restorePath = null;
            long columnarRows = 0;
            for (int i = 0; i < phases.size(); i++) {
                Phase phase = phases.get(i);
                ScriptedRows.openUntil(run, phase.afterRows());
                JobClient job = submit(shapes.get(i), run, phase, restorePath);
                if (phase.stop() == Stop.END) {
                    columnarRows +=
                            columnarRows(
                                    job.getJobExecutionResult().get().getAllAccumulatorResults());
                    restorePath = null;
                    continue;
                }
                awaitEmitted(run, phase.afterRows(), job);
                restorePath = stop(job, phase.stop(), run);
                if (phase.stop() != Stop.CHECKPOINT) {
                    columnarRows +=
                            columnarRows(
                                    job.getJobExecutionResult().get().getAllAccumulatorResults());
                }
            }
            return new Outcome(CollectingSinkFactory.collected(run), columnarRows);
        } finally {
            ScriptedRows.forget(run);
            CollectingSinkFactory.forget(run);
        }
    }

    /** How a job failed, and what its sink had received by then. */
    record Failure(Throwable rootCause, List<Row> changelog) {}

    /** Runs {@code shape} with the layer on or off, expecting its job to fail. */
    Failure runFailing(Shape shape, boolean layer) throws Exception {
        String run = shape.name().replaceAll("[^A-Za-z0-9]", "_") + "-" + UUID.randomUUID();
        ScriptedRows.register(run, shape.rows());
        try {
            ScriptedRows.openUntil(run, Long.MAX_VALUE);
            JobClient job = submit(shape, run, Phase.toEnd(1, layer), null);
            try {
                job.getJobExecutionResult().get();
            } catch (ExecutionException e) {
                Throwable cause = e;
                while (cause.getCause() != null) {
                    cause = cause.getCause();
                }
                return new Failure(cause, CollectingSinkFactory.collected(run));
            }
            throw new AssertionError(shape + ": the job did not fail");
        } finally {
            ScriptedRows.forget(run);
            CollectingSinkFactory.forget(run);
        }
    }

    private JobClient submit(Shape shape, String run, Phase phase, String restorePath) {
        Configuration config = new Configuration();
        config.set(StateBackendOptions.STATE_BACKEND, "streamfusion");
        config.setString(
                StreamFusionOptions.LOCAL_DIRECTORIES.key(), dir.resolve("work").toString());
        config.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                dir.resolve("checkpoints").toUri().toString());
        config.set(
                CheckpointingOptions.SAVEPOINT_DIRECTORY,
                dir.resolve("savepoints").toUri().toString());
        // Checkpoints come only when a phase asks for one; they are kept when the job is cancelled.
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofHours(1));
        config.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        // A failure fails the phase at once instead of restarting until the test times out.
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        config.set(CoreOptions.DEFAULT_PARALLELISM, phase.parallelism());
        config.set(PipelineOptions.MAX_PARALLELISM, 128);
        String watermark = shape.options().get(WATERMARK);
        if (watermark != null) {
            config.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ZERO);
        }
        if (restorePath != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, restorePath);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        shape.options().entrySet().stream()
                .filter(option -> !option.getKey().equals(WATERMARK))
                .forEach(
                        option ->
                                tables.getConfig()
                                        .getConfiguration()
                                        .setString(option.getKey(), option.getValue()));
        tables.getConfig().set(OperatorOptions.ENABLED, phase.layer());
        StreamFusionOperators.install(tables);

        DataGeneratorSource<Row> source =
                new DataGeneratorSource<>(
                        new ScriptedRows.Generator(run),
                        shape.rows().size(),
                        new ScriptedRows.Gate(run),
                        Types.ROW_NAMED(shape.columns(), shape.types()));
        // One source subtask keeps the input in one order, whatever the phase's parallelism.
        DataStream<Row> raw =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "scripted rows")
                        .setParallelism(1);
        if (List.of(shape.columns()).contains(ROWTIME_SOURCE_COLUMN)) {
            // The raw columns come from the rows' type, as without a schema.
            tables.createTemporaryView(
                    "scripted",
                    raw,
                    Schema.newBuilder()
                            .columnByExpression(
                                    "ts", "CAST(" + ROWTIME_SOURCE_COLUMN + " AS TIMESTAMP(3))")
                            .watermark("ts", watermark != null ? watermark : "ts")
                            .build());
        } else {
            tables.createTemporaryView("scripted", raw);
        }
        tables.executeSql("CREATE TEMPORARY VIEW src AS " + shape.inputView());
        tables.executeSql(
                "CREATE TEMPORARY TABLE sink ("
                        + shape.sinkColumns()
                        + ") WITH ('connector' = '"
                        + CollectingSinkFactory.IDENTIFIER
                        + "', 'output' = '"
                        + run
                        + "', 'changelog-mode' = '"
                        + (shape.upsertSink() ? "upsert" : "all")
                        + "')");
        return tables.executeSql(shape.insert()).getJobClient().orElseThrow();
    }

    private static void awaitEmitted(String run, long rows, JobClient job) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (ScriptedRows.emitted(run) < rows) {
            if (System.nanoTime() > deadline
                    || job.getJobStatus().get().isGloballyTerminalState()) {
                throw new AssertionError(
                        "the source emitted "
                                + ScriptedRows.emitted(run)
                                + " of "
                                + rows
                                + " rows: "
                                + job.getJobStatus().get());
            }
            Thread.sleep(5);
        }
    }

    private String stop(JobClient job, Stop stop, String run) throws Exception {
        String savepoints = dir.resolve("savepoints").toUri().toString();
        switch (stop) {
            case CHECKPOINT:
                String checkpoint =
                        onceRunning(() -> miniCluster.triggerCheckpoint(job.getJobID()));
                job.cancel().get();
                while (!job.getJobStatus().get().isGloballyTerminalState()) {
                    Thread.sleep(5);
                }
                return checkpoint;
            case NATIVE_SAVEPOINT:
                return onceRunning(
                        () -> job.stopWithSavepoint(false, savepoints, SavepointFormatType.NATIVE));
            case CANONICAL_SAVEPOINT:
                return onceRunning(
                        () ->
                                job.stopWithSavepoint(
                                        false, savepoints, SavepointFormatType.CANONICAL));
            default:
                throw new IllegalArgumentException("Phase of run " + run + " stops at the end");
        }
    }

    /**
     * The path of a checkpoint or savepoint, retried while some task of the job is still being
     * deployed (the source may have emitted its rows before every task runs).
     */
    private static String onceRunning(Supplier<CompletableFuture<String>> snapshot)
            throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                return snapshot.get().get();
            } catch (ExecutionException e) {
                boolean deploying =
                        String.valueOf(e.getCause())
                                .contains("Not all required tasks are currently running");
                if (!deploying || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(10);
            }
        }
    }

    /**
     * Runs {@code shape} with the layer on straight through and across a checkpoint after 2/5 of
     * the input (cancelled, then restored), and checks each changelog against {@code reference}.
     */
    void assertSameStraightAndRestored(Shape shape, Outcome reference) throws Exception {
        long rows = shape.rows().size();
        assertSameChangelog(
                shape, reference, run(shape, List.of(Phase.toEnd(1, true))), "straight through");
        Outcome restored =
                run(
                        shape,
                        List.of(
                                new Phase(1, true, Stop.CHECKPOINT, rows * 2 / 5),
                                Phase.toEnd(1, true)));
        assertSameChangelog(shape, reference, restored, "across a checkpoint and restore");
    }

    /**
     * As {@link #assertSameEverywhere}, without rescaling: for shapes whose output depends on when
     * watermarks overtake rows, which at parallelism 2 depends on how the rows are spread over the
     * watermark assigner's subtasks (the rebalance starts at a random one).
     */
    void assertSameAtParallelismOne(Shape shape) throws Exception {
        Outcome reference = run(shape, List.of(Phase.toEnd(1, false)));
        assertSameStraightAndRestored(shape, reference);
        assertSameSwitched(shape, reference);
    }

    /**
     * The layer on reproduces the layer-off changelog of {@code shape} straight through, across a
     * checkpoint and restore, rescaled 1 -> 2 -> 1, and switched on -> off -> on through a
     * canonical and a native savepoint: the checks of an operator whose state is Flink's.
     */
    void assertSameEverywhere(Shape shape) throws Exception {
        Outcome reference = run(shape, List.of(Phase.toEnd(1, false)));
        assertSameStraightAndRestored(shape, reference);
        assertSameRescaled(shape, reference);
        assertSameSwitched(shape, reference);
    }

    /**
     * For operators whose output depends on where Flink's bundles end (mini-batch, where a
     * checkpoint or a restore ends a bundle): the layer on reproduces the layer off run through the
     * same phases, straight through, across a checkpoint and restore, rescaled 1 -> 2 -> 1, and
     * switched on -> off -> on.
     */
    void assertSameInEveryPhasing(Shape shape) throws Exception {
        assertSameInEveryPhasing(shape, false);
    }

    /**
     * As {@link #assertSameInEveryPhasing(Shape)}, for shapes whose stateful operator receives
     * several upstream subtasks at parallelism 2 (a two-phase aggregation's global half, a second
     * level), interleaved as the network delivers them: runs at parallelism 2 are compared on their
     * result (see {@link #assertSameEverywhereInterleaved}).
     */
    void assertSameInEveryPhasingInterleaved(Shape shape) throws Exception {
        assertSameInEveryPhasing(shape, true);
    }

    private void assertSameInEveryPhasing(Shape shape, boolean interleaved) throws Exception {
        long rows = shape.rows().size();
        List<List<Phase>> phasings =
                List.of(
                        List.of(Phase.toEnd(1, true)),
                        List.of(
                                new Phase(1, true, Stop.CHECKPOINT, rows * 2 / 5),
                                Phase.toEnd(1, true)),
                        List.of(
                                new Phase(1, true, Stop.NATIVE_SAVEPOINT, rows * 3 / 10),
                                new Phase(2, true, Stop.CANONICAL_SAVEPOINT, rows * 13 / 20),
                                Phase.toEnd(1, true)),
                        List.of(
                                new Phase(1, true, Stop.CANONICAL_SAVEPOINT, rows * 3 / 10),
                                new Phase(1, false, Stop.NATIVE_SAVEPOINT, rows * 3 / 5),
                                Phase.toEnd(1, true)));
        for (List<Phase> phasing : phasings) {
            List<Phase> off = new ArrayList<>();
            phasing.forEach(
                    p -> off.add(new Phase(p.parallelism(), false, p.stop(), p.afterRows())));
            Outcome reference = run(shape, off);
            Outcome on = run(shape, phasing);
            String what = "through " + phasing;
            if (phasing.stream().anyMatch(p -> p.parallelism() > 1)) {
                if (interleaved) {
                    assertSameResult(shape, reference, on, what);
                } else {
                    assertSameChangelogPerKey(shape, reference, on, what);
                }
            } else {
                assertSameChangelog(shape, reference, on, what);
            }
        }
    }

    /**
     * Rescales {@code shape} with the layer on 1 -> 2 -> 1 through native and through canonical
     * savepoints, and checks each key's changelog against {@code reference}.
     */
    void assertSameRescaled(Shape shape, Outcome reference) throws Exception {
        for (Stop savepoint : List.of(Stop.NATIVE_SAVEPOINT, Stop.CANONICAL_SAVEPOINT)) {
            Outcome rescaled = runRescaled(shape, savepoint);
            assertSameChangelogPerKey(
                    shape, reference, rescaled, "rescaled 1 -> 2 -> 1 through " + savepoint);
        }
    }

    /**
     * As {@link #assertSameEverywhere}, for shapes with two stateful levels: at parallelism 2 the
     * second level receives the first level's subtasks interleaved as the network delivers them, so
     * its changelog differs from run to run, with Flink's operators too. Runs at parallelism 1 are
     * compared record by record in order; rescaled runs on their result, the rows that remain once
     * the changelog is applied.
     */
    void assertSameEverywhereInterleaved(Shape shape) throws Exception {
        Outcome reference = run(shape, List.of(Phase.toEnd(1, false)));
        assertSameStraightAndRestored(shape, reference);
        for (Stop savepoint : List.of(Stop.NATIVE_SAVEPOINT, Stop.CANONICAL_SAVEPOINT)) {
            assertSameResult(
                    shape,
                    reference,
                    runRescaled(shape, savepoint),
                    "rescaled 1 -> 2 -> 1 through " + savepoint);
        }
        assertSameSwitched(shape, reference);
    }

    /** As {@link #assertSameChangelog}, comparing the rows the changelogs leave. */
    private static void assertSameResult(Shape shape, Outcome reference, Outcome on, String what) {
        assertTrue(
                on.columnarRows() > 0,
                shape + " " + what + ": the columnar operator processed no row");
        assertEquals(applied(reference.changelog()), applied(on.changelog()), shape + " " + what);
    }

    /** The rows a changelog leaves: each +I/+U adds its row, each -U/-D takes one away. */
    private static Map<String, Integer> applied(List<Row> changelog) {
        Map<String, Integer> rows = new java.util.TreeMap<>();
        for (Row row : changelog) {
            Row content = Row.copy(row);
            content.setKind(org.apache.flink.types.RowKind.INSERT);
            boolean adds =
                    row.getKind() == org.apache.flink.types.RowKind.INSERT
                            || row.getKind() == org.apache.flink.types.RowKind.UPDATE_AFTER;
            rows.merge(content.toString(), adds ? 1 : -1, Integer::sum);
        }
        rows.values().removeIf(count -> count == 0);
        return rows;
    }

    /** Switches the layer on -> off -> on through a canonical and a native savepoint. */
    private void assertSameSwitched(Shape shape, Outcome reference) throws Exception {
        long rows = shape.rows().size();
        Outcome switched =
                run(
                        shape,
                        List.of(
                                new Phase(1, true, Stop.CANONICAL_SAVEPOINT, rows * 3 / 10),
                                new Phase(1, false, Stop.NATIVE_SAVEPOINT, rows * 3 / 5),
                                Phase.toEnd(1, true)));
        assertSameChangelog(shape, reference, switched, "switched on -> off -> on");
    }

    /**
     * Mini-batch of {@code size} rows whose interval (a day, aligned to the epoch) never ends a
     * bundle while a test runs, so that Flink's bundles, and its output, do not depend on time. On
     * row time too: the row times stay within the epoch's first day, where Flink's mini-batch
     * assigner forwards no watermark.
     */
    static Map<String, String> miniBatchOf(String size, Map<String, String> more) {
        Map<String, String> options = new java.util.HashMap<>(more);
        options.put("table.exec.mini-batch.enabled", "true");
        options.put("table.exec.mini-batch.allow-latency", "1 d");
        options.put("table.exec.mini-batch.size", size);
        return options;
    }

    /** Runs {@code shape} with the layer on, rescaled 1 -> 2 -> 1 through {@code savepoint}s. */
    private Outcome runRescaled(Shape shape, Stop savepoint) throws Exception {
        long rows = shape.rows().size();
        return run(
                shape,
                List.of(
                        new Phase(1, true, savepoint, rows * 3 / 10),
                        new Phase(2, true, savepoint, rows * 13 / 20),
                        Phase.toEnd(1, true)));
    }

    static long columnarRows(Map<String, Object> accumulators) {
        return accumulators.entrySet().stream()
                .filter(entry -> entry.getKey().startsWith(BatchingOperator.ROWS_ACCUMULATOR))
                .mapToLong(entry -> ((Number) entry.getValue()).longValue())
                .sum();
    }

    /**
     * Checks the layer against Flink's own operators: the run with the layer off is the reference;
     * {@code on} must equal it record by record in order, and must have gone through the columnar
     * operators.
     */
    static void assertSameChangelog(Shape shape, Outcome reference, Outcome on, String what) {
        assertTrue(!reference.changelog().isEmpty(), shape + ": the reference produced records");
        assertEquals(
                0, reference.columnarRows(), shape + ": the reference ran Flink's operators only");
        assertTrue(
                on.columnarRows() > 0,
                shape + " " + what + ": the columnar operator processed no row");
        assertEquals(describe(reference.changelog()), describe(on.changelog()), shape + " " + what);
    }

    /** As {@link #assertSameChangelog}, comparing each key's records in order. */
    static void assertSameChangelogPerKey(Shape shape, Outcome reference, Outcome on, String what) {
        assertTrue(
                on.columnarRows() > 0,
                shape + " " + what + ": the columnar operator processed no row");
        assertEquals(
                perKey(shape, reference.changelog()),
                perKey(shape, on.changelog()),
                shape + " " + what);
    }

    private static List<String> describe(List<Row> changelog) {
        List<String> lines = new ArrayList<>(changelog.size());
        changelog.forEach(row -> lines.add(row.toString()));
        return lines;
    }

    private static Map<String, List<String>> perKey(Shape shape, List<Row> changelog) {
        Map<String, List<String>> byKey = new LinkedHashMap<>();
        for (Row row : changelog) {
            List<Object> key = new ArrayList<>();
            for (int column : shape.keyColumns()) {
                key.add(row.getField(column));
            }
            byKey.computeIfAbsent(key.toString(), unused -> new ArrayList<>()).add(row.toString());
        }
        return new java.util.TreeMap<>(byKey);
    }
}
