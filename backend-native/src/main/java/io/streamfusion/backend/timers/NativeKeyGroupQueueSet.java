package io.streamfusion.backend.timers;

import io.streamfusion.backend.nativelib.EntryBatchReader;
import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.InternalPriorityQueue;
import org.apache.flink.runtime.state.heap.AbstractHeapPriorityQueueElement;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.FlinkRuntimeException;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The timers of one key group, stored natively as {@code [key group][element]} keys with empty
 * values, so the native order is timer order. A small ordered cache holds the head, so {@code peek}
 * and {@code poll} rarely cross JNI; it is refilled from disk in one batch. The design is Flink's
 * {@code RocksDBCachingPriorityQueueSet}; set semantics come from the key being the whole element.
 */
final class NativeKeyGroupQueueSet<E extends HeapPriorityQueueElement>
        extends AbstractHeapPriorityQueueElement implements InternalPriorityQueue<E> {

    private static final byte[] EMPTY = new byte[0];

    /** Enough bytes for a cache refill of a few hundred timers in one JNI crossing. */
    private static final int REFILL_BATCH_BYTES = 16 * 1024;

    private final NativeColumnFamily columnFamily;
    private final TypeSerializer<E> serializer;
    private final byte[] groupPrefix;
    private final DataOutputSerializer out;
    private final DataInputDeserializer in;
    private final OrderedBytesCache cache;

    /** Everything before this key in the key group is known to be deleted: scans start after it. */
    private byte[] seekHint;

    private E peekCache;
    private boolean allElementsInCache;

    NativeKeyGroupQueueSet(
            int keyGroup,
            int keyGroupPrefixBytes,
            NativeColumnFamily columnFamily,
            TypeSerializer<E> serializer,
            DataOutputSerializer sharedOut,
            DataInputDeserializer sharedIn,
            OrderedBytesCache cache) {
        this.columnFamily = columnFamily;
        this.serializer = serializer;
        this.out = sharedOut;
        this.in = sharedIn;
        this.cache = cache;
        this.groupPrefix = keyGroupBytes(keyGroup, keyGroupPrefixBytes);
        this.seekHint = null;
    }

    private byte[] keyGroupBytes(int keyGroup, int prefixBytes) {
        try {
            out.clear();
            CompositeKeySerializationUtils.writeKeyGroup(keyGroup, prefixBytes, out);
            return out.getCopyOfBuffer();
        } catch (IOException e) {
            throw new FlinkRuntimeException("Could not write key-group bytes", e);
        }
    }

    @Override
    public E peek() {
        refillIfNeeded();
        if (peekCache == null) {
            byte[] first = cache.peekFirst();
            peekCache = first == null ? null : deserialize(first);
        }
        return peekCache;
    }

    @Override
    public E poll() {
        refillIfNeeded();
        byte[] first = cache.pollFirst();
        if (first == null) {
            return null;
        }
        columnFamily.delete(first);
        if (cache.isEmpty()) {
            seekHint = first;
        }
        E result = peekCache != null ? peekCache : deserialize(first);
        peekCache = null;
        return result;
    }

    @Override
    public boolean add(E element) {
        refillIfNeeded();
        byte[] bytes = serialize(element);
        if (seekHint != null && OrderedBytesCache.ORDER.compare(bytes, seekHint) <= 0) {
            // Scans start after the hint; an element at or before it must stay visible to them.
            seekHint = null;
        }
        boolean cacheFull = cache.isFull();
        if ((!cacheFull && allElementsInCache)
                || OrderedBytesCache.ORDER.compare(bytes, cache.peekLast()) < 0) {
            if (cacheFull) {
                cache.pollLast();
                allElementsInCache = false;
            }
            if (cache.add(bytes)) {
                columnFamily.put(bytes, EMPTY);
                if (bytes == cache.peekFirst()) {
                    peekCache = null;
                    return true;
                }
            }
        } else {
            columnFamily.put(bytes, EMPTY);
            allElementsInCache = false;
        }
        return false;
    }

    @Override
    public boolean remove(E element) {
        refillIfNeeded();
        byte[] oldHead = cache.peekFirst();
        if (oldHead == null) {
            return false;
        }
        byte[] bytes = serialize(element);
        columnFamily.delete(bytes);
        cache.remove(bytes);
        if (cache.isEmpty()) {
            seekHint = bytes;
            peekCache = null;
            return true;
        }
        if (oldHead != cache.peekFirst()) {
            peekCache = null;
            return true;
        }
        return false;
    }

    @Override
    public void addAll(Collection<? extends E> elements) {
        if (elements != null) {
            for (E element : elements) {
                add(element);
            }
        }
    }

    @Override
    public boolean isEmpty() {
        refillIfNeeded();
        return cache.isEmpty();
    }

    @Override
    public int size() {
        if (allElementsInCache) {
            return cache.size();
        }
        int count = 0;
        for (StoredKeys keys = new StoredKeys(); keys.hasNext(); keys.next()) {
            count++;
        }
        return count;
    }

    @Override
    public CloseableIterator<E> iterator() {
        StoredKeys keys = new StoredKeys();
        return CloseableIterator.adapterForIterator(
                new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return keys.hasNext();
                    }

                    @Override
                    public E next() {
                        return deserialize(keys.next());
                    }
                });
    }

    private void refillIfNeeded() {
        if (!allElementsInCache && cache.isEmpty()) {
            StoredKeys keys = new StoredKeys();
            cache.loadFrom(keys);
            allElementsInCache = !keys.hasNext();
        }
    }

    private byte[] serialize(E element) {
        try {
            out.clear();
            out.write(groupPrefix);
            serializer.serialize(element, out);
            return out.getCopyOfBuffer();
        } catch (IOException e) {
            throw new FlinkRuntimeException("Error while serializing a timer", e);
        }
    }

    private E deserialize(byte[] bytes) {
        try {
            in.setBuffer(bytes, groupPrefix.length, bytes.length - groupPrefix.length);
            return serializer.deserialize(in);
        } catch (IOException e) {
            throw new FlinkRuntimeException("Error while deserializing a timer", e);
        }
    }

    /** The stored keys of this key group after the seek hint, in order, fetched in batches. */
    private final class StoredKeys implements Iterator<byte[]> {
        private final ArrayDeque<byte[]> buffered = new ArrayDeque<>();
        private byte[] resumeAfter = seekHint;
        private boolean exhausted;

        @Override
        public boolean hasNext() {
            if (buffered.isEmpty() && !exhausted) {
                byte[] batch =
                        columnFamily.scanPrefix(groupPrefix, resumeAfter, REFILL_BATCH_BYTES);
                exhausted = batch.length < REFILL_BATCH_BYTES;
                EntryBatchReader reader = new EntryBatchReader(batch);
                while (reader.advance()) {
                    buffered.add(reader.key());
                    resumeAfter = reader.key();
                }
            }
            return !buffered.isEmpty();
        }

        @Override
        public byte[] next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return buffered.poll();
        }
    }
}
