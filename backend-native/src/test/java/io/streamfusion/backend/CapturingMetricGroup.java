package io.streamfusion.backend;

import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

import java.util.Map;

/**
 * Records gauges by their full name below the group it starts from, such as {@code
 * streamfusion.sstBytes}.
 */
final class CapturingMetricGroup extends UnregisteredMetricsGroup {

    private final Map<String, Metric> metrics;
    private final String prefix;

    CapturingMetricGroup(Map<String, Metric> metrics) {
        this(metrics, "");
    }

    private CapturingMetricGroup(Map<String, Metric> metrics, String prefix) {
        this.metrics = metrics;
        this.prefix = prefix;
    }

    @Override
    public MetricGroup addGroup(String name) {
        return new CapturingMetricGroup(metrics, prefix + name + ".");
    }

    @Override
    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
        metrics.put(prefix + name, gauge);
        return gauge;
    }
}
