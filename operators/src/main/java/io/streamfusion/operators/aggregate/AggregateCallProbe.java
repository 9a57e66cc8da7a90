package io.streamfusion.operators.aggregate;

import io.streamfusion.api.columnar.AggregateCall;
import io.streamfusion.api.columnar.AggregateFunction;
import io.streamfusion.api.columnar.BinaryFieldType;
import io.streamfusion.operators.batch.BinaryFieldTypes;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.generated.AggsHandleFunction;
import org.apache.flink.table.runtime.typeutils.ExternalSerializer;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import javax.annotation.Nullable;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

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

    /** The argument types the native SUM, AVG, MIN and MAX read. */
    private static final Set<LogicalTypeRoot> NUMBERS =
            EnumSet.of(
                    LogicalTypeRoot.TINYINT,
                    LogicalTypeRoot.SMALLINT,
                    LogicalTypeRoot.INTEGER,
                    LogicalTypeRoot.BIGINT,
                    LogicalTypeRoot.FLOAT,
                    LogicalTypeRoot.DOUBLE);

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

    /** The most DISTINCT calls one view holds in a {@code Long}'s bits. */
    private static final int MAX_CALLS_PER_VIEW = Long.SIZE;

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
     * #firstUnsupported} accepted (see {@link AggregateNode}).
     *
     * @param valueTypes the types of the aggregate values in the output, after the grouping keys
     * @param countStarField Flink's {@code RecordCounter} index, or -1 for insert-only input
     */
    Result probe(
            List<AggregateSelectList.Call> described, LogicalType[] valueTypes, int countStarField)
            throws Exception {
        List<AggregateFunction> functions = new ArrayList<>();
        described.forEach(call -> functions.add(functionOf(call)));
        List<Boolean> filtered = new ArrayList<>();
        described.forEach(call -> filtered.add(call.filtered()));
        if (countStarField >= 0 && !functions.contains(AggregateFunction.COUNT_STAR)) {
            // The planner appends a COUNT(*) to count the rows of a retracting input.
            functions.add(AggregateFunction.COUNT_STAR);
            filtered.add(false);
        }
        int[] starts = starts(functions);
        List<String> distinctArguments = distinctArguments(described);
        int callFields = starts[functions.size()];
        if (callFields + distinctArguments.size() != accTypes.length
                || !allRaw(Arrays.copyOfRange(accTypes, callFields, accTypes.length))) {
            return Result.refuse(
                    "its accumulators "
                            + Arrays.toString(accTypes)
                            + " are not those of "
                            + described
                            + " as the native kernels keep them");
        }
        int[] tables = elementTables(described, functions, distinctArguments);
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
                    checkTypes(
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
        String distinctViews = checkDistinctViews(calls, described, tables, countStarField >= 0);
        if (distinctViews != null) {
            return Result.refuse(distinctViews);
        }
        List<ElementTableSpec> specs = new ArrayList<>();
        String unmatched = matchRecordedViews(calls, described, distinctArguments.size(), specs);
        return unmatched != null
                ? Result.refuse(unmatched)
                : new Result(calls, described.size(), specs, null);
    }

    /** The arguments of the DISTINCT calls, each once, in the order the planner numbers views. */
    private static List<String> distinctArguments(List<AggregateSelectList.Call> described) {
        List<String> arguments = new ArrayList<>();
        for (AggregateSelectList.Call call : described) {
            if (call.distinct() && !arguments.contains(call.arguments())) {
                arguments.add(call.arguments());
            }
        }
        return arguments;
    }

    private static boolean allRaw(LogicalType[] types) {
        return Arrays.stream(types).allMatch(t -> t.getTypeRoot() == LogicalTypeRoot.RAW);
    }

    /**
     * Each call's element table, or -1: MIN and MAX over retractions first, in call order, then one
     * per DISTINCT argument.
     */
    private static int[] elementTables(
            List<AggregateSelectList.Call> described,
            List<AggregateFunction> functions,
            List<String> distinctArguments) {
        int[] tables = new int[functions.size()];
        Arrays.fill(tables, -1);
        int extremes = 0;
        for (int i = 0; i < described.size(); i++) {
            if (functions.get(i).keepsElementTable()) {
                tables[i] = extremes++;
            }
        }
        for (int i = 0; i < described.size(); i++) {
            if (described.get(i).distinct()) {
                tables[i] = extremes + distinctArguments.indexOf(described.get(i).arguments());
            }
        }
        return tables;
    }

    /**
     * Why the DISTINCT calls' views are not what the native views keep, or null: the calls of one
     * view read one field, and share a view over retractions only alone (Flink keeps an array of
     * counts for several) and otherwise only up to a {@code Long}'s bits.
     */
    @Nullable
    private static String checkDistinctViews(
            List<AggregateCall> calls,
            List<AggregateSelectList.Call> described,
            int[] tables,
            boolean retracting) {
        for (int table : Arrays.stream(tables).distinct().toArray()) {
            List<Integer> members = new ArrayList<>();
            for (int i = 0; i < described.size(); i++) {
                if (tables[i] == table && described.get(i).distinct()) {
                    members.add(i);
                }
            }
            if (members.isEmpty()) {
                continue;
            }
            String what = described.get(members.get(0)).toString();
            if (members.stream().map(i -> calls.get(i).argumentField()).distinct().count() > 1) {
                return "the probe found different fields for the calls sharing " + what;
            }
            if (retracting && members.size() > 1) {
                return members.size()
                        + " DISTINCT calls over retractions share the view of "
                        + what
                        + ", which Flink keeps as an array of counts that no native kernel reads";
            }
            if (members.size() > MAX_CALLS_PER_VIEW) {
                return members.size() + " DISTINCT calls share the view of " + what;
            }
        }
        return null;
    }

    /**
     * Finds the view the handler registered for each element table ({@code agg<i>$map} for the MIN
     * or MAX call i, {@code distinctAcc_<j>} for the DISTINCT view j), in table order, into {@code
     * specs}; why they do not match what the native tables keep, or null.
     */
    @Nullable
    private String matchRecordedViews(
            List<AggregateCall> calls,
            List<AggregateSelectList.Call> described,
            int distinctViews,
            List<ElementTableSpec> specs) {
        List<String> names = new ArrayList<>();
        List<LogicalType> elementTypes = new ArrayList<>();
        for (int i = 0; i < described.size(); i++) {
            if (calls.get(i).function().keepsElementTable()) {
                names.add("agg" + i + "$map");
                elementTypes.add(inputTypes[calls.get(i).argumentField()]);
            }
        }
        for (int j = 0; j < distinctViews; j++) {
            names.add("distinctAcc_" + j);
            for (AggregateCall call : calls) {
                if (call.elementTable() == names.size() - 1) {
                    elementTypes.add(inputTypes[call.argumentField()]);
                    break;
                }
            }
        }
        if (views.recorded().size() != names.size()) {
            return "its handler keeps the views "
                    + views.recorded().stream().map(ElementTableSpec::name).toList()
                    + ", not "
                    + names;
        }
        for (int table = 0; table < names.size(); table++) {
            String name = names.get(table);
            ElementTableSpec spec =
                    views.recorded().stream()
                            .filter(view -> view.name().equals(name))
                            .findFirst()
                            .orElse(null);
            if (spec == null) {
                return "its handler keeps no view " + name;
            }
            if (!holds(spec.keySerializer(), elementTypes.get(table).getTypeRoot())
                    || !holds(spec.valueSerializer(), LogicalTypeRoot.BIGINT)) {
                return "its view "
                        + name
                        + " does not map "
                        + elementTypes.get(table)
                        + " to BIGINT";
            }
            specs.add(spec);
        }
        return null;
    }

    /**
     * Whether {@code serializer} is Flink's serializer of a view's keys or values of {@code root}.
     */
    private static boolean holds(TypeSerializer<?> serializer, LogicalTypeRoot root) {
        return serializer instanceof ExternalSerializer
                && ((ExternalSerializer<?, ?>) serializer)
                                .getDataType()
                                .getLogicalType()
                                .getTypeRoot()
                        == root;
    }

    /** Why the first call of {@code described} that no native kernel computes is refused. */
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
            AggregateFunction function = functionOf(call);
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
        int[] starts = starts(functions);
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
                    checkTypes(accTypes, function, argumentType, starts[i], what, valueTypes, i);
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

    private static int[] starts(List<AggregateFunction> functions) {
        int[] starts = new int[functions.size() + 1];
        for (int i = 0; i < functions.size(); i++) {
            starts[i + 1] = starts[i] + accumulatorFields(functions.get(i));
        }
        return starts;
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

    @Nullable
    private static AggregateFunction functionOf(AggregateSelectList.Call call) {
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

    private static int accumulatorFields(AggregateFunction function) {
        return function == AggregateFunction.SUM_WITH_RETRACT || function == AggregateFunction.AVG
                ? 2
                : 1;
    }

    /** Checks the call's accumulator and value types against the native kernel's; null if equal. */
    @Nullable
    private static String checkTypes(
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
                && !(extreme && isOrderedAsNumber(argumentType))) {
            return what
                    + " over "
                    + argumentType
                    + " has no native kernel (numbers only; MIN and MAX also dates, times and"
                    + " timestamps of precision up to 3)";
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
     * Whether {@code type} is stored and ordered as a number, so MIN and MAX run over it as over
     * that number: DATE and TIME (an INT), and a TIMESTAMP or TIMESTAMP_LTZ of precision up to 3
     * (its epoch milliseconds, a long, which is how {@code TimestampData} orders a compact one).
     */
    private static boolean isOrderedAsNumber(@Nullable LogicalType type) {
        if (type == null) {
            return false;
        }
        switch (type.getTypeRoot()) {
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

    /** The type of a SUM of {@code type} ({@code LogicalTypeMerging.findSumAggType}). */
    private static LogicalType sumType(LogicalType type) {
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
