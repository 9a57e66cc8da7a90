package io.streamfusion.migration;

import io.streamfusion.api.StreamFusionOptions;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A job resumed from a retained checkpoint whose native meta document has a damaged body length
 * (the one field its checksum does not cover, here claiming 256 MiB) fails with the corrupt-file
 * message that names the file and says what to do, and with no {@code OutOfMemoryError}.
 */
class DamagedCheckpointRestoreTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(1)
                            .build());

    /** "SFNM", the magic of a native meta document. */
    private static final int META_MAGIC = 0x53464E4D;

    @TempDir Path dir;

    @Test
    void aDamagedMetaHeaderFailsTheRestoreWithTheCorruptFileMessage() throws Exception {
        JobClient first = submit(Optional.empty());
        while (retainedCheckpoint().isEmpty()) {
            Thread.sleep(50);
        }
        first.cancel().get();
        // Later checkpoints subsume earlier ones until the cancellation, so look again.
        Path checkpoint = retainedCheckpoint().orElseThrow();
        Path meta = metaDocumentIn(checkpoint);
        try (RandomAccessFile file = new RandomAccessFile(meta.toFile(), "rw")) {
            file.seek(8); // magic, version, then the body length
            file.writeInt(0x0fffffff);
        }

        JobClient resumed = submit(Optional.of(checkpoint));
        ExecutionException failure =
                assertThrows(ExecutionException.class, () -> resumed.getJobExecutionResult().get());
        assertEquals(JobStatus.FAILED, resumed.getJobStatus().get());
        assertTrue(
                ExceptionUtils.findThrowableWithMessage(
                                failure, "is truncated: its header announces")
                        .filter(e -> e.getMessage().contains(meta.getFileName().toString()))
                        .filter(
                                e ->
                                        e.getMessage()
                                                .contains(
                                                        "Restore from an earlier retained checkpoint"))
                        .isPresent(),
                () -> ExceptionUtils.stringifyException(failure));
        assertFalse(
                ExceptionUtils.findThrowable(failure, OutOfMemoryError.class).isPresent(),
                () -> ExceptionUtils.stringifyException(failure));
    }

    private JobClient submit(Optional<Path> resumeFrom) throws Exception {
        Configuration config = new Configuration();
        config.set(StateBackendOptions.STATE_BACKEND, "streamfusion");
        config.setString(
                StreamFusionOptions.LOCAL_DIRECTORIES.key(), dir.resolve("work").toString());
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(100));
        config.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                dir.resolve("checkpoints").toUri().toString());
        config.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        // Every state file goes to its own file, however small, so the meta document has one.
        config.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.ZERO);
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        resumeFrom.ifPresent(
                path -> config.set(StateRecoveryOptions.SAVEPOINT_PATH, path.toString()));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(1);
        env.fromSequence(0, Long.MAX_VALUE)
                .keyBy(n -> n % 100, Types.LONG)
                .map(new SlowCount(), Types.LONG)
                .sinkTo(new DiscardingSink<>());
        return env.executeAsync("damaged-checkpoint-" + resumeFrom.isPresent());
    }

    /** The directory of the latest completed checkpoint, whose metadata is written. */
    private Optional<Path> retainedCheckpoint() throws IOException {
        Path root = dir.resolve("checkpoints");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.getFileName().toString().equals("_metadata"))
                    .map(Path::getParent)
                    .max(
                            java.util.Comparator.comparing(
                                    p -> Long.parseLong(p.getFileName().toString().substring(4))));
        } catch (java.io.UncheckedIOException subsumedWhileWalking) {
            return Optional.empty();
        }
    }

    /** The native meta document the checkpoint in {@code checkpoint} refers to. */
    private static Path metaDocumentIn(Path checkpoint) throws IOException {
        try (Stream<Path> files = Files.walk(checkpoint)) {
            List<Path> metas =
                    files.filter(Files::isRegularFile)
                            .filter(DamagedCheckpointRestoreTest::isMeta)
                            .toList();
            assertEquals(1, metas.size(), "meta documents in " + checkpoint + ": " + metas);
            return metas.get(0);
        }
    }

    private static boolean isMeta(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return new DataInputStream(in).readInt() == META_MAGIC;
        } catch (IOException tooShort) {
            return false;
        }
    }

    /** Counts per key in keyed state, slowly, so that the job takes checkpoints while it runs. */
    private static final class SlowCount extends RichMapFunction<Long, Long> {
        private transient ValueState<Long> count;

        @Override
        public void open(OpenContext context) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        }

        @Override
        public Long map(Long value) throws Exception {
            Thread.sleep(1);
            long next = (count.value() == null ? 0 : count.value()) + 1;
            count.update(next);
            return next;
        }
    }
}
