package io.streamfusion.bench.sql;

import java.util.HashMap;
import java.util.Map;

/**
 * One setup of a SQL benchmark run, as named on the command line: a state backend ({@code rocksdb},
 * {@code hashmap}, {@code streamfusion} or {@code streamfusion-operators}), optionally followed by
 * Flink options in brackets, {@code streamfusion[key=value;key=value]}. The variant form lets one
 * run alternate a setup with and without an option (a cache switched off, another write-buffer
 * size), which is the only comparison this machine's changing speed allows.
 */
public record BenchSetup(String backend, Map<String, String> options) {

    /**
     * The setup that runs StreamFusion's columnar operators: the StreamFusion backend, {@code
     * streamfusion.operators.enabled}, and the execution target that rewrites the job, exactly the
     * two lines a user adds.
     */
    static final String OPERATORS = "streamfusion-operators";

    public static BenchSetup parse(String name) {
        int open = name.indexOf('[');
        if (open < 0) {
            return new BenchSetup(name, Map.of());
        }
        if (!name.endsWith("]")) {
            throw new IllegalArgumentException(
                    "Setup '"
                            + name
                            + "' opens '[' but does not end with ']': write backend[k=v;k=v]");
        }
        Map<String, String> options = new HashMap<>();
        for (String option : name.substring(open + 1, name.length() - 1).split(";")) {
            int equals = option.indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException(
                        "Setup '" + name + "' has '" + option + "', which is not key=value");
            }
            options.put(option.substring(0, equals).trim(), option.substring(equals + 1).trim());
        }
        return new BenchSetup(name.substring(0, open), Map.copyOf(options));
    }

    boolean runsOperators() {
        return OPERATORS.equals(backend);
    }

    /** The value of Flink's {@code state.backend.type}. */
    String stateBackend() {
        return runsOperators() ? "streamfusion" : backend;
    }
}
