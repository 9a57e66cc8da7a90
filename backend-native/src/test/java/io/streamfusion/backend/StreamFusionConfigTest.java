package io.streamfusion.backend;

import io.streamfusion.api.StreamFusionOptions;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StreamFusionConfigTest {

    @Test
    void defaultsApplyWhenNothingIsSet() {
        StreamFusionConfig config = StreamFusionConfig.from(new Configuration(), StreamFusionConfig.defaults());
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
        StreamFusionConfig config = StreamFusionConfig.from(flink, StreamFusionConfig.defaults());
        assertEquals(MemorySize.parse("128mb"), config.fixedMemoryPerSlot());
        assertEquals(0.25, config.writeBufferRatio());
        assertEquals(List.of(new File("/data/a"), new File("/data/b")), config.localDirectoriesOr(new File[0]));
    }

    @Test
    void tooSmallSizeNamesOptionAndAcceptedValues() {
        Configuration flink = new Configuration();
        flink.setString(StreamFusionOptions.FIXED_MEMORY_PER_SLOT.key(), "10kb");
        IllegalConfigurationException e =
                assertThrows(IllegalConfigurationException.class,
                        () -> StreamFusionConfig.from(flink, StreamFusionConfig.defaults()));
        assertTrue(e.getMessage().contains("'state.backend.streamfusion.memory.fixed-per-slot'"), e.getMessage());
        assertTrue(e.getMessage().contains("at least 1mb"), e.getMessage());
    }

    @Test
    void unparsableSizeNamesOptionAndAcceptedValues() {
        Configuration flink = new Configuration();
        flink.setString(StreamFusionOptions.FIXED_MEMORY_PER_SLOT.key(), "lots");
        IllegalConfigurationException e =
                assertThrows(IllegalConfigurationException.class,
                        () -> new StreamFusionStateBackendFactory().createFromConfig(flink, getClass().getClassLoader()));
        assertTrue(e.getMessage().contains("'state.backend.streamfusion.memory.fixed-per-slot'"), e.getMessage());
        assertTrue(e.getMessage().contains("memory size"), e.getMessage());
    }

    @Test
    void writeBufferRatioOutsideTheOpenUnitIntervalIsRejected() {
        for (String bad : new String[] {"0", "1", "-0.5", "1.5", "half"}) {
            Configuration flink = new Configuration();
            flink.setString(StreamFusionOptions.WRITE_BUFFER_RATIO.key(), bad);
            IllegalConfigurationException e =
                    assertThrows(IllegalConfigurationException.class,
                            () -> StreamFusionConfig.from(flink, StreamFusionConfig.defaults()), bad);
            assertTrue(e.getMessage().contains("'state.backend.streamfusion.memory.write-buffer-ratio'"), e.getMessage());
            assertTrue(e.getMessage().contains("strictly between 0 and 1"), e.getMessage());
        }
    }

    @Test
    void relativeDirectoryIsRejected() {
        Configuration flink = new Configuration();
        flink.setString(StreamFusionOptions.LOCAL_DIRECTORIES.key(), "/data/a;relative/b");
        IllegalConfigurationException e =
                assertThrows(IllegalConfigurationException.class,
                        () -> StreamFusionConfig.from(flink, StreamFusionConfig.defaults()));
        assertTrue(e.getMessage().contains("'state.backend.streamfusion.localdir'"), e.getMessage());
        assertTrue(e.getMessage().contains("'relative/b' is not an absolute path"), e.getMessage());
    }

    @Test
    void fileUrisAreAcceptedAsDirectories() {
        Configuration flink = new Configuration();
        flink.setString(StreamFusionOptions.LOCAL_DIRECTORIES.key(), "file:///data/c");
        StreamFusionConfig config = StreamFusionConfig.from(flink, StreamFusionConfig.defaults());
        assertEquals(List.of(new File("/data/c")), config.localDirectoriesOr(new File[0]));
    }
}
