package io.streamfusion.backend.ttl;

import io.streamfusion.backend.nativelib.NativeListElementScanner;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.runtime.state.ttl.TtlUtils;
import org.apache.flink.runtime.state.ttl.TtlValue;
import org.apache.flink.util.FlinkRuntimeException;

import java.io.IOException;

/**
 * Finds the first unexpired element of a list whose elements vary in length, by deserializing them
 * with the state's {@code TtlSerializer}, as Flink's RocksDB backend does for its compaction
 * filter. RocksDB calls it from several background threads, so each thread gets its own serializer
 * duplicate, loaded with the job's class loader.
 */
final class TtlListElementScanner<T> implements NativeListElementScanner {

    private final ThreadLocal<Reader<T>> readers;

    TtlListElementScanner(TypeSerializer<TtlValue<T>> elementSerializer) {
        ClassLoader jobClassLoader = Thread.currentThread().getContextClassLoader();
        this.readers =
                ThreadLocal.withInitial(
                        () -> {
                            // Compaction threads start with no context class loader; user
                            // types in the elements need the job's.
                            Thread.currentThread().setContextClassLoader(jobClassLoader);
                            return new Reader<>(elementSerializer.duplicate());
                        });
    }

    @Override
    public int firstUnexpiredOffset(byte[] list, long ttlMillis, long nowMillis) {
        Reader<T> reader = readers.get();
        reader.input.setBuffer(list);
        int unexpiredFrom = 0;
        try {
            while (reader.input.available() > 0) {
                TtlValue<T> element = reader.serializer.deserialize(reader.input);
                if (reader.input.available() > 0) {
                    reader.input.skipBytesToRead(1); // the delimiter
                }
                if (!TtlUtils.expired(element.getLastAccessTimestamp(), ttlMillis, nowMillis)) {
                    break;
                }
                unexpiredFrom = reader.input.getPosition();
            }
        } catch (IOException e) {
            throw new FlinkRuntimeException(
                    "Could not read a list element for the TTL compaction filter", e);
        }
        return unexpiredFrom;
    }

    private static final class Reader<T> {
        final TypeSerializer<TtlValue<T>> serializer;
        final DataInputDeserializer input = new DataInputDeserializer();

        Reader(TypeSerializer<TtlValue<T>> serializer) {
            this.serializer = serializer;
        }
    }
}
