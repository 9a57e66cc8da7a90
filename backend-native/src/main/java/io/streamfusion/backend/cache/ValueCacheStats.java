package io.streamfusion.backend.cache;

/** What the {@link DecodedValueCache} served since it was created: the source of its metrics. */
public record ValueCacheStats(long hitCount, long missCount, long evictionCount) {

    ValueCacheStats plus(ValueCacheStats other) {
        return new ValueCacheStats(
                hitCount + other.hitCount,
                missCount + other.missCount,
                evictionCount + other.evictionCount);
    }
}
