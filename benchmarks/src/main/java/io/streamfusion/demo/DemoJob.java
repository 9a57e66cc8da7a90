package io.streamfusion.demo;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The main StreamFusion demo: a keyed counting job on an embedded MiniCluster that takes
 * checkpoints, stops with a canonical savepoint, and is restored from it at a different
 * parallelism. It checks that every key's final count is exact. {@code bin/demo} runs it.
 */
public final class DemoJob {

    /** What to run. */
    public record Options(
            String backendType,
            long events,
            long keys,
            int parallelismBefore,
            int parallelismAfter,
            SavepointFormatType savepointFormat,
            Path workDir) {

        public static Options defaults(Path workDir) {
            return new Options(
                    "streamfusion", 40_000, 1_000, 2, 3, SavepointFormatType.CANONICAL, workDir);
        }

        public Options withBackendType(String type) {
            return new Options(
                    type,
                    events,
                    keys,
                    parallelismBefore,
                    parallelismAfter,
                    savepointFormat,
                    workDir);
        }

        public Options withSavepointFormat(SavepointFormatType format) {
            return new Options(
                    backendType,
                    events,
                    keys,
                    parallelismBefore,
                    parallelismAfter,
                    format,
                    workDir);
        }
    }

    /** What one run of the job saw. */
    public record PhaseReport(
            int parallelism,
            List<String> keyedBackendClasses,
            long stateEntriesAtClose,
            int checkpointsCompleted) {}

    /** What the demo did and whether the result is exact. */
    public record Report(
            Options options,
            PhaseReport before,
            String savepointPath,
            PhaseReport after,
            Map<Long, Long> finalCounts) {

        /** Keys whose final count differs from the number of events generated for them. */
        public Map<Long, String> wrongCounts() {
            Map<Long, String> wrong = new TreeMap<>();
            for (long key = 0; key < options.keys(); key++) {
                long expected = expectedCount(options, key);
                Long actual = finalCounts.get(key);
                if (actual == null || actual != expected) {
                    wrong.put(key, "expected " + expected + ", got " + actual);
                }
            }
            return wrong;
        }
    }

    private static final Duration CHECKPOINT_INTERVAL = Duration.ofMillis(200);
    private static final Duration CHECKPOINT_WAIT = Duration.ofMinutes(2);
    private static final int CHECKPOINTS_BEFORE_STOP = 2;

    private DemoJob() {}

    static long expectedCount(Options options, long key) {
        long full = options.events() / options.keys();
        return full + (key < options.events() % options.keys() ? 1 : 0);
    }

    public static Report run(Options options) throws Exception {
        MaxCountSink.MAX_COUNTS.clear();
        Path checkpoints = Files.createDirectories(options.workDir().resolve("checkpoints"));
        Path savepoints = Files.createDirectories(options.workDir().resolve("savepoints"));

        // Phase 1: slow input, so the job is still running after its checkpoints complete.
        CountPerKeyOperator.COMPLETED_CHECKPOINTS.set(0);
        Configuration before = configuration(options, checkpoints, options.parallelismBefore());
        StreamExecutionEnvironment env1 =
                StreamExecutionEnvironment.getExecutionEnvironment(before);
        build(env1, options, Math.max(1, options.events() / 30));
        JobClient client = env1.executeAsync("streamfusion-demo-before-restore");
        awaitCheckpoints(client);
        String savepoint =
                client.stopWithSavepoint(
                                false, savepoints.toUri().toString(), options.savepointFormat())
                        .get();
        JobExecutionResult first = client.getJobExecutionResult().get();
        PhaseReport beforeReport =
                report(
                        first,
                        options.parallelismBefore(),
                        CountPerKeyOperator.COMPLETED_CHECKPOINTS.get());

        // Phase 2: restore from the savepoint at another parallelism and run to the end.
        CountPerKeyOperator.COMPLETED_CHECKPOINTS.set(0);
        Configuration after = configuration(options, checkpoints, options.parallelismAfter());
        after.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        StreamExecutionEnvironment env2 = StreamExecutionEnvironment.getExecutionEnvironment(after);
        build(env2, options, 0);
        JobExecutionResult second = env2.execute("streamfusion-demo-after-restore");
        PhaseReport afterReport =
                report(
                        second,
                        options.parallelismAfter(),
                        CountPerKeyOperator.COMPLETED_CHECKPOINTS.get());

        return new Report(
                options,
                beforeReport,
                savepoint,
                afterReport,
                new TreeMap<>(MaxCountSink.MAX_COUNTS));
    }

    /**
     * Runs the job once to the end with checkpoints, failing it once after the first completed
     * checkpoint. Flink restarts it from that checkpoint; the counts must still be exact.
     */
    public static Report runWithInjectedFailure(Options options) throws Exception {
        MaxCountSink.MAX_COUNTS.clear();
        FailOnceAfterCheckpoint.FAILED.set(false);
        CountPerKeyOperator.COMPLETED_CHECKPOINTS.set(0);
        Path checkpoints = Files.createDirectories(options.workDir().resolve("checkpoints"));
        Configuration config = configuration(options, checkpoints, options.parallelismBefore());
        config.setString("restart-strategy.type", "fixed-delay");
        config.setString("restart-strategy.fixed-delay.attempts", "3");
        config.setString("restart-strategy.fixed-delay.delay", "100 ms");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        build(env, options, Math.max(1, options.events() / 10), true);
        JobExecutionResult result = env.execute("streamfusion-demo-failover");
        if (!FailOnceAfterCheckpoint.FAILED.get()) {
            throw new IllegalStateException(
                    "The injected failure never happened: no checkpoint completed in time");
        }
        PhaseReport report =
                report(
                        result,
                        options.parallelismBefore(),
                        CountPerKeyOperator.COMPLETED_CHECKPOINTS.get());
        return new Report(options, report, null, report, new TreeMap<>(MaxCountSink.MAX_COUNTS));
    }

    private static Configuration configuration(Options options, Path checkpoints, int parallelism) {
        Configuration config = new Configuration();
        config.set(StateBackendOptions.STATE_BACKEND, options.backendType());
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, CHECKPOINT_INTERVAL);
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        config.setString("parallelism.default", Integer.toString(parallelism));
        return config;
    }

    private static void build(
            StreamExecutionEnvironment env, Options options, long eventsPerSecond) {
        build(env, options, eventsPerSecond, false);
    }

    private static void build(
            StreamExecutionEnvironment env,
            Options options,
            long eventsPerSecond,
            boolean injectFailure) {
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(
                        index -> index,
                        options.events(),
                        eventsPerSecond > 0
                                ? RateLimiterStrategy.perSecond(eventsPerSecond)
                                : RateLimiterStrategy.noOp(),
                        Types.LONG);
        DataStream<Long> events =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "events").uid("events");
        if (injectFailure) {
            events = events.map(new FailOnceAfterCheckpoint()).uid("fail-once");
        }
        events.keyBy(new ModuloKey(options.keys()), Types.LONG)
                .transform(
                        "count-per-key",
                        Types.TUPLE(Types.LONG, Types.LONG),
                        new CountPerKeyOperator(options.keys()))
                .uid("count-per-key")
                .sinkTo(new MaxCountSink())
                .uid("max-count");
    }

    private static void awaitCheckpoints(JobClient client) throws Exception {
        long deadline = System.nanoTime() + CHECKPOINT_WAIT.toNanos();
        while (CountPerKeyOperator.COMPLETED_CHECKPOINTS.get() < CHECKPOINTS_BEFORE_STOP) {
            if (client.getJobStatus().get().isTerminalState()) {
                throw new IllegalStateException(
                        "The demo job ended before taking "
                                + CHECKPOINTS_BEFORE_STOP
                                + " checkpoints: "
                                + client.getJobStatus().get());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "No "
                                + CHECKPOINTS_BEFORE_STOP
                                + " completed checkpoints within "
                                + CHECKPOINT_WAIT);
            }
            Thread.sleep(50);
        }
    }

    private static PhaseReport report(JobExecutionResult result, int parallelism, int checkpoints) {
        List<String> classes = result.getAccumulatorResult(CountPerKeyOperator.BACKEND_CLASSES);
        Long entries = result.getAccumulatorResult(CountPerKeyOperator.STATE_ENTRIES_AT_CLOSE);
        return new PhaseReport(parallelism, classes, entries == null ? -1 : entries, checkpoints);
    }

    public static void main(String[] args) throws Exception {
        Path workDir =
                args.length > 0
                        ? Path.of(args[0])
                        : Files.createTempDirectory("streamfusion-demo-");
        Options options = Options.defaults(workDir);
        System.out.println(
                "StreamFusion demo: counting "
                        + options.events()
                        + " events over "
                        + options.keys()
                        + " keys with state.backend.type="
                        + options.backendType());
        Report report = run(options);
        print("before restore", report.before());
        System.out.println(
                "  stopped with a "
                        + report.options().savepointFormat().name().toLowerCase()
                        + " savepoint: "
                        + report.savepointPath());
        print("after restore", report.after());
        Map<Long, String> wrong = report.wrongCounts();
        if (wrong.isEmpty()) {
            System.out.println(
                    "Result: all "
                            + options.keys()
                            + " keys have exact counts after the restore."
                            + " Working files are in "
                            + workDir);
        } else {
            System.out.println(
                    "Result: WRONG counts for "
                            + wrong.size()
                            + " keys, e.g. "
                            + wrong.entrySet().iterator().next());
            System.exit(1);
        }
    }

    private static void print(String phase, PhaseReport report) {
        System.out.println(
                "  "
                        + phase
                        + ": parallelism "
                        + report.parallelism()
                        + ", checkpoints completed "
                        + report.checkpointsCompleted());
        System.out.println(
                "    keyed backend seen by the operator: "
                        + String.join(
                                ", ", report.keyedBackendClasses().stream().distinct().toList()));
        System.out.println(
                "    state entries counted by the backend at close: "
                        + report.stateEntriesAtClose());
    }

    /** Routes each event to the key it counts for. */
    private static final class ModuloKey implements KeySelector<Long, Long> {
        private static final long serialVersionUID = 1L;
        private final long keys;

        ModuloKey(long keys) {
            this.keys = keys;
        }

        @Override
        public Long getKey(Long value) {
            return value % keys;
        }
    }
}
