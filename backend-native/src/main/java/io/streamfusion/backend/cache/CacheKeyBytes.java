package io.streamfusion.backend.cache;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * How the {@link DecodedValueCache} reads a canonical key: its first {@link #INLINE_BYTES} bytes as
 * two longs, which a {@link CacheSegment} keeps inline in its table, and a 64-bit hash of the state
 * id and all of the key's bytes.
 *
 * <p>Why not {@code Arrays.hashCode}: a 31-polynomial over a big-endian counter varies in few low
 * bits (a million sequential keys give about 23 thousand distinct values below the key-group
 * prefix), which an open-addressing table, unlike a chained one, turns into long probe runs.
 */
final class CacheKeyBytes {

    /** Key bytes held in the table itself; longer keys also keep their array. */
    static final int INLINE_BYTES = 2 * Long.BYTES;

    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static final long MULTIPLIER = 0x9E3779B97F4A7C15L;

    private CacheKeyBytes() {}

    /** The eight bytes of {@code key} from {@code from}, zero past its end. */
    static long head(byte[] key, int from) {
        if (key.length >= from + Long.BYTES) {
            return (long) LONGS.get(key, from);
        }
        long packed = 0;
        for (int i = Math.min(key.length, from + Long.BYTES) - 1; i >= from; i--) {
            packed = (packed << 8) | (key[i] & 0xFF);
        }
        return packed;
    }

    /** A hash of the state id and every byte of the key, mixed in all 64 bits. */
    static long hash(long stateId, byte[] key) {
        long hash = stateId * MULTIPLIER ^ key.length;
        int from = 0;
        for (; from + Long.BYTES <= key.length; from += Long.BYTES) {
            hash = step(hash, (long) LONGS.get(key, from));
        }
        if (from < key.length) {
            hash = step(hash, head(key, from));
        }
        return finish(hash);
    }

    /** One word into the hash, as xxHash64's round does. */
    private static long step(long hash, long word) {
        return Long.rotateLeft(hash ^ word * 0xC2B2AE3D27D4EB4FL, 31) * MULTIPLIER;
    }

    /** Murmur3's 64-bit finaliser: every input bit reaches every output bit. */
    private static long finish(long hash) {
        long h = hash;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
