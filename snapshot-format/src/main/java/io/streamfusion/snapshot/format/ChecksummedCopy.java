package io.streamfusion.snapshot.format;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.zip.CRC32C;

/**
 * Copies a snapshot file while computing the size and CRC32C that its {@link SnapshotFileEntry}
 * records: on upload to write the manifest, on download to check the file against it.
 */
public final class ChecksummedCopy {

    private static final int BUFFER_BYTES = 64 << 10;

    /** What was copied. */
    public record Copied(long size, int crc32c) {}

    private ChecksummedCopy() {}

    public static Copied copy(InputStream in, OutputStream out) throws IOException {
        CRC32C crc = new CRC32C();
        byte[] buffer = new byte[BUFFER_BYTES];
        long size = 0;
        for (int read; (read = in.read(buffer)) != -1; ) {
            crc.update(buffer, 0, read);
            out.write(buffer, 0, read);
            size += read;
        }
        return new Copied(size, (int) crc.getValue());
    }
}
