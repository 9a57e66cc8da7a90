package io.streamfusion.backend.nativelib;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Java side of the native boundary: handles, batches, scans, panics and errors. */
class NativeHandlesTest {

    @TempDir File dir;

    private NativeSharedMemory memory;

    @BeforeEach
    void allocateSlotMemory() {
        memory = NativeSharedMemory.allocate(16 << 20, 0.5, 4 << 20);
    }

    @AfterEach
    void releaseSlotMemory() {
        memory.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void libraryLoadsAndMatchesTheJavaAbi() {
        NativeLibrary.ensureLoaded();
        assertEquals(NativeLibrary.ABI_VERSION, NativeMethods.abiVersion());
        assertTrue(NativeLibrary.loadedFrom().toString().endsWith(NativeLibrary.LIBRARY_FILE));
    }

    @Test
    void nativeAbiCheckRejectsAnotherJavaVersion() {
        NativeLibrary.ensureLoaded();
        NativeStateException e =
                assertThrows(NativeStateException.class, () -> NativeMethods.checkJavaAbi(NativeLibrary.ABI_VERSION + 7));
        assertTrue(e.getMessage().contains("ABI mismatch"), e.getMessage());
    }

    @Test
    void putGetDeleteRoundTrip() {
        try (NativeStore store = NativeStore.open(dir, memory);
                NativeStateColumn column = store.openColumn("state")) {
            assertNull(column.get(bytes("k")));
            column.put(bytes("k"), bytes("v"));
            assertArrayEquals(bytes("v"), column.get(bytes("k")));
            assertEquals(1, column.countEntries());
            column.delete(bytes("k"));
            assertNull(column.get(bytes("k")));
            assertEquals(0, column.countEntries());
        }
    }

    @Test
    void useAfterCloseThrowsAndSecondCloseDoesNothing() {
        NativeStore store = NativeStore.open(dir, memory);
        NativeStateColumn column = store.openColumn("state");
        column.put(bytes("k"), bytes("v"));
        column.close();
        column.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> column.get(bytes("k")));
        assertTrue(e.getMessage().contains("state"), e.getMessage());
        store.close();
        assertThrows(IllegalStateException.class, () -> store.openColumn("other"));
        store.close();
    }

    @Test
    void columnKeepsWorkingUntilClosedEvenAfterTheStoreHandleIsClosed() {
        NativeStore store = NativeStore.open(dir, memory);
        try (NativeStateColumn column = store.openColumn("state")) {
            store.close();
            // The native column holds a reference to the database, so this is no dangling use.
            column.put(bytes("k"), bytes("v"));
            assertArrayEquals(bytes("v"), column.get(bytes("k")));
        }
    }

    @Test
    void storesChargeTheirMemtablesToTheSharedSlotMemory() {
        try (NativeStore first = NativeStore.open(new File(dir, "a"), memory);
                NativeStore second = NativeStore.open(new File(dir, "b"), memory);
                NativeStateColumn x = first.openColumn("x");
                NativeStateColumn y = second.openColumn("y")) {
            long before = memory.writeBufferUsage();
            for (int i = 0; i < 2_000; i++) {
                x.put(bytes("key" + i), new byte[100]);
                y.put(bytes("key" + i), new byte[100]);
            }
            assertTrue(memory.writeBufferUsage() > before, "memtables are charged to the slot budget");
            assertTrue(memory.cacheUsage() >= memory.writeBufferUsage());
        }
    }

    @Test
    void panicBecomesAJavaExceptionWithItsMessage() {
        NativeStateException e =
                assertThrows(NativeStateException.class, () -> NativeLibrary.triggerPanicForTest("boom 42"));
        assertTrue(e.getMessage().contains("panic") && e.getMessage().contains("boom 42"), e.getMessage());
        // The JVM and the library keep working afterwards.
        try (NativeStore store = NativeStore.open(dir, memory)) {
            assertEquals(NativeLibrary.ABI_VERSION, NativeMethods.abiVersion());
        }
    }

    @Test
    void invalidArgumentsAreIllegalArgumentExceptions() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> NativeSharedMemory.allocate(0, 0.5, 4 << 20));
        assertTrue(e.getMessage().contains("memory budget"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> NativeSharedMemory.allocate(1 << 20, 1.5, 4 << 20));
        assertTrue(e.getMessage().contains("write buffer ratio"), e.getMessage());
        try (NativeStore store = NativeStore.open(dir, memory)) {
            assertThrows(IllegalArgumentException.class, () -> store.openColumn("default"));
        }
    }

    @Test
    void rocksDbErrorsCarryRocksDbStatusText() throws Exception {
        File notADirectory = new File(dir, "file");
        assertTrue(notADirectory.createNewFile());
        NativeStateException e =
                assertThrows(NativeStateException.class, () -> NativeStore.open(notADirectory, memory));
        assertTrue(e.getMessage().startsWith("RocksDB error:"), e.getMessage());
    }

    @Test
    void corruptSstFileSurfacesRocksDbStatusAsJavaException() throws Exception {
        File storeDir = new File(dir, "store");
        try (NativeStore store = NativeStore.open(storeDir, memory);
                NativeStateColumn column = store.openColumn("state")) {
            for (int i = 0; i < 1_000; i++) {
                column.put(bytes("key" + i), bytes("value" + i));
            }
            store.flush();
        }
        File[] ssts = storeDir.listFiles((d, name) -> name.endsWith(".sst"));
        assertTrue(ssts != null && ssts.length > 0, "the flush wrote an SST file");
        for (File sst : ssts) {
            byte[] garbage = new byte[(int) sst.length()];
            java.util.Arrays.fill(garbage, (byte) 0x5a);
            java.nio.file.Files.write(sst.toPath(), garbage);
        }
        NativeStateException e =
                assertThrows(
                        NativeStateException.class,
                        () -> {
                            try (NativeStore store = NativeStore.open(storeDir, memory);
                                    NativeStateColumn column = store.openColumn("state")) {
                                column.get(bytes("key1"));
                            }
                        });
        assertTrue(e.getMessage().startsWith("RocksDB error:"), e.getMessage());
        assertTrue(e.getMessage().contains("Corruption"), e.getMessage());
    }

    @Test
    void batchWriteAndScanInKeyGroupOrder() {
        try (NativeStore store = NativeStore.open(dir, memory);
                NativeStateColumn a = store.openColumn("a");
                NativeStateColumn b = store.openColumn("b")) {
            EntryBatchWriter batch = new EntryBatchWriter(64);
            batch.add(1, new byte[] {2, 'x'}, bytes("b2"));
            batch.add(0, new byte[] {2, 'y'}, bytes("a2"));
            batch.add(0, new byte[] {1, 'z'}, bytes("a1"));
            assertEquals(3, store.applyBatch(List.of(a, b), batch.toByteArray()));

            List<String> seen = new ArrayList<>();
            try (NativeKeyGroupScan scan = store.openScan(List.of(a, b), 1)) {
                byte[] bytes;
                while ((bytes = scan.nextBatch(1)).length > 0) {
                    EntryBatchReader reader = new EntryBatchReader(bytes);
                    while (reader.advance()) {
                        seen.add(reader.stateIndex() + ":" + new String(reader.value(), StandardCharsets.UTF_8));
                    }
                }
            }
            assertEquals(List.of("0:a1", "0:a2", "1:b2"), seen);
        }
    }

    @Test
    void malformedBatchIsRejectedWithoutWritingAnything() {
        try (NativeStore store = NativeStore.open(dir, memory);
                NativeStateColumn a = store.openColumn("a")) {
            EntryBatchWriter batch = new EntryBatchWriter(64);
            batch.add(0, bytes("k1"), bytes("v1"));
            batch.add(3, bytes("k2"), bytes("v2"));
            NativeStateException e =
                    assertThrows(NativeStateException.class, () -> store.applyBatch(List.of(a), batch.toByteArray()));
            assertTrue(e.getMessage().contains("state index 3"), e.getMessage());
            assertEquals(0, a.countEntries());
        }
    }
}
