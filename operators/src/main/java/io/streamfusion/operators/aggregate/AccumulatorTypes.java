package io.streamfusion.operators.aggregate;

import io.streamfusion.api.columnar.AggregateFunction;

import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The accumulator and value types the native kernels keep for each aggregate function, as Flink's
 * planner types them, so that a call is replaced only where Flink's accumulator row is exactly what
 * the kernel reads and writes.
 */
final class AccumulatorTypes {

    /** The argument types the native SUM, AVG, MIN and MAX read. */
    private static final Set<LogicalTypeRoot> NUMBERS =
            EnumSet.of(
                    LogicalTypeRoot.TINYINT,
                    LogicalTypeRoot.SMALLINT,
                    LogicalTypeRoot.INTEGER,
                    LogicalTypeRoot.BIGINT,
                    LogicalTypeRoot.FLOAT,
                    LogicalTypeRoot.DOUBLE);

    private AccumulatorTypes() {}

    @Nullable
    static String checkTypes(
            LogicalType[] accTypes,
            AggregateFunction function,
            @Nullable LogicalType argumentType,
            int start,
            String what,
            LogicalType[] valueTypes,
            int call) {
        LogicalTypeRoot argumentRoot = argumentType == null ? null : argumentType.getTypeRoot();
        boolean counts =
                function == AggregateFunction.COUNT_STAR || function == AggregateFunction.COUNT;
        boolean decimal = argumentRoot == LogicalTypeRoot.DECIMAL;
        boolean extreme =
                EnumSet.of(
                                AggregateFunction.MIN,
                                AggregateFunction.MAX,
                                AggregateFunction.MIN_WITH_RETRACT,
                                AggregateFunction.MAX_WITH_RETRACT)
                        .contains(function);
        if (!counts
                && !NUMBERS.contains(argumentRoot)
                && !decimal
                && !(extreme && isOrderedNatively(argumentType))) {
            return what
                    + " over "
                    + argumentType
                    + " has no native kernel (numbers only; MIN and MAX also strings, dates,"
                    + " times and timestamps of precision up to 3)";
        }
        LogicalType count = new BigIntType();
        List<LogicalType> expected = new ArrayList<>();
        LogicalType value;
        switch (function) {
            case COUNT_STAR:
            case COUNT:
                expected.add(count);
                value = count;
                break;
            case SUM:
            case SUM0:
                value = sumType(argumentType);
                expected.add(value);
                break;
            case SUM_WITH_RETRACT:
                value = sumType(argumentType);
                expected.add(value);
                expected.add(count);
                break;
            case AVG:
                boolean floating =
                        argumentRoot == LogicalTypeRoot.FLOAT
                                || argumentRoot == LogicalTypeRoot.DOUBLE;
                expected.add(decimal ? sumType(argumentType) : floating ? new DoubleType() : count);
                expected.add(count);
                value = decimal ? avgType((DecimalType) argumentType) : argumentType;
                break;
            case MAX_WITH_RETRACT:
            case MIN_WITH_RETRACT:
                if (!isExtremeAccumulator(accTypes[start], argumentType)) {
                    return what
                            + " keeps a "
                            + accTypes[start]
                            + " accumulator, not ("
                            + argumentType
                            + ", BIGINT, MapView)";
                }
                value = argumentType;
                break;
            default:
                expected.add(argumentType);
                value = argumentType;
        }
        for (int i = 0; i < expected.size(); i++) {
            if (!sameType(accTypes[start + i], expected.get(i))) {
                return what + " keeps a " + accTypes[start + i] + " accumulator, not " + expected;
            }
        }
        if (call < valueTypes.length && !sameType(valueTypes[call], value)) {
            return what + " gives a " + valueTypes[call] + " value, not " + value;
        }
        return null;
    }

    /**
     * Whether MIN and MAX of {@code type}, beside the numbers, run natively: CHAR and VARCHAR
     * (ordered by their UTF-8 bytes, unsigned, then by length, as {@code BinaryStringData}
     * compares), and the types stored and ordered as a number, DATE and TIME (an INT) and a
     * TIMESTAMP or TIMESTAMP_LTZ of precision up to 3 (its epoch milliseconds, a long, which is how
     * {@code TimestampData} orders a compact one).
     */
    private static boolean isOrderedNatively(@Nullable LogicalType type) {
        if (type == null) {
            return false;
        }
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return true;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return TimestampData.isCompact(LogicalTypeChecks.getPrecision(type));
            default:
                return false;
        }
    }

    /**
     * Whether {@code type} is the accumulator of a MIN or MAX over retractions of {@code argument}:
     * the structured {@code (max, mapSize, map)} of {@code MaxWithRetractAccumulator}.
     */
    private static boolean isExtremeAccumulator(LogicalType type, LogicalType argument) {
        if (type.getTypeRoot() != LogicalTypeRoot.STRUCTURED_TYPE) {
            return false;
        }
        List<LogicalType> fields = LogicalTypeChecks.getFieldTypes(type);
        return fields.size() == 3
                && sameType(fields.get(0), argument)
                && sameType(fields.get(1), new BigIntType())
                && fields.get(2).getTypeRoot() == LogicalTypeRoot.RAW;
    }

    static LogicalType sumType(LogicalType type) {
        return type instanceof DecimalType
                ? new DecimalType(DecimalType.MAX_PRECISION, ((DecimalType) type).getScale())
                : type;
    }

    /**
     * The type of an AVG of {@code type}: Flink's DecimalAvgAggFunction divides into DECIMAL(38,
     * max(6, s)) ({@code LogicalTypeMerging.findAvgAggType}).
     */
    private static LogicalType avgType(DecimalType type) {
        return new DecimalType(DecimalType.MAX_PRECISION, Math.max(6, type.getScale()));
    }

    private static boolean sameType(LogicalType a, LogicalType b) {
        return a.copy(true).equals(b.copy(true));
    }

    static int[] starts(List<AggregateFunction> functions) {
        int[] starts = new int[functions.size() + 1];
        for (int i = 0; i < functions.size(); i++) {
            starts[i + 1] = starts[i] + accumulatorFields(functions.get(i));
        }
        return starts;
    }

    private static int accumulatorFields(AggregateFunction function) {
        return function == AggregateFunction.SUM_WITH_RETRACT || function == AggregateFunction.AVG
                ? 2
                : 1;
    }
}
