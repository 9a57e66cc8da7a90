package io.streamfusion.bench;

import java.util.Arrays;
import java.util.Locale;

/**
 * One result in the report format of {@code bin/bench} (benchmarks/results/latest.json): the median
 * of the runs with their min and max. Programs that are not JMH benchmarks (snapshots, end-to-end
 * SQL jobs) write these; bin/lib/bench_report.py merges them with the JMH results.
 */
public final class BenchRecord {

    private BenchRecord() {}

    /** The record as a JSON object; {@code runs} must not be empty. */
    public static String json(
            String suite, String caseName, String backend, String metric, double... runs) {
        if (runs.length == 0) {
            throw new IllegalArgumentException(
                    "No runs for " + suite + " / " + caseName + " / " + backend);
        }
        double[] sorted = runs.clone();
        Arrays.sort(sorted);
        return String.format(
                Locale.ROOT,
                "  {\"suite\": \"%s\", \"case\": \"%s\", \"backend\": \"%s\", \"metric\": \"%s\","
                        + " \"value\": %.3f, \"min\": %.3f, \"max\": %.3f, \"runs\": %d}",
                suite,
                caseName,
                backend,
                metric,
                medianOfSorted(sorted),
                sorted[0],
                sorted[sorted.length - 1],
                sorted.length);
    }

    /** The median of {@code runs}. */
    public static double median(double... runs) {
        double[] sorted = runs.clone();
        Arrays.sort(sorted);
        return medianOfSorted(sorted);
    }

    private static double medianOfSorted(double[] sorted) {
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
