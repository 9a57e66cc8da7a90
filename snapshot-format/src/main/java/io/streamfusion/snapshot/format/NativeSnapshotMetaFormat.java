package io.streamfusion.snapshot.format;

/**
 * Constants of the native snapshot meta document.
 *
 * <pre>
 * int   magic            0x53464E4D ("SFNM")
 * int   format version   1..CURRENT_VERSION
 * int   body length      bytes
 * byte[body length]      body, laid out per version (see NativeSnapshotMetaReader)
 * int   CRC32C of the body
 * </pre>
 *
 * A released version's layout never changes: a new field means a new version, a writer for it, a
 * reader branch, and a golden file under src/test/resources/golden.
 */
public final class NativeSnapshotMetaFormat {

    public static final int MAGIC = 0x53464E4D;

    /** Version 1: checkpoint id, backend id, key groups, key serializer, states, manifest. */
    public static final int VERSION_1 = 1;

    /** The version every writer writes. */
    public static final int CURRENT_VERSION = VERSION_1;

    /** Magic, version and body length, before the body. */
    static final int HEADER_BYTES = 3 * Integer.BYTES;

    /** A sanity bound on the body length, far above any real meta document. */
    static final int MAX_BODY_BYTES = 256 << 20;

    private NativeSnapshotMetaFormat() {}
}
