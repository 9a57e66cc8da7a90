package io.streamfusion.backend.state;

import io.streamfusion.backend.cache.StateValueCache;
import io.streamfusion.backend.nativelib.NativeStore;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.SerializedCompositeKeyBuilder;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.ResourceGuard;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * What the state kinds need from the keyed backend that owns them, and nothing more: the native
 * store, the key builder that holds the current key, the key layout, leases for calls from other
 * threads, the TTL clock and the decoded-value cache. The backend hands its states an
 * implementation, so the state classes never depend on the backend class.
 *
 * @param <K> key type
 */
public interface KeyedStateContext<K> {

    NativeStore store();

    /** The builder positioned at the backend's current key and key group. */
    SerializedCompositeKeyBuilder<K> sharedKeyBuilder();

    TypeSerializer<K> keySerializer();

    int keyGroupPrefixBytes();

    int numberOfKeyGroups();

    /** Keeps the native store open until closed; for calls from threads other than the task's. */
    ResourceGuard.Lease storeLease() throws IOException;

    TtlTimeProvider ttlTimeProvider();

    /** Where background work counts the corrupt entries of other keys that it stepped over. */
    SkippedCorruptEntries skippedCorruptEntries();

    /**
     * This state's view of the slot's decoded-value cache, or null if the cache is disabled,
     * refused, or the state is excluded by {@code cache.excluded-states}.
     *
     * @param bytesDecoder decodes a mutable value from its stored bytes
     */
    @Nullable
    <V> StateValueCache<V> valueCacheFor(
            String stateName,
            TypeSerializer<V> serializer,
            StateValueCache.StoredBytesDecoder<V> bytesDecoder);
}
