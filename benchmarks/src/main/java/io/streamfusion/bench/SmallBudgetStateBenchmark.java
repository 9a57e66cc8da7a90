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

import com.sun.management.OperatingSystemMXBean;

import java.io.File;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
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
 * load it again for every operation. Every backend is loaded once, side by side in one process;
 * then each operation is warmed up on each backend and timed in rounds of one fixed interval per
 * backend, on the same state. Results are report records.
 */
public final class SmallBudgetStateBenchmark {

    static final String SUITE = "small-budget";
    static final int MAP_ENTRIES = 10;
    private static final int LIST_ELEMENTS = 2;
    private static final String BUDGET = "136mb";

    /** Background work below 5% of a core over this window counts as settled. */
    private static final Duration QUIET_WINDOW = Duration.ofSeconds(1);

    /** A backend still compacting after this long is measured as it is. */
    private static final Duration MAX_SETTLE = Duration.ofMinutes(3);

    /** One state access at a random key; its result feeds a checksum so the JIT keeps it. */
    private interface Operation {
        long run() throws Exception;
    }

    private final int keys;
    private final Timing timing;
    private final Pattern operations;
    private final List<String> records = new ArrayList<>();

    private SmallBudgetStateBenchmark(int keys, Timing timing, Pattern operations) {
        this.keys = keys;
        this.timing = timing;
        this.operations = operations;
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
            SmallBudgetStateBenchmark run =
                    new SmallBudgetStateBenchmark(Integer.parseInt(keys), timing, operations);
            run.run(args[2].split(","));
            all.addAll(run.records);
        }
        try (Writer out =
                Files.newBufferedWriter(new File(args[0]).toPath(), StandardCharsets.UTF_8)) {
            out.write("[\n" + String.join(",\n", all) + "\n]\n");
        }
    }

    /**
     * Loads every backend, then times each operation on all of them in turn, one interval each
     * round: the machine's drift over a run (other tenants, the last backend's compactions) then
     * falls on every backend alike instead of on whichever ran at that moment.
     */
    private void run(String[] backends) throws Exception {
        List<LoadedBackend> loaded = new ArrayList<>();
        try {
            for (String backend : backends) {
                loaded.add(new LoadedBackend(backend, keys));
            }
            // Every backend builds the same operations, in the same order.
            for (String operation : loaded.get(0).operationNames()) {
                if (operations.matcher(operation).matches()) {
                    awaitQuiescence();
                    measure(operation, loaded);
                }
            }
        } finally {
            for (LoadedBackend backend : loaded) {
                backend.close();
            }
        }
    }

    /**
     * Waits until the process is idle while this thread sleeps: the flushes and compactions that a
     * load or the last write operation left behind have ended. Without it the backend loaded last,
     * or whose writes left the most to compact, would pay for its background work in the next
     * operation's intervals.
     */
    private static void awaitQuiescence() throws InterruptedException {
        OperatingSystemMXBean os =
                (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long start = System.nanoTime();
        long busy;
        do {
            long before = os.getProcessCpuTime();
            Thread.sleep(QUIET_WINDOW.toMillis());
            busy = os.getProcessCpuTime() - before;
        } while (busy > QUIET_WINDOW.toNanos() / 20
                && System.nanoTime() - start < MAX_SETTLE.toNanos());
        System.err.printf(
                Locale.ROOT,
                "   (settled in %.1f s, last window %.0f%% of a core)%n",
                (System.nanoTime() - start) / 1e9,
                100.0 * busy / QUIET_WINDOW.toNanos());
    }

    private void measure(String operation, List<LoadedBackend> backends) throws Exception {
        for (LoadedBackend backend : backends) {
            backend.runFor(operation, timing.warmup());
        }
        double[][] runs = new double[backends.size()][timing.iterations()];
        for (int i = 0; i < timing.iterations(); i++) {
            for (int b = 0; b < backends.size(); b++) {
                runs[b][i] = backends.get(b).runFor(operation, timing.iteration());
            }
        }
        for (int b = 0; b < backends.size(); b++) {
            String backend = backends.get(b).name;
            records.add(
                    BenchRecord.json(
                            SUITE, operation + " keys=" + keys, backend, "ops/s", runs[b]));
            System.err.printf(
                    Locale.ROOT,
                    "   %-20s %-16s %,14.0f ops/s%n",
                    operation,
                    backend,
                    BenchRecord.median(runs[b]));
        }
    }

    /** One backend holding the suite's state, with the operations timed on it. */
    private static final class LoadedBackend implements AutoCloseable {

        private final String name;
        private final int keys;
        // The same seed for every backend: each sees the same keys in the same order.
        private final SplittableRandom random = new SplittableRandom(42);
        private final BackendUnderTest underTest;
        private final Map<String, Operation> operations = new LinkedHashMap<>();
        private long checksum;

        LoadedBackend(String name, int keys) throws Exception {
            this.name = name;
            this.keys = keys;
            this.underTest = BackendUnderTest.create(backendKind(name), budgetOptions(name));
            try {
                load();
            } catch (Exception e) {
                try {
                    underTest.close();
                } catch (Exception closing) {
                    e.addSuppressed(closing);
                }
                throw e;
            }
        }

        private void load() throws Exception {
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
                    name,
                    keys,
                    (long) keys * MAP_ENTRIES,
                    BUDGET,
                    (System.nanoTime() - loadStart) / 1e9);
            operations.put("mapGet", () -> orZero(map.get(userKey(MAP_ENTRIES))));
            operations.put("mapContains", () -> map.contains(userKey(MAP_ENTRIES * 2)) ? 1 : 0);
            operations.put("mapIterate", () -> sumEntries(map));
            operations.put("valueGet", () -> randomKey() + orZero(value.value()));
            operations.put("ttlValueGet", () -> randomKey() + orZero(ttlValue.value()));
            operations.put("listGet", () -> randomKey() + countElements(list.get()));
            operations.put("mapUpdate", () -> put(map));
            operations.put("valueUpdate", () -> update(value));
            operations.put("ttlValueUpdate", () -> update(ttlValue));
            operations.put("listAdd", () -> add(list));
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

        private static long countElements(Iterable<Long> elements) {
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

        Set<String> operationNames() {
            return operations.keySet();
        }

        /** Runs {@code operation} for about {@code interval}; returns operations per second. */
        double runFor(String operation, Duration interval) throws Exception {
            Operation timed = operations.get(operation);
            long start = System.nanoTime();
            long deadline = start + interval.toNanos();
            long count = 0;
            long now;
            do {
                for (int i = 0; i < 256; i++) {
                    checksum += timed.run();
                }
                count += 256;
                now = System.nanoTime();
            } while (now < deadline);
            return count / ((now - start) / 1e9);
        }

        @Override
        public void close() throws Exception {
            System.err.printf(Locale.ROOT, "   (%s checksum %d)%n", name, checksum);
            underTest.close();
        }

        private static String backendKind(String backend) {
            return backend.startsWith("rocksdb") ? "rocksdb" : backend;
        }

        private static Configuration budgetOptions(String backend) {
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
}
