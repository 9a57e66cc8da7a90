package io.streamfusion.bench;

import io.streamfusion.api.StreamFusionOptions;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.DoubleSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import java.io.File;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

/**
 * Per-record state far larger than the slot's memory budget: every key holds {@value #MAP_ENTRIES}
 * {@code Long -> Double} map entries, a value, a TTL value ({@code OnReadAndWrite}) and a short
 * list, read and written at uniformly random keys. StreamFusion and Flink's {@code rocksdb} in
 * managed-memory mode ({@code rocksdb-managed}) get the same fixed budget per slot; {@code rocksdb}
 * runs as Flink's own state benchmarks configure it (managed memory off: RocksDB's default block
 * cache and memtables, index and filter blocks on the heap, outside any budget).
 *
 * <p>A plain program rather than JMH: loading the state takes minutes per backend, and JMH would
 * load it again for every operation. Each backend is loaded once, then every operation is warmed up
 * and timed over fixed intervals on the same state; results are report records.
 */
public final class SmallBudgetStateBenchmark {

    static final String SUITE = "small-budget";
    static final int MAP_ENTRIES = 10;
    private static final int LIST_ELEMENTS = 2;
    private static final String BUDGET = "136mb";

    /** One state access at a random key; its result feeds a checksum so the JIT keeps it. */
    private interface Operation {
        long run() throws Exception;
    }

    private final String backend;
    private final int keys;
    private final Timing timing;
    private final Pattern operations;
    private final SplittableRandom random = new SplittableRandom(42);
    private final List<String> records = new ArrayList<>();
    private BackendUnderTest underTest;
    private long checksum;

    private SmallBudgetStateBenchmark(String backend, int keys, Timing timing, Pattern operations) {
        this.backend = backend;
        this.operations = operations;
        this.keys = keys;
        this.timing = timing;
    }

    /** Warm-up and measurement intervals of one operation. */
    private record Timing(Duration warmup, Duration iteration, int iterations) {}

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            throw new IllegalArgumentException(
                    "Usage: SmallBudgetStateBenchmark <output.json> <quick|full> <backend,...>"
                            + " <keys,...> [operation regex]");
        }
        Timing timing =
                "full".equals(args[1])
                        ? new Timing(Duration.ofSeconds(5), Duration.ofSeconds(3), 5)
                        : new Timing(Duration.ofSeconds(2), Duration.ofSeconds(1), 3);
        Pattern operations = Pattern.compile(args.length > 4 ? args[4] : ".*");
        List<String> all = new ArrayList<>();
        for (String keys : args[3].split(",")) {
            for (String backend : args[2].split(",")) {
                SmallBudgetStateBenchmark run =
                        new SmallBudgetStateBenchmark(
                                backend, Integer.parseInt(keys), timing, operations);
                run.run();
                all.addAll(run.records);
            }
        }
        try (Writer out =
                Files.newBufferedWriter(new File(args[0]).toPath(), StandardCharsets.UTF_8)) {
            out.write("[\n" + String.join(",\n", all) + "\n]\n");
        }
    }

    private void run() throws Exception {
        try (BackendUnderTest created = BackendUnderTest.create(backendKind(), budgetOptions())) {
            underTest = created;
            MapState<Long, Double> map =
                    register(
                            new MapStateDescriptor<>(
                                    "map", LongSerializer.INSTANCE, DoubleSerializer.INSTANCE));
            ValueState<Long> value =
                    register(new ValueStateDescriptor<>("value", LongSerializer.INSTANCE));
            ValueStateDescriptor<Long> ttlDescriptor =
                    new ValueStateDescriptor<>("ttl-value", LongSerializer.INSTANCE);
            ttlDescriptor.enableTimeToLive(
                    StateTtlConfig.newBuilder(Duration.ofHours(1))
                            .setUpdateType(StateTtlConfig.UpdateType.OnReadAndWrite)
                            .build());
            ValueState<Long> ttlValue = register(ttlDescriptor);
            ListState<Long> list =
                    register(new ListStateDescriptor<>("list", LongSerializer.INSTANCE));
            long loadStart = System.nanoTime();
            for (long key = 0; key < keys; key++) {
                underTest.keyed().setCurrentKey(key);
                for (long userKey = 0; userKey < MAP_ENTRIES; userKey++) {
                    map.put(userKey, (double) key);
                }
                value.update(key);
                ttlValue.update(key);
                for (int i = 0; i < LIST_ELEMENTS; i++) {
                    list.add(key);
                }
            }
            System.err.printf(
                    Locale.ROOT,
                    "== %s: %s, %,d keys (%,d map entries), budget %s, loaded in %.1f s%n",
                    SUITE,
                    backend,
                    keys,
                    (long) keys * MAP_ENTRIES,
                    BUDGET,
                    (System.nanoTime() - loadStart) / 1e9);
            Map<String, Operation> all = new LinkedHashMap<>();
            all.put("mapGet", () -> orZero(map.get(userKey(MAP_ENTRIES))));
            all.put("mapContains", () -> map.contains(userKey(MAP_ENTRIES * 2)) ? 1 : 0);
            all.put("mapIterate", () -> sumEntries(map));
            all.put("valueGet", () -> randomKey() + orZero(value.value()));
            all.put("ttlValueGet", () -> randomKey() + orZero(ttlValue.value()));
            all.put("listGet", () -> randomKey() + countElements(list.get()));
            all.put("mapUpdate", () -> put(map));
            all.put("valueUpdate", () -> update(value));
            all.put("ttlValueUpdate", () -> update(ttlValue));
            all.put("listAdd", () -> add(list));
            for (Map.Entry<String, Operation> operation : all.entrySet()) {
                if (operations.matcher(operation.getKey()).matches()) {
                    measure(operation.getKey(), operation.getValue());
                }
            }
        }
        System.err.printf(Locale.ROOT, "   (checksum %d)%n", checksum);
    }

    private <S extends State> S register(StateDescriptor<S, ?> descriptor) throws Exception {
        return underTest
                .keyed()
                .getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    /** Makes a uniformly random key current; returns 0, for use inside an operation's sum. */
    private long randomKey() {
        underTest.keyed().setCurrentKey((long) random.nextInt(keys));
        return 0;
    }

    /** Makes a random key current and draws one of its user keys from {@code [0, bound)}. */
    private long userKey(int bound) {
        randomKey();
        return random.nextInt(bound);
    }

    private long sumEntries(MapState<Long, Double> map) throws Exception {
        randomKey();
        long sum = 0;
        for (Map.Entry<Long, Double> entry : map.entries()) {
            sum += entry.getValue().longValue();
        }
        return sum;
    }

    private long countElements(Iterable<Long> elements) {
        long count = 0;
        if (elements != null) {
            for (Long ignored : elements) {
                count++;
            }
        }
        return count;
    }

    private long put(MapState<Long, Double> map) throws Exception {
        map.put(userKey(MAP_ENTRIES), 1.5);
        return 1;
    }

    private long update(ValueState<Long> state) throws Exception {
        randomKey();
        state.update(7L);
        return 1;
    }

    private long add(ListState<Long> list) throws Exception {
        randomKey();
        list.add(7L);
        return 1;
    }

    private static long orZero(Number number) {
        return number == null ? 0 : number.longValue();
    }

    private void measure(String name, Operation operation) throws Exception {
        runFor(operation, timing.warmup());
        double[] runs = new double[timing.iterations()];
        for (int i = 0; i < runs.length; i++) {
            runs[i] = runFor(operation, timing.iteration());
        }
        records.add(BenchRecord.json(SUITE, name + " keys=" + keys, backend, "ops/s", runs));
        System.err.printf(Locale.ROOT, "   %-20s %,14.0f ops/s%n", name, BenchRecord.median(runs));
    }

    /** Runs {@code operation} for about {@code interval}; returns operations per second. */
    private double runFor(Operation operation, Duration interval) throws Exception {
        long start = System.nanoTime();
        long deadline = start + interval.toNanos();
        long count = 0;
        long now;
        do {
            for (int i = 0; i < 256; i++) {
                checksum += operation.run();
            }
            count += 256;
            now = System.nanoTime();
        } while (now < deadline);
        return count / ((now - start) / 1e9);
    }

    private String backendKind() {
        return backend.startsWith("rocksdb") ? "rocksdb" : backend;
    }

    private Configuration budgetOptions() {
        Configuration options = new Configuration();
        switch (backend) {
            case "rocksdb":
                options.setString("state.backend.rocksdb.memory.managed", "false");
                break;
            case "rocksdb-managed":
                options.setString("state.backend.rocksdb.memory.fixed-per-slot", BUDGET);
                break;
            default:
                options.setString(StreamFusionOptions.FIXED_MEMORY_PER_SLOT.key(), BUDGET);
        }
        return options;
    }
}
