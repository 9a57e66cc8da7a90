package io.streamfusion.backend.cache;

/**
 * One entry of the {@link DecodedValueCache}: a decoded value, or the knowledge that the key has
 * none, and the serialized size it is weighed at.
 *
 * <p>Why mutable: every entry belongs to one state of one keyed backend, which only its task thread
 * reads and writes, so a write to a cached key changes the entry in place. That is a cache read
 * instead of a cache write, which in Caffeine would run its maintenance (buffer drains, reordering)
 * on every record of a read-modify-write. An entry evicted meanwhile by another thread's
 * maintenance is simply written in vain: the next read misses and reads RocksDB.
 */
final class CachedValue {

    /** The value of a key whose value was deleted while cached. */
    static final Object ABSENT = new Object();

    /** The decoded value, or {@link #ABSENT}. */
    Object value;

    /** The serialized size the entry was weighed at; an in-place value never exceeds it. */
    final int weighedBytes;

    CachedValue(Object value, int weighedBytes) {
        this.value = value;
        this.weighedBytes = weighedBytes;
    }
}
