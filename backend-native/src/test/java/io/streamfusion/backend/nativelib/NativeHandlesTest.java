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

    private NativeSlotMemory memory;

    @BeforeEach
    void allocateSlotMemory() {
        memory = NativeSlotMemory.allocate(16 << 20, 0.5, 4 << 20, 64 << 10);
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
    void nativeAbiCheckComparesVersionAndEveryCode() {
        NativeLibrary.ensureLoaded();
        NativeMethods.checkJavaAbi(NativeAbi.descriptor());
        String otherVersion =
                NativeAbi.descriptor()
                        .replace("abi=" + NativeAbi.VERSION, "abi=" + (NativeAbi.VERSION + 7));
        String otherLayoutCode = NativeAbi.descriptor().replace("ttl.map=2", "ttl.map=9");
        for (String other : new String[] {otherVersion, otherLayoutCode}) {
            NativeStateException e =
                    assertThrows(
                            NativeStateException.class, () -> NativeMethods.checkJavaAbi(other));
            assertTrue(
                    e.getMessage().contains("ABI mismatch") && e.getMessage().contains(other),
                    e.getMessage());
        }
    }

    @Test
    void putGetDeleteRoundTrip() {
        try (NativeStore store = NativeStore.open(dir, memory);
                NativeColumnFamily columnFamily = store.openColumnFamily("state")) {
            assertNull(columnFamily.get(bytes("k")));
            columnFamily.put(bytes("k"), bytes("v"));
            assertArrayEquals(bytes("v"), columnFamily.get(bytes("k")));
            assertEquals(1, columnFamily.countEntries());
            columnFamily.delete(bytes("k"));
            assertNull(columnFamily.get(bytes("k")));
            assertEquals(0, columnFamily.countEntries());
        }
    }

    @Test
    void useAfterCloseThrowsAndSecondCloseDoesNothing() {
        NativeStore store = NativeStore.open(dir, memory);
        NativeColumnFamily columnFamily = store.openColumnFamily("state");
        columnFamily.put(bytes("k"), bytes("v"));
        columnFamily.close();
        columnFamily.close();
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> columnFamily.get(bytes("k")));
        assertTrue(e.getMessage().contains("state"), e.getMessage());
        store.close();
        assertThrows(IllegalStateException.class, () -> store.openColumnFamily("other"));
        store.close();
    }

    @Test
    void columnKeepsWorkingUntilClosedEvenAfterTheStoreHandleIsClosed() {
        NativeStore store = NativeStore.open(dir, memory);
        try (NativeColumnFamily columnFamily = store.openColumnFamily("state")) {
            store.close();
            // The native column family holds a reference to the database, so this is no dangling
            // use.
            columnFamily.put(bytes("k"), bytes("v"));
            assertArrayEquals(bytes("v"), columnFamily.get(bytes("k")));
        }
    }

    @Test
    void storesChargeTheirMemtablesToTheSharedSlotMemory() {
        try (NativeStore first = NativeStore.open(new File(dir, "a"), memory);
                NativeStore second = NativeStore.open(new File(dir, "b"), memory);
                NativeColumnFamily x = first.openColumnFamily("x");
                NativeColumnFamily y = second.openColumnFamily("y")) {
            long before = memory.writeBufferUsage();
            for (int i = 0; i < 2_000; i++) {
                x.put(bytes("key" + i), new byte[100]);
                y.put(bytes("key" + i), new byte[100]);
            }
            assertTrue(
                    memory.writeBufferUsage() > before, "memtables are charged to the slot budget");
            assertTrue(memory.cacheUsage() >= memory.writeBufferUsage());
        }
    }

    @Test
    void panicBecomesAnInternalExceptionWithItsMessageAndLocation() {
        NativeInternalException e =
                assertThrows(
                        NativeInternalException.class,
                        () -> NativeLibrary.triggerPanicForTest("boom 42"));
        assertTrue(
                e.getMessage().contains("panic") && e.getMessage().contains("boom 42"),
                e.getMessage());
        assertTrue(
                e.getMessage().contains("src/jni/entry_points.rs:"),
                "the panic's source location: " + e.getMessage());
        // The JVM and the library keep working afterwards.
        try (NativeStore store = NativeStore.open(dir, memory)) {
            assertEquals(NativeLibrary.ABI_VERSION, NativeMethods.abiVersion());
        }
    }

    @Test
    void invalidArgumentsAreIllegalArgumentExceptions() {
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> NativeSlotMemory.allocate(0, 0.5, 4 << 20, 0));
        assertTrue(e.getMessage().contains("memory budget"), e.getMessage());
        e =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> NativeSlotMemory.allocate(1 << 20, 1.5, 4 << 20, 0));
        assertTrue(e.getMessage().contains("write buffer ratio"), e.getMessage());
        try (NativeStore store = NativeStore.open(dir, memory)) {
            assertThrows(IllegalArgumentException.class, () -> store.openColumnFamily("default"));
        }
    }

    @Test
    void rocksDbErrorsCarryRocksDbStatusText() throws Exception {
        File notADirectory = new File(dir, "file");
        assertTrue(notADirectory.createNewFile());
        NativeStateException e =
                assertThrows(
                        NativeStateException.class, () -> NativeStore.open(notADirectory, memory));
        assertTrue(e.getMessage().startsWith("RocksDB error:"), e.getMessage());
    }

    @Test
    void corruptSstFileSurfacesRocksDbStatusAsJavaException() throws Exception {
        File storeDir = new File(dir, "store");
        try (NativeStore store = NativeStore.open(storeDir, memory);
                NativeColumnFamily columnFamily = store.openColumnFamily("state")) {
            for (int i = 0; i < 1_000; i++) {
                columnFamily.put(bytes("key" + i), bytes("value" + i));
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
                                    NativeColumnFamily columnFamily =
                                            store.openColumnFamily("state")) {
                                columnFamily.get(bytes("key1"));
                            }
                        });
        assertTrue(e.getMessage().startsWith("RocksDB error:"), e.getMessage());
        assertTrue(e.getMessage().contains("Corruption"), e.getMessage());
    }

    @Test
    void batchWriteAndScanInKeyGroupOrder() {
        try (NativeStore store = NativeStore.open(dir, memory);
                NativeColumnFamily a = store.openColumnFamily("a");
                NativeColumnFamily b = store.openColumnFamily("b")) {
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
                        seen.add(
                                reader.stateIndex()
                                        + ":"
                                        + new String(reader.value(), StandardCharsets.UTF_8));
                    }
                }
            }
            assertEquals(List.of("0:a1", "0:a2", "1:b2"), seen);
        }
    }

    @Test
    void malformedBatchIsRejectedWithoutWritingAnything() {
        try (NativeStore store = NativeStore.open(dir, memory);
                NativeColumnFamily a = store.openColumnFamily("a")) {
            EntryBatchWriter batch = new EntryBatchWriter(64);
            batch.add(0, bytes("k1"), bytes("v1"));
            batch.add(3, bytes("k2"), bytes("v2"));
            NativeStateException e =
                    assertThrows(
                            NativeStateException.class,
                            () -> store.applyBatch(List.of(a), batch.toByteArray()));
            assertTrue(e.getMessage().contains("state index 3"), e.getMessage());
            assertEquals(0, a.countEntries());
        }
    }
}
