package io.streamfusion.backend;

import io.streamfusion.api.StreamFusionOptions;

import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * docs/configuration.md and docs/metrics.md describe exactly what the code declares: every option
 * with its default, and every gauge a keyed backend registers. An option or gauge added without its
 * docs (or docs left behind for one removed) fails here.
 */
class DocsMatchCodeTest {

    /** A gauge table row: its first cell lists code-formatted names. */
    private static final Pattern GAUGE_ROW =
            Pattern.compile("^\\| (`[A-Za-z]+`(?:, `[A-Za-z]+`)*) \\|");

    @TempDir File dir;

    @Test
    void configurationPageDocumentsEveryBackendOptionWithItsDefault() throws Exception {
        assertEquals(
                java.util.List.of(),
                DocumentedOptions.problems(
                        DocumentedOptions.docsPage("configuration.md"),
                        StreamFusionOptions.class,
                        StreamFusionOptions.PREFIX));
    }

    @Test
    void configurationPageDocumentsEveryOperatorOptionWithItsDefault() throws Exception {
        // The operators module ships in the plugin jar, so it is on this module's test class path.
        Class<?> operatorOptions = Class.forName("io.streamfusion.operators.OperatorOptions");
        assertEquals(
                java.util.List.of(),
                DocumentedOptions.problems(
                        DocumentedOptions.docsPage("configuration.md"),
                        operatorOptions,
                        (String) operatorOptions.getField("PREFIX").get(null)));
    }

    @Test
    void metricsPageListsExactlyTheRegisteredGauges() throws Exception {
        Map<String, Metric> metrics = new HashMap<>();
        MockEnvironment env = TestKeyedBackends.environment();
        StreamFusionKeyedStateBackend<Long> backend =
                TestKeyedBackends.in(env, dir)
                        .metrics(new CapturingMetricGroup(metrics))
                        .build(LongSerializer.INSTANCE);
        try {
            Set<String> registered = new TreeSet<>();
            metrics.keySet().forEach(name -> registered.add(name.substring(name.indexOf('.') + 1)));
            assertEquals(registered, documentedGauges(DocumentedOptions.docsPage("metrics.md")));
        } finally {
            backend.dispose();
        }
    }

    private static Set<String> documentedGauges(Path page) throws Exception {
        Set<String> gauges = new TreeSet<>();
        for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
            Matcher row = GAUGE_ROW.matcher(line);
            if (row.find()) {
                for (String cell : row.group(1).split(", ")) {
                    gauges.add(cell.replace("`", ""));
                }
            }
        }
        return gauges;
    }
}
