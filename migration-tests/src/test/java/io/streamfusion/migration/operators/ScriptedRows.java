package io.streamfusion.migration.operators;

import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.types.Row;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The input of a parity run: a fixed list of rows that a {@code DataGeneratorSource} emits in
 * order, with a gate that lets only the first {@code n} rows through and then holds the source idle
 * (but responsive to checkpoints) until the job is stopped. The MiniCluster runs in this JVM, so
 * the rows, the gates and the counters are plain static maps keyed by the run.
 */
final class ScriptedRows {

    private static final Map<String, List<Row>> ROWS = new ConcurrentHashMap<>();
    private static final Map<String, Long> GATES = new ConcurrentHashMap<>();
    private static final Map<String, AtomicLong> EMITTED = new ConcurrentHashMap<>();
    private static final CompletableFuture<Void> NEVER = new CompletableFuture<>();

    private ScriptedRows() {}

    static void register(String run, List<Row> rows) {
        ROWS.put(run, List.copyOf(rows));
        EMITTED.put(run, new AtomicLong());
    }

    /** Lets rows through until {@code total} have been emitted by every phase of the run. */
    static void openUntil(String run, long total) {
        GATES.put(run, total);
    }

    static long emitted(String run) {
        return EMITTED.get(run).get();
    }

    static void forget(String run) {
        ROWS.remove(run);
        GATES.remove(run);
        EMITTED.remove(run);
    }

    /** Row {@code index} of a run. */
    static final class Generator implements GeneratorFunction<Long, Row> {
        private static final long serialVersionUID = 1L;
        private final String run;

        Generator(String run) {
            this.run = run;
        }

        @Override
        public Row map(Long index) {
            EMITTED.get(run).incrementAndGet();
            return ROWS.get(run).get(index.intValue());
        }
    }

    /** Grants a row only while the run's gate is above the rows emitted so far. */
    static final class Gate implements RateLimiterStrategy<SourceSplit> {
        private static final long serialVersionUID = 1L;
        private final String run;

        Gate(String run) {
            this.run = run;
        }

        @Override
        public RateLimiter<SourceSplit> createRateLimiter(int parallelism) {
            return new RateLimiter<>() {
                private long granted = -1;

                @Override
                public CompletionStage<Void> acquire(int numberOfEvents) {
                    if (granted < 0) {
                        // A restored phase starts after the rows its predecessors emitted.
                        granted = EMITTED.get(run).get();
                    }
                    if (granted >= GATES.get(run)) {
                        return NEVER;
                    }
                    granted += numberOfEvents;
                    return CompletableFuture.completedFuture(null);
                }
            };
        }
    }
}
