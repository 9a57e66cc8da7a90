package io.streamfusion.backend.cache;

/**
 * A block cache of {@code capacity} bytes, {@code used} of them used, lending up to a cap and
 * accepting what a decoded-value cache gives of its own share.
 */
final class FakeBlockCacheLender implements BlockCacheLender {
    final long capacity;
    long used;
    long lendable;
    long lent;
    long accepted;

    /** The decoded-value cache's capacity when it last gave or took back, if watched. */
    DecodedValueCache watched;

    long capacityOfWatchedAtAccept = -1;

    FakeBlockCacheLender(long capacity, long used, long lendable) {
        this.capacity = capacity;
        this.used = used;
        this.lendable = lendable;
    }

    long blockCacheCapacity() {
        return capacity - lent + accepted;
    }

    @Override
    public BlockCacheRoom room() {
        return new BlockCacheRoom(
                blockCacheCapacity(), Math.max(0, blockCacheCapacity() - used), lent);
    }

    @Override
    public long lend(long bytes) {
        lent = Math.min(bytes, lendable);
        return lent;
    }

    @Override
    public long accept(long bytes) {
        if (watched != null) {
            capacityOfWatchedAtAccept = watched.capacityBytes();
        }
        accepted = bytes;
        return accepted;
    }
}
