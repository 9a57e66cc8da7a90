package io.streamfusion.backend.timers;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.TreeSet;

/**
 * The head of one key group's timer queue, kept on the heap: at most {@code maxSize} serialized
 * elements in unsigned lexicographic order, which is timer order for Flink's byte-ordered timer
 * serializer. The rest of the queue stays on disk.
 */
final class OrderedBytesCache {

    static final Comparator<byte[]> ORDER = Arrays::compareUnsigned;

    private final TreeSet<byte[]> elements = new TreeSet<>(ORDER);
    private final int maxSize;

    OrderedBytesCache(int maxSize) {
        if (maxSize <= 0) {
            throw new IllegalArgumentException("cache size must be positive: " + maxSize);
        }
        this.maxSize = maxSize;
    }

    int size() {
        return elements.size();
    }

    boolean isEmpty() {
        return elements.isEmpty();
    }

    boolean isFull() {
        return elements.size() >= maxSize;
    }

    boolean add(byte[] element) {
        return elements.add(element);
    }

    boolean remove(byte[] element) {
        return elements.remove(element);
    }

    byte[] peekFirst() {
        return elements.isEmpty() ? null : elements.first();
    }

    byte[] peekLast() {
        return elements.isEmpty() ? null : elements.last();
    }

    byte[] pollFirst() {
        return elements.pollFirst();
    }

    byte[] pollLast() {
        return elements.pollLast();
    }

    /** Fills the empty cache from an ordered source; stops when full. */
    void loadFrom(Iterator<byte[]> ordered) {
        while (!isFull() && ordered.hasNext()) {
            elements.add(ordered.next());
        }
    }
}
