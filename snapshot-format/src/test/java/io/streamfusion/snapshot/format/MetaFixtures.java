package io.streamfusion.snapshot.format;

import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.RegisteredPriorityQueueStateBackendMetaInfo;
import org.apache.flink.runtime.state.StateSnapshotTransformer.StateSnapshotTransformFactory;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * The meta document that every golden file of version 1 and later was written from, and the frame
 * around hand-made bodies.
 */
final class MetaFixtures {

    private MetaFixtures() {}

    static NativeSnapshotMeta golden() {
        RegisteredKeyValueStateBackendMetaInfo<?, ?> counts =
                new RegisteredKeyValueStateBackendMetaInfo<>(
                        StateDescriptor.Type.VALUE,
                        "counts",
                        VoidNamespaceSerializer.INSTANCE,
                        LongSerializer.INSTANCE,
                        StateSnapshotTransformFactory.noTransform());
        RegisteredKeyValueStateBackendMetaInfo<?, ?> names =
                new RegisteredKeyValueStateBackendMetaInfo<>(
                        StateDescriptor.Type.MAP,
                        "names",
                        StringSerializer.INSTANCE,
                        new org.apache.flink.api.common.typeutils.base.MapSerializer<>(
                                StringSerializer.INSTANCE, LongSerializer.INSTANCE),
                        StateSnapshotTransformFactory.noTransform());
        RegisteredPriorityQueueStateBackendMetaInfo<?> timers =
                new RegisteredPriorityQueueStateBackendMetaInfo<>(
                        "_timer_state/event_user-timers", LongSerializer.INSTANCE);
        return new NativeSnapshotMeta(
                42L,
                new UUID(0x0123456789abcdefL, 0xfedcba9876543210L),
                KeyGroupRange.of(32, 63),
                1,
                IntSerializer.INSTANCE.snapshotConfiguration(),
                List.of(counts.snapshot(), names.snapshot(), timers.snapshot()),
                List.of(
                        new SnapshotFileEntry("000009.sst", 1_234L, 0x1a2b3c4d),
                        new SnapshotFileEntry("MANIFEST-000005", 321L, -7),
                        new SnapshotFileEntry("CURRENT", 16L, 99)));
    }

    /** {@code body} in a document with a valid header and checksum. */
    static byte[] framed(byte[] body) {
        CRC32C crc = new CRC32C();
        crc.update(body);
        return ByteBuffer.allocate(NativeSnapshotMetaFormat.HEADER_BYTES + body.length + 4)
                .putInt(NativeSnapshotMetaFormat.MAGIC)
                .putInt(NativeSnapshotMetaFormat.CURRENT_VERSION)
                .putInt(body.length)
                .put(body)
                .putInt((int) crc.getValue())
                .array();
    }
}
