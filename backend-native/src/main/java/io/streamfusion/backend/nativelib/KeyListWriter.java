package io.streamfusion.backend.nativelib;

import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Encodes a list of keys ({@code [u32 length][key]} repeated, big-endian) for native multi-gets and
 * deletes. The Rust twin is {@code batch::decode_keys}.
 */
public final class KeyListWriter {

    private final DataOutputSerializer out;
    private int size;

    public KeyListWriter(int initialBytes) {
        this.out = new DataOutputSerializer(initialBytes);
    }

    public void add(byte[] key) {
        try {
            out.writeInt(key.length);
            out.write(key);
            size++;
        } catch (IOException e) {
            // DataOutputSerializer grows in memory and never fails for I/O reasons.
            throw new UncheckedIOException(e);
        }
    }

    public int size() {
        return size;
    }

    public byte[] toByteArray() {
        return out.getCopyOfBuffer();
    }

    public void clear() {
        out.clear();
        size = 0;
    }
}
