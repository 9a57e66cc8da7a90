package io.streamfusion.operators.aggregate;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The aggregate calls of a {@code GroupAggregate} node as the planner describes it, {@code
 * GroupAggregate(groupBy=[k], select=[k, COUNT(*) AS c, SUM_RETRACT(v) AS s, COUNT(v) FILTER $f3 AS
 * n])}: each call's function name, arguments and whether it has a FILTER. The description names no
 * field positions; {@link AggregateCallProbe} finds those.
 */
final class AggregateSelectList {

    /** One call: {@code name(arguments)}, and whether a FILTER follows. */
    record Call(String name, String arguments, boolean filtered) {

        boolean distinct() {
            return arguments.startsWith("DISTINCT ");
        }

        @Override
        public String toString() {
            return name + "(" + arguments + ")" + (filtered ? " FILTER" : "");
        }
    }

    private AggregateSelectList() {}

    /**
     * The calls of {@code description} after its {@code groupKeys} grouping fields, or empty if it
     * does not read as a group aggregate's description.
     */
    static Optional<List<Call>> parse(String description, int groupKeys) {
        int start = description.indexOf("select=[");
        if (start < 0) {
            return Optional.empty();
        }
        List<String> items = splitTopLevel(description, start + "select=[".length());
        if (items == null || items.size() < groupKeys) {
            return Optional.empty();
        }
        List<Call> calls = new ArrayList<>();
        for (String item : items.subList(groupKeys, items.size())) {
            int open = item.indexOf('(');
            int close = matching(item, open);
            if (open <= 0 || close < 0) {
                return Optional.empty();
            }
            String rest = item.substring(close + 1).trim();
            calls.add(
                    new Call(
                            item.substring(0, open),
                            item.substring(open + 1, close),
                            rest.startsWith("FILTER ")));
        }
        return Optional.of(calls);
    }

    /** The comma-separated items from {@code from} to the closing bracket, or null. */
    private static List<String> splitTopLevel(String text, int from) {
        List<String> items = new ArrayList<>();
        int depth = 0;
        int itemStart = from;
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '(' || c == '[') {
                depth++;
            } else if ((c == ')' || c == ']') && depth > 0) {
                depth--;
            } else if (c == ']') {
                addItem(items, text.substring(itemStart, i));
                return items;
            } else if (c == ',' && depth == 0) {
                addItem(items, text.substring(itemStart, i));
                itemStart = i + 1;
            }
        }
        return null;
    }

    private static void addItem(List<String> items, String item) {
        if (!item.isBlank()) {
            items.add(item.trim());
        }
    }

    private static int matching(String text, int open) {
        if (open < 0) {
            return -1;
        }
        int depth = 0;
        for (int i = open; i < text.length(); i++) {
            if (text.charAt(i) == '(') {
                depth++;
            } else if (text.charAt(i) == ')' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }
}
