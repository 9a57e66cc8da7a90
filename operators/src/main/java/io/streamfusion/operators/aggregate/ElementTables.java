package io.streamfusion.operators.aggregate;

import io.streamfusion.api.columnar.AggregateCall;
import io.streamfusion.api.columnar.AggregateFunction;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.runtime.typeutils.ExternalSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which element table (a {@code MapView} in Flink's state) each aggregate call keeps: MIN and MAX
 * over retractions one each, in call order, then one per DISTINCT argument, in the order the
 * planner numbers its views ({@code distinctAcc_<j>}); and the views Flink's handler registered for
 * them, which must be what the native tables hold.
 */
final class ElementTables {

    /** The most DISTINCT calls one view holds in a {@code Long}'s bits. */
    private static final int MAX_CALLS_PER_VIEW = Long.SIZE;

    private ElementTables() {}

    static List<String> distinctArguments(List<AggregateSelectList.Call> described) {
        List<String> arguments = new ArrayList<>();
        for (AggregateSelectList.Call call : described) {
            if (call.distinct() && !arguments.contains(call.arguments())) {
                arguments.add(call.arguments());
            }
        }
        return arguments;
    }

    static boolean allRaw(LogicalType[] types) {
        return Arrays.stream(types).allMatch(t -> t.getTypeRoot() == LogicalTypeRoot.RAW);
    }

    /**
     * Each call's element table, or -1: MIN and MAX over retractions first, in call order, then one
     * per DISTINCT argument.
     */
    static int[] assign(
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
    static String checkDistinctViews(
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
    static String matchRecordedViews(
            RecordingDataViewStore views,
            LogicalType[] inputTypes,
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
}
