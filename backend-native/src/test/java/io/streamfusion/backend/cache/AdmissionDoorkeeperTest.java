package io.streamfusion.backend.cache;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AdmissionDoorkeeperTest {

    @Test
    void aKeyIsAdmittedWhenItComesBackBeforeTheWindowClears() {
        AdmissionDoorkeeper doorkeeper = new AdmissionDoorkeeper(1 << 20);
        assertFalse(doorkeeper.admit(42));
        assertTrue(doorkeeper.admit(42));
        assertTrue(doorkeeper.admit(42), "a key stays remembered until the window clears");
    }

    @Test
    void theWindowClearsAfterAQuarterOfTheEstimatedEntries() {
        // 1 MiB at 128 bytes an entry: 8,192 entries, a window of 2,048 first misses.
        AdmissionDoorkeeper doorkeeper = new AdmissionDoorkeeper(1 << 20);
        assertFalse(doorkeeper.admit(-1));
        int firstMisses = 1;
        int hash = 0;
        while (firstMisses < 2_048) {
            if (!doorkeeper.admit(hash++)) {
                firstMisses++;
            }
        }
        assertFalse(doorkeeper.admit(-1), "forgotten once 2,048 first misses cleared the window");
    }
}
