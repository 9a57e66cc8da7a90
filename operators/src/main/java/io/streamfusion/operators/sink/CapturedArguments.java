package io.streamfusion.operators.sink;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Method;

/**
 * Reads what a serializable lambda of Flink's captured, through the {@link SerializedLambda} the
 * JVM gives for it: the only place {@code SinkUpsertMaterializerV2} keeps its upsert key.
 */
final class CapturedArguments {

    private CapturedArguments() {}

    /** The one {@code int[]} that {@code lambda} captured, or null if it captured none. */
    @Nullable
    static int[] intArrayOf(Serializable lambda) {
        try {
            Method writeReplace = lambda.getClass().getDeclaredMethod("writeReplace");
            writeReplace.setAccessible(true);
            SerializedLambda serialized = (SerializedLambda) writeReplace.invoke(lambda);
            int[] found = null;
            for (int i = 0; i < serialized.getCapturedArgCount(); i++) {
                if (serialized.getCapturedArg(i) instanceof int[]) {
                    if (found != null) {
                        return null;
                    }
                    found = (int[]) serialized.getCapturedArg(i);
                }
            }
            return found;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
