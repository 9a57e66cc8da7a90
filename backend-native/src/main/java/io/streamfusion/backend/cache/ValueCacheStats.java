package io.streamfusion.backend.cache;

/** What the {@link DecodedValueCache} served since it was created: the source of its metrics. */
public record ValueCacheStats(long hitCount, long missCount, long evictionCount) {

    ValueCacheStats minus(ValueCacheStats earlier) {
        return new ValueCacheStats(
                hitCount - earlier.hitCount,
                missCount - earlier.missCount,
                evictionCount - earlier.evictionCount);
    }

    ValueCacheStats plus(ValueCacheStats other) {
        return new ValueCacheStats(
                hitCount + other.hitCount,
                missCount + other.missCount,
                evictionCount + other.evictionCount);
    }
}
