package io.streamfusion.operators;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator options are read with their defaults, and a bad value names the option and the fix.
 */
class OperatorConfigTest {

    @Test
    void defaults() {
        OperatorConfig config = OperatorConfig.from(new Configuration());
        assertEquals(4096, config.batchRows());
        assertEquals(50, config.batchLatencyMillis());
        assertEquals(32L << 20, config.cacheBytes());
        assertEquals(4L << 20, config.batchMemoryBytes());
    }

    @Test
    void badValuesNameTheOptionAndWhatItAccepts() {
        assertRefused(OperatorOptions.BATCH_ROWS.key(), "0", "a positive whole number");
        assertRefused(OperatorOptions.BATCH_LATENCY.key(), "0 ms", "a positive duration");
        assertRefused(OperatorOptions.BATCH_MEMORY.key(), "100kb", "at least 1mb");
    }

    private static void assertRefused(String key, String value, String accepted) {
        Configuration config = new Configuration();
        config.setString(key, value);
        IllegalConfigurationException e =
                assertThrows(
                        IllegalConfigurationException.class, () -> OperatorConfig.from(config));
        assertTrue(
                e.getMessage().contains(key) && e.getMessage().contains(accepted), e.getMessage());
    }
}
