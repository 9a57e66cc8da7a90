package io.streamfusion.operators.aggregate;

import io.streamfusion.api.columnar.AggregateFunction;

import javax.annotation.Nullable;

import java.util.List;

/**
 * The native function of each aggregate call a node's description lists ({@link
 * AggregateSelectList}), by the name Flink's planner gives it, or why none computes it.
 */
final class CallFunctions {

    private CallFunctions() {}

    @Nullable
    static String firstUnsupported(List<AggregateSelectList.Call> described) {
        for (AggregateSelectList.Call call : described) {
            String unsupported = unsupported(call);
            if (unsupported != null) {
                return unsupported;
            }
        }
        return null;
    }

    @Nullable
    private static String unsupported(AggregateSelectList.Call call) {
        if (hasTopLevelComma(call.arguments())) {
            return call + " has more than one argument";
        }
        return functionOf(call) == null ? "no native kernel computes " + call : null;
    }

    private static boolean hasTopLevelComma(String arguments) {
        int depth = 0;
        for (char c : arguments.toCharArray()) {
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                return true;
            }
        }
        return false;
    }

    @Nullable
    static AggregateFunction functionOf(AggregateSelectList.Call call) {
        boolean star = call.arguments().equals("*") || call.arguments().isEmpty();
        switch (call.name()) {
            case "COUNT":
            case "COUNT_RETRACT":
                return star ? AggregateFunction.COUNT_STAR : AggregateFunction.COUNT;
            case "SUM":
                return AggregateFunction.SUM;
            case "SUM_RETRACT":
                return AggregateFunction.SUM_WITH_RETRACT;
            case "$SUM0":
            case "$SUM0_RETRACT":
                return AggregateFunction.SUM0;
            case "AVG":
            case "AVG_RETRACT":
                return AggregateFunction.AVG;
            case "MAX":
                return AggregateFunction.MAX;
            case "MIN":
                return AggregateFunction.MIN;
            case "MAX_RETRACT":
                return AggregateFunction.MAX_WITH_RETRACT;
            case "MIN_RETRACT":
                return AggregateFunction.MIN_WITH_RETRACT;
            default:
                return null;
        }
    }
}
