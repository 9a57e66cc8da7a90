package io.streamfusion.backend.nativelib;

import io.streamfusion.api.columnar.AggregateFunction;
import io.streamfusion.api.columnar.BinaryFieldType;
import io.streamfusion.api.columnar.GroupAggregator;
import io.streamfusion.api.columnar.SinkConstraints;
import io.streamfusion.api.columnar.Top1Ranker;
import io.streamfusion.api.columnar.Top1Replacement;
import io.streamfusion.api.columnar.UpsertMaterializer;

import java.util.Locale;

/**
 * What the Java side and the native library must agree on, as the Java side defines it: the ABI
 * version and every code the two exchange. {@link NativeLibrary} sends {@link #descriptor()} when
 * it loads the library, which refuses to run with a descriptor other than its own
 * (native/src/abi.rs builds the same string), so a mismatch fails before any state is touched.
 */
final class NativeAbi {

    /** Bump with native/src/abi.rs whenever a JNI signature or a batch encoding changes. */
    static final int VERSION = 15;

    private NativeAbi() {}

    private static String lowerCaseName(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** {@code abi=N;ttl.none=0;ttl.value=1;...}, in native/src/abi.rs's order. */
    static String descriptor() {
        StringBuilder out = new StringBuilder("abi=").append(VERSION);
        out.append(";ttl.none=").append(TtlCompactionFilterSpec.Layout.NONE);
        for (TtlCompactionFilterSpec.Layout layout : TtlCompactionFilterSpec.Layout.values()) {
            out.append(";ttl.").append(lowerCaseName(layout)).append('=').append(layout.code);
        }
        for (BinaryFieldType type : BinaryFieldType.values()) {
            out.append(";field.").append(lowerCaseName(type)).append('=').append(type.ordinal());
        }
        out.append(";top1.rejected=").append(Top1Ranker.REJECTED);
        out.append(";top1.first=").append(Top1Ranker.FIRST);
        out.append(";top1.replaced=").append(Top1Ranker.REPLACED);
        for (Top1Replacement replacement : Top1Replacement.values()) {
            out.append(";top1.replacement.")
                    .append(lowerCaseName(replacement))
                    .append('=')
                    .append(replacement.ordinal());
        }
        out.append(";upsert.nothing=").append(UpsertMaterializer.NOTHING);
        out.append(";upsert.insert=").append(UpsertMaterializer.INSERT);
        out.append(";upsert.update-after=").append(UpsertMaterializer.UPDATE_AFTER);
        out.append(";upsert.delete=").append(UpsertMaterializer.DELETE);
        out.append(";upsert.latest=").append(UpsertMaterializer.LATEST);
        out.append(";upsert.not-found=").append(UpsertMaterializer.NOT_FOUND);
        out.append(";agg.nothing=").append(GroupAggregator.NOTHING);
        out.append(";agg.insert=").append(GroupAggregator.INSERT);
        out.append(";agg.update=").append(GroupAggregator.UPDATE);
        out.append(";agg.delete=").append(GroupAggregator.DELETE);
        for (AggregateFunction function : AggregateFunction.values()) {
            out.append(";agg.function.")
                    .append(lowerCaseName(function))
                    .append('=')
                    .append(function.ordinal());
        }
        out.append(";constraints.emit=").append(SinkConstraints.EMIT);
        out.append(";constraints.rewritten=").append(SinkConstraints.REWRITTEN);
        out.append(";constraints.dropped=").append(SinkConstraints.DROPPED);
        out.append(";constraints.null-violation=").append(SinkConstraints.NULL_VIOLATION);
        out.append(";constraints.char-violation=").append(SinkConstraints.CHAR_VIOLATION);
        out.append(";constraints.binary-violation=").append(SinkConstraints.BINARY_VIOLATION);
        return out.toString();
    }
}
