package io.streamfusion.backend.ttl;

import io.streamfusion.backend.nativelib.NativeColumnFamily;
import io.streamfusion.backend.nativelib.NativeListElementScanner;
import io.streamfusion.backend.nativelib.TtlCompactionFilterSpec;
import io.streamfusion.backend.nativelib.TtlCompactionFilterSpec.Layout;

import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.runtime.state.ttl.TtlValue;

import java.time.Duration;

/**
 * Switches on the native TTL compaction filter of a state's column family when its descriptor asks
 * for background cleanup, following Flink's RocksDB backend: Flink's {@code TtlStateFactory} hands
 * the backend a descriptor with the TTL config and a {@code TtlSerializer}; the state's own {@code
 * cleanupInRocksdbCompactFilter} settings override the backend's defaults.
 */
public final class TtlCompactionFilters {

    private TtlCompactionFilters() {}

    public static void configure(
            NativeColumnFamily columnFamily,
            StateDescriptor<?, ?> descriptor,
            TtlTimeProvider clock,
            TtlCompactionSettings settings) {
        StateTtlConfig ttl = descriptor.getTtlConfig();
        if (!settings.enabled()
                || !ttl.isEnabled()
                || !ttl.getCleanupStrategies().inRocksdbCompactFilter()) {
            return;
        }
        long queryAfter = settings.queryTimeAfterEntries();
        Duration periodic = settings.periodicCompaction();
        StateTtlConfig.RocksdbCompactFilterCleanupStrategy own =
                ttl.getCleanupStrategies().getRocksdbCompactFilterCleanupStrategy();
        if (own != null) {
            queryAfter = own.getQueryTimeAfterNumEntries();
            periodic = own.getPeriodicCompactionTime();
        }
        Layout layout = Layout.VALUE;
        int elementBytes = 0;
        NativeListElementScanner scanner = null;
        if (descriptor instanceof ListStateDescriptor<?> list) {
            @SuppressWarnings("unchecked")
            TypeSerializer<TtlValue<Object>> elements =
                    (TypeSerializer<TtlValue<Object>>) list.getElementSerializer();
            int length = elements.getLength();
            if (length > 0) {
                layout = Layout.FIXED_ELEMENT_LIST;
                elementBytes = length + 1; // and the delimiter after it
            } else {
                layout = Layout.VARIABLE_ELEMENT_LIST;
                scanner = new TtlListElementScanner<>(elements);
            }
        } else if (descriptor instanceof MapStateDescriptor) {
            layout = Layout.MAP;
        }
        columnFamily.configureTtlCompactionFilter(
                new TtlCompactionFilterSpec(
                        layout,
                        elementBytes,
                        ttl.getTimeToLive().toMillis(),
                        Math.max(1, queryAfter),
                        periodic),
                clock::currentTimestamp,
                scanner);
    }
}
