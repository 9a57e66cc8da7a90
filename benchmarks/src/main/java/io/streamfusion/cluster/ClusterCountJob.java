package io.streamfusion.cluster;

import io.streamfusion.demo.CountPerKeyOperator;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The job the cluster tests run: events {@code 0..n-1} from a rate-limited, checkpointed source,
 * counted per key ({@code event % keys}) in StreamFusion value state, every new count written to
 * files. With exactly-once state, the highest count written for each key is exactly the number of
 * its events, and no count is ever higher, however often the job fails over.
 */
public final class ClusterCountJob {

    private ClusterCountJob() {}

    public static void build(
            StreamExecutionEnvironment env,
            long events,
            long keys,
            long eventsPerSecond,
            Path output) {
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(
                        index -> index,
                        events,
                        RateLimiterStrategy.perSecond(eventsPerSecond),
                        Types.LONG);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "events")
                .uid("events")
                .keyBy(event -> event % keys, Types.LONG)
                .transform(
                        "count-per-key",
                        Types.TUPLE(Types.LONG, Types.LONG),
                        new CountPerKeyOperator(keys))
                .uid("count-per-key")
                .sinkTo(new CountLinesSink(output))
                .uid("count-lines");
    }

    /** Keys whose highest written count is not their number of events, with what was found. */
    public static Map<Long, String> wrongCounts(Path output, long events, long keys)
            throws IOException {
        Map<Long, Long> highest = new HashMap<>();
        try (Stream<Path> files = Files.list(output)) {
            for (Path file : files.toList()) {
                List<String> lines = Files.readAllLines(file);
                for (String line : lines) {
                    int comma = line.indexOf(',');
                    if (comma < 0) {
                        continue; // a line cut short by a killed process
                    }
                    long key = Long.parseLong(line.substring(0, comma));
                    long count = Long.parseLong(line.substring(comma + 1));
                    highest.merge(key, count, Math::max);
                }
            }
        }
        Map<Long, String> wrong = new TreeMap<>();
        for (long key = 0; key < keys; key++) {
            long expected = events / keys + (key < events % keys ? 1 : 0);
            Long found = highest.get(key);
            if (found == null || found != expected) {
                wrong.put(key, "expected " + expected + ", highest count written " + found);
            }
        }
        return wrong;
    }
}
