package io.streamfusion.bench;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SavepointSnapshotStrategy;
import org.apache.flink.runtime.state.SharedStateRegistryImpl;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.SnapshotStrategyRunner;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.util.FileUtils;

import java.io.File;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.RunnableFuture;

import static org.apache.flink.runtime.state.SnapshotExecutionType.ASYNCHRONOUS;

/**
 * Snapshot and restore costs at scale, for each backend in the same run: the synchronous and
 * asynchronous phases of checkpoints, how long the task takes to write 1% of the keys while the
 * first checkpoint's asynchronous phase runs, bytes uploaded after 1% of the keys change, restore
 * with and without rescaling, and canonical savepoints. State is a value, a two-element list and a
 * two-entry map per key. Every restore is checked against the written values.
 *
 * <p>Usage: {@code SnapshotBenchmark <output.json> [keys] [repeats] [backend,...]}. Writes records
 * in the format of {@code bin/lib/bench_report.py}.
 */
public final class SnapshotBenchmark {

    private static final String SUITE = "snapshots";
    private static final KeyGroupRange ALL =
            new KeyGroupRange(0, BackendUnderTest.MAX_PARALLELISM - 1);
    private static final KeyGroupRange LOWER =
            new KeyGroupRange(0, BackendUnderTest.MAX_PARALLELISM / 2 - 1);
    private static final KeyGroupRange UPPER =
            new KeyGroupRange(
                    BackendUnderTest.MAX_PARALLELISM / 2, BackendUnderTest.MAX_PARALLELISM - 1);

    private final ValueStateDescriptor<Long> values =
            new ValueStateDescriptor<>("values", LongSerializer.INSTANCE);
    private final ListStateDescriptor<Long> lists =
            new ListStateDescriptor<>("lists", LongSerializer.INSTANCE);
    private final MapStateDescriptor<Long, Long> maps =
            new MapStateDescriptor<>("maps", LongSerializer.INSTANCE, LongSerializer.INSTANCE);

    private final String backend;
    private final long keys;
    private final int repeats;
    private final File storage;
    private final SharedStateRegistryImpl registry = new SharedStateRegistryImpl();
    private final List<String> records = new ArrayList<>();

    /** Version written to each key's value state, by key; the last 1% wave wins. */
    private final long[] valueVersion;

    private SnapshotBenchmark(String backend, long keys, int repeats) throws IOException {
        this.backend = backend;
        this.keys = keys;
        this.repeats = repeats;
        this.storage =
                Files.createTempDirectory("streamfusion-snapshot-bench-" + backend + "-").toFile();
        this.valueVersion = new long[Math.toIntExact(keys)];
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            throw new IllegalArgumentException(
                    "Usage: SnapshotBenchmark <output.json> [keys] [repeats] [backend,...]");
        }
        long keys = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000L;
        int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        String[] backends = args.length > 3 ? args[3].split(",") : BackendUnderTest.ALL;
        List<String> all = new ArrayList<>();
        for (String backend : backends) {
            System.err.printf(
                    Locale.ROOT,
                    "== snapshots: %s, %,d keys, %d repeats%n",
                    backend,
                    keys,
                    repeats);
            SnapshotBenchmark run = new SnapshotBenchmark(backend, keys, repeats);
            try {
                run.run();
            } finally {
                FileUtils.deleteDirectory(run.storage);
            }
            all.addAll(run.records);
        }
        try (Writer out =
                Files.newBufferedWriter(new File(args[0]).toPath(), StandardCharsets.UTF_8)) {
            out.write("[\n" + String.join(",\n", all) + "\n]\n");
        }
    }

    private void run() throws Exception {
        KeyedStateHandle latest;
        try (BackendUnderTest source = BackendUnderTest.create(backend)) {
            CheckpointableKeyedStateBackend<Long> keyed = source.keyed();
            load(keyed);
            long start = System.nanoTime();
            // The task goes on after the barrier: the first wave's writes run alongside the upload.
            long[] writesNanos = new long[1];
            Timed initial =
                    checkpoint(
                            keyed,
                            1,
                            () -> {
                                long writesStart = System.nanoTime();
                                changeOnePercent(keyed, 0);
                                writesNanos[0] = System.nanoTime() - writesStart;
                            });
            record("checkpoint initial: sync", "ms", initial.syncMillis);
            record("checkpoint initial: async", "ms", initial.asyncMillis);
            record(
                    "checkpoint initial: 1% of keys written during async",
                    "ms", writesNanos[0] / 1e6);
            record("checkpoint initial: uploaded", "bytes", initial.handle.getCheckpointedSize());
            latest = initial.handle;
            double[] sync = new double[repeats];
            double[] async = new double[repeats];
            double[] bytes = new double[repeats];
            for (int wave = 0; wave < repeats; wave++) {
                if (wave > 0) {
                    changeOnePercent(keyed, wave);
                }
                Timed next = checkpoint(keyed, 2 + wave, () -> {});
                sync[wave] = next.syncMillis;
                async[wave] = next.asyncMillis;
                bytes[wave] = next.handle.getCheckpointedSize();
                latest = next.handle;
            }
            record("checkpoint after 1% of keys change: sync", "ms", sync);
            record("checkpoint after 1% of keys change: async", "ms", async);
            record("checkpoint after 1% of keys change: uploaded", "bytes", bytes);

            long savepointStart = System.nanoTime();
            KeyedStateHandle savepoint = canonicalSavepoint(keyed, 50);
            record("canonical savepoint: write", "ms", millisSince(savepointStart));
            System.err.printf(
                    Locale.ROOT,
                    "   checkpoints and savepoint done in %,d ms%n",
                    (long) millisSince(start));

            restoreTimed("canonical savepoint: restore", ALL, List.of(savepoint));
        }
        restoreTimed("restore without rescaling", ALL, List.of(latest));
        // 1 -> 2: each half restores from the one handle; 2 -> 1: one backend merges both halves.
        List<KeyedStateHandle> halves = new ArrayList<>();
        long scaleOut = 0;
        for (KeyGroupRange half : List.of(LOWER, UPPER)) {
            long start = System.nanoTime();
            try (BackendUnderTest restored =
                    BackendUnderTest.create(backend, half, List.of(latest))) {
                scaleOut += System.nanoTime() - start;
                verify(restored.keyed(), half);
                halves.add(checkpoint(restored.keyed(), 100 + halves.size(), () -> {}).handle);
            }
        }
        record("restore rescaling 1 -> 2 (both subtasks)", "ms", scaleOut / 1e6);
        restoreTimed("restore rescaling 2 -> 1", ALL, halves);
    }

    private void restoreTimed(String name, KeyGroupRange range, List<KeyedStateHandle> handles)
            throws Exception {
        long start = System.nanoTime();
        try (BackendUnderTest restored = BackendUnderTest.create(backend, range, handles)) {
            record(name, "ms", millisSince(start));
            verify(restored.keyed(), range);
        }
    }

    private void load(CheckpointableKeyedStateBackend<Long> keyed) throws Exception {
        ValueState<Long> value =
                keyed.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, values);
        ListState<Long> list =
                keyed.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, lists);
        MapState<Long, Long> map =
                keyed.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, maps);
        for (long key = 0; key < keys; key++) {
            keyed.setCurrentKey(key);
            value.update(key);
            list.add(key);
            list.add(key + 1);
            map.put(1L, key);
            map.put(2L, key + 1);
        }
    }

    /** Rewrites the value state of a different 1% of the keys in each wave. */
    private void changeOnePercent(CheckpointableKeyedStateBackend<Long> keyed, int wave)
            throws Exception {
        ValueState<Long> value =
                keyed.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, values);
        long share = Math.max(1, keys / 100);
        for (long key = wave * share; key < Math.min(keys, (wave + 1) * share); key++) {
            keyed.setCurrentKey(key);
            valueVersion[(int) key] = wave + 1;
            value.update(key + (wave + 1) * keys);
        }
    }

    /** Checks a sample of keys in {@code range}: every state kind, the latest value version. */
    private void verify(CheckpointableKeyedStateBackend<Long> keyed, KeyGroupRange range)
            throws Exception {
        ValueState<Long> value =
                keyed.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, values);
        ListState<Long> list =
                keyed.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, lists);
        MapState<Long, Long> map =
                keyed.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, maps);
        int checked = 0;
        for (long key = 0; key < keys && checked < 1_000; key += 97) {
            int group =
                    org.apache.flink.runtime.state.KeyGroupRangeAssignment.assignToKeyGroup(
                            key, BackendUnderTest.MAX_PARALLELISM);
            if (!range.contains(group)) {
                continue;
            }
            keyed.setCurrentKey(key);
            long expected = key + valueVersion[(int) key] * keys;
            List<Long> elements = new ArrayList<>();
            list.get().forEach(elements::add);
            if (value.value() != expected
                    || !elements.equals(List.of(key, key + 1))
                    || map.get(2L) != key + 1) {
                throw new IllegalStateException(
                        backend
                                + " restored key "
                                + key
                                + " wrongly: value "
                                + value.value()
                                + " (expected "
                                + expected
                                + "), list "
                                + elements
                                + ", map "
                                + map.get(2L));
            }
            checked++;
        }
        if (checked == 0) {
            throw new IllegalStateException("no key checked in " + range);
        }
    }

    private record Timed(KeyedStateHandle handle, double syncMillis, double asyncMillis) {}

    /** Work of the task thread while a checkpoint's asynchronous phase runs. */
    private interface TaskWork {
        void run() throws Exception;
    }

    /**
     * Takes checkpoint {@code id}: the synchronous phase on this thread, then the asynchronous
     * phase on another while this thread does {@code duringAsync}, as a task does.
     */
    private Timed checkpoint(
            CheckpointableKeyedStateBackend<Long> keyed, long id, TaskWork duringAsync)
            throws Exception {
        long start = System.nanoTime();
        RunnableFuture<SnapshotResult<KeyedStateHandle>> future =
                keyed.snapshot(
                        id, id, streams(id), CheckpointOptions.forCheckpointWithDefaultLocation());
        double sync = millisSince(start);
        long asyncStart = System.nanoTime();
        long[] asyncEnd = new long[1];
        Thread upload =
                new Thread(
                        () -> {
                            future.run();
                            asyncEnd[0] = System.nanoTime();
                        },
                        "checkpoint-" + id + "-async");
        upload.start();
        try {
            duringAsync.run();
        } finally {
            upload.join();
        }
        KeyedStateHandle handle = future.get().getJobManagerOwnedSnapshot();
        double async = (asyncEnd[0] - asyncStart) / 1e6;
        // As the JobManager does: register shared files, then confirm the checkpoint.
        handle.registerSharedStates(registry, id);
        registry.checkpointCompleted(id);
        if (keyed instanceof CheckpointListener listener) {
            listener.notifyCheckpointComplete(id);
        }
        return new Timed(handle, sync, async);
    }

    private KeyedStateHandle canonicalSavepoint(
            CheckpointableKeyedStateBackend<Long> keyed, long id) throws Exception {
        CheckpointOptions options =
                new CheckpointOptions(
                        SavepointType.savepoint(SavepointFormatType.CANONICAL),
                        CheckpointStorageLocationReference.getDefault());
        RunnableFuture<SnapshotResult<KeyedStateHandle>> future =
                new SnapshotStrategyRunner<>(
                                "canonical savepoint",
                                new SavepointSnapshotStrategy<>(
                                        keyed.savepoint().getSnapshotResources()),
                                new CloseableRegistry(),
                                ASYNCHRONOUS)
                        .snapshot(id, id, streams(id), options);
        future.run();
        return future.get().getJobManagerOwnedSnapshot();
    }

    private CheckpointStreamFactory streams(long id) throws IOException {
        return new FileSystemCheckpointStorage(new Path(storage.toURI()), 0, -1)
                .createCheckpointStorage(new JobID())
                .resolveCheckpointStorageLocation(
                        id, CheckpointStorageLocationReference.getDefault());
    }

    private static double millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e6;
    }

    private void record(String name, String metric, double... runs) {
        String kind = backend.contains("-") ? backend.substring(0, backend.indexOf('-')) : backend;
        String variant =
                backend.contains("-")
                        ? " variant=" + backend.substring(backend.indexOf('-') + 1)
                        : "";
        records.add(BenchRecord.json(SUITE, name + " keys=" + keys + variant, kind, metric, runs));
        System.err.printf(
                Locale.ROOT, "   %-50s %,14.1f %s%n", name, BenchRecord.median(runs), metric);
    }
}
