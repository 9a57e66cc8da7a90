package io.streamfusion.backend;

import io.streamfusion.api.StreamFusionOptions;
import io.streamfusion.backend.ttl.TtlCompactionSettings;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StreamFusionConfigTest {

    @Test
    void defaultsApplyWhenNothingIsSet() {
        StreamFusionConfig config =
                StreamFusionConfig.from(new Configuration(), StreamFusionConfig.defaults());
        assertEquals(null, config.fixedMemoryPerSlot());
        assertEquals(0.5, config.writeBufferRatio());
        File[] fallback = {new File("/tmp/a")};
        assertEquals(List.of(fallback[0]), config.localDirectoriesOr(fallback));
    }

    @Test
    void readsEveryOption() {
        Configuration flink = new Configuration();
        flink.setString(StreamFusionOptions.FIXED_MEMORY_PER_SLOT.key(), "128mb");
        flink.setString(StreamFusionOptions.WRITE_BUFFER_RATIO.key(), "0.25");
        flink.setString(StreamFusionOptions.LOCAL_DIRECTORIES.key(), "/data/a;/data/b");
        flink.setString(StreamFusionOptions.WRITE_BACK_SIZE.key(), "0");
        StreamFusionConfig config = StreamFusionConfig.from(flink, StreamFusionConfig.defaults());
        assertEquals(MemorySize.ZERO, config.writeBackSize());
        assertEquals(MemorySize.parse("128mb"), config.fixedMemoryPerSlot());
        assertEquals(0.25, config.writeBufferRatio());
        assertEquals(
                List.of(new File("/data/a"), new File("/data/b")),
                config.localDirectoriesOr(new File[0]));
    }

    @Test
    void tooSmallSizeNamesOptionAndAcceptedValues() {
        Configuration flink = new Configuration();
        flink.setString(StreamFusionOptions.FIXED_MEMORY_PER_SLOT.key(), "10kb");
        IllegalConfigurationException e =
                assertThrows(
                        IllegalConfigurationException.class,
                        () -> StreamFusionConfig.from(flink, StreamFusionConfig.defaults()));
        assertTrue(
                e.getMessage().contains("'state.backend.streamfusion.memory.fixed-per-slot'"),
                e.getMessage());
        assertTrue(e.getMessage().contains("at least 1mb"), e.getMessage());
    }

    @Test
    void unparsableWriteBackSizeNamesTheOptionAndHowToSwitchItOff() {
        Configuration flink = new Configuration();
        flink.setString(StreamFusionOptions.WRITE_BACK_SIZE.key(), "some");
        IllegalConfigurationException e =
                assertThrows(
                        IllegalConfigurationException.class,
                        () -> StreamFusionConfig.from(flink, StreamFusionConfig.defaults()));
        assertTrue(
                e.getMessage().contains("'state.backend.streamfusion.write-back.size'"),
                e.getMessage());
        assertTrue(e.getMessage().contains("or 0 to write every update through"), e.getMessage());
    }

    @Test
    void unparsableSizeNamesOptionAndAcceptedValues() {
        Configuration flink = new Configuration();
        flink.setString(StreamFusionOptions.FIXED_MEMORY_PER_SLOT.key(), "lots");
        IllegalConfigurationException e =
                assertThrows(
                        IllegalConfigurationException.class,
                        () ->
                                new StreamFusionStateBackendFactory()
                                        .createFromConfig(flink, getClass().getClassLoader()));
        assertTrue(
                e.getMessage().contains("'state.backend.streamfusion.memory.fixed-per-slot'"),
                e.getMessage());
        assertTrue(e.getMessage().contains("memory size"), e.getMessage());
    }

    @Test
    void writeBufferRatioOutsideTheOpenUnitIntervalIsRejected() {
        for (String bad : new String[] {"0", "1", "-0.5", "1.5", "half"}) {
            Configuration flink = new Configuration();
            flink.setString(StreamFusionOptions.WRITE_BUFFER_RATIO.key(), bad);
            IllegalConfigurationException e =
                    assertThrows(
                            IllegalConfigurationException.class,
                            () -> StreamFusionConfig.from(flink, StreamFusionConfig.defaults()),
                            bad);
            assertTrue(
                    e.getMessage()
                            .contains("'state.backend.streamfusion.memory.write-buffer-ratio'"),
                    e.getMessage());
            assertTrue(e.getMessage().contains("strictly between 0 and 1"), e.getMessage());
        }
    }

    @Test
    void writeBufferSizeIsReadAndATinyOrMalformedOneIsRejected() {
        Configuration flink = new Configuration();
        flink.setString(StreamFusionOptions.WRITE_BUFFER_SIZE.key(), "8mb");
        assertEquals(
                8L << 20,
                StreamFusionConfig.from(flink, StreamFusionConfig.defaults())
                        .writeBufferSize()
                        .getBytes());
        for (String bad : new String[] {"1kb", "lots"}) {
            flink.setString(StreamFusionOptions.WRITE_BUFFER_SIZE.key(), bad);
            IllegalConfigurationException e =
                    assertThrows(
                            IllegalConfigurationException.class,
                            () -> StreamFusionConfig.from(flink, StreamFusionConfig.defaults()),
                            bad);
            assertTrue(
                    e.getMessage()
                            .contains("'state.backend.streamfusion.memory.write-buffer-size'"),
                    e.getMessage());
            assertTrue(e.getMessage().contains("64kb"), e.getMessage());
        }
    }

    @Test
    void relativeDirectoryIsRejected() {
        Configuration flink = new Configuration();
        flink.setString(StreamFusionOptions.LOCAL_DIRECTORIES.key(), "/data/a;relative/b");
        IllegalConfigurationException e =
                assertThrows(
                        IllegalConfigurationException.class,
                        () -> StreamFusionConfig.from(flink, StreamFusionConfig.defaults()));
        assertTrue(
                e.getMessage().contains("'state.backend.streamfusion.localdir'"), e.getMessage());
        assertTrue(e.getMessage().contains("'relative/b' is not an absolute path"), e.getMessage());
    }

    @Test
    void fileUrisAreAcceptedAsDirectories() {
        Configuration flink = new Configuration();
        flink.setString(StreamFusionOptions.LOCAL_DIRECTORIES.key(), "file:///data/c");
        StreamFusionConfig config = StreamFusionConfig.from(flink, StreamFusionConfig.defaults());
        assertEquals(List.of(new File("/data/c")), config.localDirectoriesOr(new File[0]));
    }

    private static IllegalConfigurationException rejected(String key, String value) {
        Configuration flink = new Configuration();
        flink.setString(key, value);
        return assertThrows(
                IllegalConfigurationException.class,
                () -> StreamFusionConfig.from(flink, StreamFusionConfig.defaults()));
    }

    @Test
    void checkpointAndTtlOptionsAreReadAndValidated() {
        StreamFusionConfig defaults = StreamFusionConfig.defaults();
        assertTrue(defaults.incrementalCheckpoints(), "incremental unless the job says otherwise");
        assertEquals(
                new TtlCompactionSettings(true, 1000, Duration.ofDays(30)),
                defaults.ttlCompaction());

        Configuration flink = new Configuration();
        flink.setString("execution.checkpointing.incremental", "false");
        flink.setString(StreamFusionOptions.TTL_COMPACTION_FILTER_ENABLED.key(), "false");
        flink.setString(StreamFusionOptions.TTL_QUERY_TIME_AFTER_NUM_ENTRIES.key(), "50");
        flink.setString(StreamFusionOptions.TTL_PERIODIC_COMPACTION_TIME.key(), "0 s");
        StreamFusionConfig config = StreamFusionConfig.from(flink, defaults);
        assertEquals(false, config.incrementalCheckpoints());
        assertEquals(new TtlCompactionSettings(false, 50, Duration.ZERO), config.ttlCompaction());

        IllegalConfigurationException e =
                rejected(StreamFusionOptions.TTL_QUERY_TIME_AFTER_NUM_ENTRIES.key(), "0");
        assertTrue(
                e.getMessage()
                        .contains("'state.backend.streamfusion.ttl.query-time-after-num-entries'"),
                e.getMessage());
        assertTrue(e.getMessage().contains("positive whole number"), e.getMessage());
        e = rejected(StreamFusionOptions.TTL_PERIODIC_COMPACTION_TIME.key(), "soon");
        assertTrue(
                e.getMessage()
                        .contains("'state.backend.streamfusion.ttl.periodic-compaction-time'"),
                e.getMessage());
        e = rejected(StreamFusionOptions.TTL_COMPACTION_FILTER_ENABLED.key(), "perhaps");
        assertTrue(
                e.getMessage()
                        .contains("'state.backend.streamfusion.ttl.compaction-filter.enabled'"),
                e.getMessage());
        e = rejected("execution.checkpointing.incremental", "sometimes");
        assertTrue(
                e.getMessage().contains("'execution.checkpointing.incremental'"), e.getMessage());
    }
}
