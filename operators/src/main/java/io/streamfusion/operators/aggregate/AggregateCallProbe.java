package io.streamfusion.operators.aggregate;

import io.streamfusion.api.columnar.AggregateCall;
import io.streamfusion.api.columnar.AggregateFunction;
import io.streamfusion.api.columnar.BinaryFieldType;
import io.streamfusion.operators.batch.BinaryFieldTypes;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.generated.AggsHandleFunction;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import javax.annotation.Nullable;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Tells which input field each aggregate call of a {@code GroupAggFunction} reads, and which field
 * FILTERs it, by running the planner's generated handler on probe rows: the description names the
 * functions ({@link AggregateSelectList}) but not the fields. A probe row has every field NULL
 * except the BOOLEAN ones (TRUE, so that FILTERs pass); a call reads field f if setting f (or, for
 * a BOOLEAN, clearing it) changes the call's accumulator, and is filtered by the BOOLEAN field g if
 * setting g to FALSE leaves its accumulator as it started. Then the accumulator layout and value
 * types must be exactly what the native kernels keep; anything else is refused, with the reason.
 *
 * <p>MIN and MAX over retractions, and DISTINCT calls, keep {@code MapView}s: the handler gets them
 * from a {@link RecordingDataViewStore}, which empties them before each probe, and they become the
 * calls' element tables, MIN and MAX first in call order, then one per DISTINCT argument in the
 * order the planner numbers them ({@code distinctAcc_<j>}).
 */
final class AggregateCallProbe {

    /**
     * The identified calls, how many of them are in the output and the element tables they keep, or
     * why there are none.
     */
    record Result(
            @Nullable List<AggregateCall> calls,
            int valueArity,
            List<ElementTableSpec> elementTables,
            @Nullable String unsupported) {

        static Result refuse(String reason) {
            return new Result(null, 0, List.of(), reason);
        }
    }

    private final LogicalType[] inputTypes;
    private final LogicalType[] accTypes;
    private final AggsHandleFunction handler;
    private final RecordingDataViewStore views;
    private final RowDataSerializer inputSerializer;
    private final RowData.FieldGetter[] accGetters;

    /**
     * A probe of {@code handler}, opened with {@code views}, of an aggregation over rows of {@code
     * inputTypes} with accumulators of {@code accTypes}.
     */
    AggregateCallProbe(
            LogicalType[] inputTypes,
            LogicalType[] accTypes,
            AggsHandleFunction handler,
            RecordingDataViewStore views) {
        this.inputTypes = inputTypes;
        this.accTypes = accTypes;
        this.handler = handler;
        this.views = views;
        this.inputSerializer = new RowDataSerializer(inputTypes);
        this.accGetters = new RowData.FieldGetter[accTypes.length];
        for (int i = 0; i < accTypes.length; i++) {
            accGetters[i] = RowData.createFieldGetter(accTypes[i], i);
        }
    }

    /**
     * Identifies {@code described}, the calls of the node's description, which {@link
     * CallFunctions#firstUnsupported} accepted (see {@link AggregateNode}).
     *
     * @param valueTypes the types of the aggregate values in the output, after the grouping keys
     * @param countStarField Flink's {@code RecordCounter} index, or -1 for insert-only input
     */
    Result probe(
            List<AggregateSelectList.Call> described, LogicalType[] valueTypes, int countStarField)
            throws Exception {
        List<AggregateFunction> functions = new ArrayList<>();
        described.forEach(call -> functions.add(CallFunctions.functionOf(call)));
        List<Boolean> filtered = new ArrayList<>();
        described.forEach(call -> filtered.add(call.filtered()));
        if (countStarField >= 0 && !functions.contains(AggregateFunction.COUNT_STAR)) {
            // The planner appends a COUNT(*) to count the rows of a retracting input.
            functions.add(AggregateFunction.COUNT_STAR);
            filtered.add(false);
        }
        int[] starts = AccumulatorTypes.starts(functions);
        List<String> distinctArguments = ElementTables.distinctArguments(described);
        int callFields = starts[functions.size()];
        if (callFields + distinctArguments.size() != accTypes.length
                || !ElementTables.allRaw(
                        Arrays.copyOfRange(accTypes, callFields, accTypes.length))) {
            return Result.refuse(
                    "its accumulators "
                            + Arrays.toString(accTypes)
                            + " are not those of "
                            + described
                            + " as the native kernels keep them");
        }
        int[] tables = ElementTables.assign(described, functions, distinctArguments);
        Object[] initial = accumulators(handler.createAccumulators());
        List<AggregateCall> calls = new ArrayList<>();
        for (int i = 0; i < functions.size(); i++) {
            AggregateFunction function = functions.get(i);
            String what = i < described.size() ? described.get(i).toString() : "the row count";
            int argument = -1;
            if (function != AggregateFunction.COUNT_STAR) {
                argument = argumentOf(starts[i], starts[i + 1]);
                if (argument < 0) {
                    return Result.refuse("the probe could not tell which field " + what + " reads");
                }
            }
            int filter = -1;
            if (filtered.get(i)) {
                filter = filterOf(starts[i], starts[i + 1], argument, initial);
                if (filter < 0) {
                    return Result.refuse("the probe could not tell which field filters " + what);
                }
            }
            String unsupportedType =
                    AccumulatorTypes.checkTypes(
                            accTypes,
                            function,
                            argument < 0 ? null : inputTypes[argument],
                            starts[i],
                            what,
                            valueTypes,
                            i);
            if (unsupportedType != null) {
                return Result.refuse(unsupportedType);
            }
            if (argument < 0) {
                calls.add(AggregateCall.countStar(filter));
            } else if (BinaryFieldTypes.of(inputTypes[argument]).isEmpty()) {
                return Result.refuse(what + " reads a " + inputTypes[argument] + " field");
            } else {
                calls.add(call(function, argument, inputTypes[argument], filter, tables[i]));
            }
        }
        String counter = checkCountStar(calls, starts, countStarField);
        if (counter != null) {
            return Result.refuse(counter);
        }
        String distinctViews =
                ElementTables.checkDistinctViews(calls, described, tables, countStarField >= 0);
        if (distinctViews != null) {
            return Result.refuse(distinctViews);
        }
        List<ElementTableSpec> specs = new ArrayList<>();
        String unmatched =
                ElementTables.matchRecordedViews(
                        views, inputTypes, calls, described, distinctArguments.size(), specs);
        return unmatched != null
                ? Result.refuse(unmatched)
                : new Result(calls, described.size(), specs, null);
    }

    /** The arguments of the DISTINCT calls, each once, in the order the planner numbers views. */
    /** Why the first call of {@code described} that no native kernel computes is refused. */
    /**
     * Identifies the calls of a two-phase aggregation's global half, whose input rows are the key
     * and a local aggregation's accumulators, merged field by field: no argument or FILTER to find
     * (the local half applied them). The description names each call's local accumulator fields
     * ({@code COUNT(count1$0)} is a COUNT(*), {@code COUNT(count$5)} a COUNT of a column); each
     * call's "argument" is then its first accumulator field and the type its value has.
     *
     * @param accTypes the accumulator types, which are also the merged input's
     */
    static Result forMerging(
            List<AggregateSelectList.Call> described,
            LogicalType[] accTypes,
            LogicalType[] valueTypes,
            int countStarField) {
        for (LogicalType type : accTypes) {
            if (type.getTypeRoot() == LogicalTypeRoot.RAW
                    || type.getTypeRoot() == LogicalTypeRoot.STRUCTURED_TYPE) {
                return Result.refuse(
                        described
                                + " keep a MapView ("
                                + type
                                + "), which the global half of a two-phase aggregation merges"
                                + " from its local half's; no native kernel merges views");
            }
        }
        List<AggregateFunction> functions = new ArrayList<>();
        for (AggregateSelectList.Call call : described) {
            AggregateFunction function = CallFunctions.functionOf(call);
            if (function == AggregateFunction.COUNT || function == AggregateFunction.COUNT_STAR) {
                // The local accumulator's name says which count it is.
                function =
                        call.arguments().startsWith("count1$")
                                ? AggregateFunction.COUNT_STAR
                                : AggregateFunction.COUNT;
            }
            functions.add(function);
        }
        if (countStarField >= 0 && !functions.contains(AggregateFunction.COUNT_STAR)) {
            functions.add(AggregateFunction.COUNT_STAR);
        }
        int[] starts = AccumulatorTypes.starts(functions);
        if (starts[functions.size()] != accTypes.length) {
            return Result.refuse(
                    "its accumulators "
                            + Arrays.toString(accTypes)
                            + " are not those of "
                            + described
                            + " as the native kernels keep them");
        }
        List<AggregateCall> calls = new ArrayList<>();
        for (int i = 0; i < functions.size(); i++) {
            AggregateFunction function = functions.get(i);
            String what = i < described.size() ? described.get(i).toString() : "the row count";
            LogicalType valueType = i < valueTypes.length ? valueTypes[i] : accTypes[starts[i]];
            // A DECIMAL average's value has another scale than the sum it merges; the sum's type
            // is the one the local half summed its argument into.
            LogicalType argumentType =
                    function == AggregateFunction.AVG && accTypes[starts[i]] instanceof DecimalType
                            ? accTypes[starts[i]]
                            : valueType;
            String wrongType =
                    AccumulatorTypes.checkTypes(
                            accTypes, function, argumentType, starts[i], what, valueTypes, i);
            if (wrongType != null) {
                return Result.refuse(wrongType);
            }
            calls.add(
                    function == AggregateFunction.COUNT_STAR
                            ? AggregateCall.countStar(-1)
                            : call(function, starts[i], argumentType, -1, -1));
        }
        String counter = checkCountStar(calls, starts, countStarField);
        return counter != null
                ? Result.refuse(counter)
                : new Result(calls, described.size(), List.of(), null);
    }

    /** Why Flink's row count (accumulator field {@code countStarField}) is no plain COUNT(*). */
    @Nullable
    private static String checkCountStar(
            List<AggregateCall> calls, int[] starts, int countStarField) {
        if (countStarField < 0) {
            return null;
        }
        int call = Arrays.binarySearch(starts, countStarField);
        if (call < 0
                || call >= calls.size()
                || calls.get(call).function() != AggregateFunction.COUNT_STAR
                || calls.get(call).filterField() >= 0) {
            return "its row count (accumulator field " + countStarField + ") is no COUNT(*)";
        }
        return null;
    }

    /** Checks the call's accumulator and value types against the native kernel's; null if equal. */
    /** The type of a SUM of {@code type} ({@code LogicalTypeMerging.findSumAggType}). */
    /**
     * The call of {@code function} over the field {@code argument} of {@code type}, keeping the
     * element table {@code table} (-1 for none).
     */
    private static AggregateCall call(
            AggregateFunction function, int argument, LogicalType type, int filter, int table) {
        BinaryFieldType stored = BinaryFieldTypes.of(type).orElseThrow();
        int precision = type instanceof DecimalType ? ((DecimalType) type).getPrecision() : 0;
        int scale = type instanceof DecimalType ? ((DecimalType) type).getScale() : 0;
        return new AggregateCall(function, argument, stored, filter, precision, scale, table);
    }

    /** The one field whose value changes the call's accumulator fields, or -1. */
    private int argumentOf(int from, int to) throws Exception {
        GenericRowData baseline = baseline();
        Object[] reference = accumulate(baseline);
        int found = -1;
        for (int field = 0; field < inputTypes.length; field++) {
            GenericRowData probe = copy(baseline);
            if (inputTypes[field].getTypeRoot() == LogicalTypeRoot.BOOLEAN) {
                probe.setField(field, null);
            } else {
                Object value = probeValue(inputTypes[field]);
                if (value == null) {
                    continue;
                }
                probe.setField(field, value);
            }
            if (!sameFields(accumulate(probe), reference, from, to)) {
                if (found >= 0) {
                    return -1;
                }
                found = field;
            }
        }
        return found;
    }

    /** The one BOOLEAN field that, FALSE, leaves the call's accumulator as it started, or -1. */
    private int filterOf(int from, int to, int argument, Object[] initial) throws Exception {
        GenericRowData passing = baseline();
        if (argument >= 0 && inputTypes[argument].getTypeRoot() != LogicalTypeRoot.BOOLEAN) {
            passing.setField(argument, probeValue(inputTypes[argument]));
        }
        int found = -1;
        for (int field = 0; field < inputTypes.length; field++) {
            if (field == argument || inputTypes[field].getTypeRoot() != LogicalTypeRoot.BOOLEAN) {
                continue;
            }
            GenericRowData probe = copy(passing);
            probe.setField(field, false);
            if (sameFields(accumulate(probe), initial, from, to)) {
                if (found >= 0) {
                    return -1;
                }
                found = field;
            }
        }
        return found;
    }

    private GenericRowData baseline() {
        GenericRowData row = new GenericRowData(inputTypes.length);
        for (int i = 0; i < inputTypes.length; i++) {
            if (inputTypes[i].getTypeRoot() == LogicalTypeRoot.BOOLEAN) {
                row.setField(i, true);
            }
        }
        return row;
    }

    private static GenericRowData copy(GenericRowData row) {
        GenericRowData copy = new GenericRowData(row.getArity());
        for (int i = 0; i < row.getArity(); i++) {
            copy.setField(i, row.getField(i));
        }
        return copy;
    }

    /** The accumulator fields after accumulating {@code row} into fresh accumulators. */
    private Object[] accumulate(GenericRowData row) throws Exception {
        views.clearViews();
        handler.setAccumulators(handler.createAccumulators());
        // As rows reach the operator: binary, where a NULL field reads as 0 or false.
        handler.accumulate(inputSerializer.toBinaryRow(row).copy());
        return accumulators(handler.getAccumulators());
    }

    private Object[] accumulators(RowData acc) {
        Object[] fields = new Object[accGetters.length];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = comparable(accGetters[i].getFieldOrNull(acc), accTypes[i]);
        }
        return fields;
    }

    /**
     * An accumulator field as the probe compares it: a view (RAW) as null, since the probe only
     * watches what the accumulator row holds, and a nested row as the list of its fields.
     */
    @Nullable
    private static Object comparable(@Nullable Object field, LogicalType type) {
        if (field == null || type.getTypeRoot() == LogicalTypeRoot.RAW) {
            return null;
        }
        if (field instanceof RowData) {
            List<LogicalType> types = LogicalTypeChecks.getFieldTypes(type);
            List<Object> nested = new ArrayList<>();
            for (int i = 0; i < types.size(); i++) {
                nested.add(
                        comparable(
                                RowData.createFieldGetter(types.get(i), i)
                                        .getFieldOrNull((RowData) field),
                                types.get(i)));
            }
            return nested;
        }
        return field;
    }

    private static boolean sameFields(Object[] a, Object[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!Objects.deepEquals(a[i], b[i])) {
                return false;
            }
        }
        return true;
    }

    /** A non-NULL value of {@code type}, or null for a type the probe does not set. */
    @Nullable
    private static Object probeValue(LogicalType type) {
        switch (type.getTypeRoot()) {
            case TINYINT:
                return (byte) 1;
            case SMALLINT:
                return (short) 1;
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
            case INTERVAL_YEAR_MONTH:
                return 1;
            case BIGINT:
            case INTERVAL_DAY_TIME:
                return 1L;
            case FLOAT:
                return 1f;
            case DOUBLE:
                return 1d;
            case CHAR:
            case VARCHAR:
                return StringData.fromString("x");
            case BINARY:
            case VARBINARY:
                return new byte[] {1};
            case DECIMAL:
                DecimalType decimal = (DecimalType) type;
                return DecimalData.fromBigDecimal(
                        BigDecimal.ONE, decimal.getPrecision(), decimal.getScale());
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return TimestampData.fromEpochMillis(1);
            default:
                return null;
        }
    }
}
