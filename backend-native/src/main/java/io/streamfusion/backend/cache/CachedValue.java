package io.streamfusion.backend.cache;

/**
 * One entry of the {@link DecodedValueCache}: the value of one key, or the knowledge that the key
 * has none, and the size it is weighed at. A value of an immutable type is kept decoded; a value of
 * a mutable type (a SQL row, say) is kept as its serialized bytes, which every read decodes into a
 * private copy.
 *
 * <p>Why mutable: every entry belongs to one state of one keyed backend, which only its task thread
 * reads and writes, so a write to a cached key changes the entry in place, outside the cache's
 * locks: a lookup instead of a cache write, which would also replace the entry and weigh it again
 * on every record of a read-modify-write. An entry evicted meanwhile by another thread is simply
 * written in vain: the next read misses and reads RocksDB.
 *
 * <p>Why bytes for mutable types: a written value is then copied into the entry's own array, so a
 * write stores no new object reference into an entry that has long been in the old generation.
 * Replacing the decoded object on every write did, and in a SQL job on two cores the garbage
 * collector's card refinement and the evicted CPU caches cost more than the cache saved
 * (docs/architecture.md, "What caching rows as bytes bought").
 */
final class CachedValue {

    /** The decoded value of an immutable type, else null. */
    Object decoded;

    /** The serialized value of a mutable type, in its first {@link #length} bytes, else null. */
    byte[] serialized;

    int length;

    /** Whether the key's value was deleted while it was cached. */
    boolean absent;

    /** The size the entry was weighed at; an in-place value never exceeds it. */
    final int weighedBytes;

    private CachedValue(Object decoded, byte[] serialized, int weighedBytes) {
        this.decoded = decoded;
        this.serialized = serialized;
        this.length = serialized == null ? 0 : serialized.length;
        this.weighedBytes = weighedBytes;
    }

    static CachedValue decoded(Object value, int serializedBytes) {
        return new CachedValue(value, null, serializedBytes);
    }

    /** An entry that keeps {@code bytes} itself: the caller hands the array over. */
    static CachedValue serialized(byte[] bytes) {
        return new CachedValue(null, bytes, bytes.length);
    }

    /**
     * An entry whose value is the first {@code length} bytes of {@code bytes}, the rest being room
     * for appends; weighed at the whole array. The caller hands the array over.
     */
    static CachedValue serialized(byte[] bytes, int length) {
        CachedValue entry = new CachedValue(null, bytes, bytes.length);
        entry.length = length;
        return entry;
    }

    /**
     * The heap this entry's value takes: its array, or for a decoded object its serialized size
     * plus an object header, an estimate (a boxed {@code Long} takes 16 bytes and is weighed at
     * 24).
     */
    long valueHeapBytes() {
        return serialized != null
                ? HeapBytes.bytes(weighedBytes)
                : HeapBytes.align(HeapBytes.OBJECT_HEADER + (long) weighedBytes);
    }

    /** Copies a new serialized value into the entry's array; false if the array is too small. */
    boolean overwrite(byte[] bytes) {
        if (bytes.length > serialized.length) {
            return false;
        }
        System.arraycopy(bytes, 0, serialized, 0, bytes.length);
        length = bytes.length;
        absent = false;
        return true;
    }

    /**
     * Appends {@code operand} to the serialized value after {@code delimiter}, as a list-append
     * merge does (an absent value becomes the operand alone); false if the array has no room.
     */
    boolean append(byte delimiter, byte[] operand) {
        int appended = appendedLength(operand);
        if (appended > serialized.length) {
            return false;
        }
        writeAppended(serialized, delimiter, operand);
        length = appended;
        absent = false;
        return true;
    }

    /** The serialized value with {@code delimiter} and {@code operand} appended, in a new array. */
    byte[] appendedCopy(byte delimiter, byte[] operand, int capacity) {
        byte[] grown = new byte[capacity];
        System.arraycopy(serialized, 0, grown, 0, absent ? 0 : length);
        writeAppended(grown, delimiter, operand);
        return grown;
    }

    /** The length of the value {@link #append} would make. */
    int appendedLength(byte[] operand) {
        return absent ? operand.length : length + 1 + operand.length;
    }

    /** Writes the delimiter (unless absent) and the operand after the value's bytes in target. */
    private void writeAppended(byte[] target, byte delimiter, byte[] operand) {
        int at = 0;
        if (!absent) {
            target[length] = delimiter;
            at = length + 1;
        }
        System.arraycopy(operand, 0, target, at, operand.length);
    }
}
