package io.streamfusion.backend.state;

import io.streamfusion.backend.nativelib.EntryBatchReader;
import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeKeyGroupScan;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.util.FlinkRuntimeException;

import java.io.IOException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Keys and namespaces of one state, decoded from the canonical keys of a native scan. Backs {@code
 * getKeys} and {@code getKeysAndNamespaces}. The scan reads a snapshot, so callers may change state
 * while they iterate, as {@code applyToAllKeys} does.
 */
public final class ColumnFamilyKeys {

    private static final int SCAN_BATCH_BYTES = 256 * 1024;

    private ColumnFamilyKeys() {}

    /** Distinct keys that have an entry in {@code namespace}, in stored order. */
    public static <K, N> Stream<K> keys(
            KeyedStateContext<K> context,
            NativeColumnFamily columnFamily,
            TypeSerializer<N> namespaceSerializer,
            N namespace) {
        EntryCursor<K, N> cursor = new EntryCursor<>(context, columnFamily, namespaceSerializer);
        byte[] namespaceBytes;
        try {
            DataOutputSerializer out = new DataOutputSerializer(16);
            CompositeKeySerializationUtils.writeNameSpace(
                    namespace, cursor.namespaceSerializer, out, cursor.ambiguous);
            namespaceBytes = out.getCopyOfBuffer();
        } catch (IOException e) {
            cursor.close();
            throw new FlinkRuntimeException("Could not serialize namespace " + namespace, e);
        }
        Iterator<K> iterator =
                new DecodingIterator<>(cursor) {
                    private K previous;

                    @Override
                    K decode(byte[] key) throws IOException {
                        K current = cursor.readKey(key);
                        int position = cursor.position();
                        boolean inNamespace =
                                key.length >= position + namespaceBytes.length
                                        && Arrays.equals(
                                                key,
                                                position,
                                                position + namespaceBytes.length,
                                                namespaceBytes,
                                                0,
                                                namespaceBytes.length);
                        if (inNamespace && !Objects.equals(previous, current)) {
                            previous = current;
                            return current;
                        }
                        return null;
                    }
                };
        return stream(iterator, cursor);
    }

    /** Every distinct (key, namespace) pair of the state. */
    public static <K, N> Stream<Tuple2<K, N>> keysAndNamespaces(
            KeyedStateContext<K> context,
            NativeColumnFamily columnFamily,
            TypeSerializer<N> namespaceSerializer) {
        EntryCursor<K, N> cursor = new EntryCursor<>(context, columnFamily, namespaceSerializer);
        Iterator<Tuple2<K, N>> iterator =
                new DecodingIterator<>(cursor) {
                    private Tuple2<K, N> previous;

                    @Override
                    Tuple2<K, N> decode(byte[] key) throws IOException {
                        K k = cursor.readKey(key);
                        N n =
                                CompositeKeySerializationUtils.readNamespace(
                                        cursor.namespaceSerializer,
                                        cursor.input(),
                                        cursor.ambiguous);
                        Tuple2<K, N> current = Tuple2.of(k, n);
                        if (current.equals(previous)) {
                            return null;
                        }
                        previous = current;
                        return current;
                    }
                };
        return stream(iterator, cursor);
    }

    private static <T> Stream<T> stream(Iterator<T> iterator, EntryCursor<?, ?> cursor) {
        return StreamSupport.stream(
                        Spliterators.spliteratorUnknownSize(iterator, Spliterator.ORDERED), false)
                .onClose(cursor::close);
    }

    /** Walks the canonical keys of one column family, batch by batch. */
    private static final class EntryCursor<K, N> implements AutoCloseable {
        private final NativeKeyGroupScan scan;
        private final String stateName;
        private final TypeSerializer<K> keySerializer;
        final TypeSerializer<N> namespaceSerializer;

        /** Whether key and namespace carry length suffixes, as Flink decides for the pair. */
        final boolean ambiguous;

        private final int keyGroupPrefixBytes;
        private final DataInputDeserializer input = new DataInputDeserializer();
        private EntryBatchReader batch;
        private boolean exhausted;

        EntryCursor(
                KeyedStateContext<K> context,
                NativeColumnFamily columnFamily,
                TypeSerializer<N> namespaceSerializer) {
            this.scan =
                    context.store().openScan(List.of(columnFamily), context.keyGroupPrefixBytes());
            this.stateName = columnFamily.stateName();
            this.keySerializer = context.keySerializer();
            this.keyGroupPrefixBytes = context.keyGroupPrefixBytes();
            this.namespaceSerializer = namespaceSerializer;
            this.ambiguous =
                    CompositeKeySerializationUtils.isAmbiguousKeyPossible(
                            keySerializer, namespaceSerializer);
        }

        /** The next stored key, or null at the end. */
        byte[] nextKey() {
            while (!exhausted) {
                if (batch != null && batch.advance()) {
                    return batch.key();
                }
                byte[] bytes = scan.nextBatch(SCAN_BATCH_BYTES);
                if (bytes.length == 0) {
                    exhausted = true;
                    close();
                } else {
                    batch = new EntryBatchReader(bytes);
                }
            }
            return null;
        }

        K readKey(byte[] key) throws IOException {
            input.setBuffer(key, keyGroupPrefixBytes, key.length - keyGroupPrefixBytes);
            return CompositeKeySerializationUtils.readKey(keySerializer, input, ambiguous);
        }

        int position() {
            return input.getPosition();
        }

        DataInputDeserializer input() {
            return input;
        }

        @Override
        public void close() {
            scan.close();
        }
    }

    /** Turns stored keys into decoded items, skipping keys that {@link #decode} rejects. */
    private abstract static class DecodingIterator<T> implements Iterator<T> {
        private final EntryCursor<?, ?> cursor;
        private T next;

        DecodingIterator(EntryCursor<?, ?> cursor) {
            this.cursor = cursor;
        }

        /** The item for a stored key, or null to skip it. */
        abstract T decode(byte[] key) throws IOException;

        @Override
        public boolean hasNext() {
            try {
                while (next == null) {
                    byte[] key = cursor.nextKey();
                    if (key == null) {
                        return false;
                    }
                    next = decode(key);
                }
                return true;
            } catch (IOException e) {
                throw new FlinkRuntimeException(
                        "Failed to read keys of state " + cursor.stateName, e);
            }
        }

        @Override
        public T next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            T result = next;
            next = null;
            return result;
        }
    }
}
