package io.streamfusion.migration.operators;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

class Top1SmokeTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .setConfiguration(config())
                            .build());

    private static Configuration config() {
        Configuration config = new Configuration();
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("1g"));
        return config;
    }

    @TempDir Path dir;

    @Test
    void smoke(@InjectMiniCluster MiniCluster miniCluster) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            rows.add(Row.of(i % 17, (long) ((i * 7919) % 101)));
        }
        ParityHarness.Shape shape =
                new ParityHarness.Shape(
                        "smoke",
                        new String[] {"k", "v"},
                        new TypeInformation<?>[] {Types.INT, Types.LONG},
                        rows,
                        "SELECT k, v FROM scripted",
                        "k INT, v BIGINT",
                        false,
                        "INSERT INTO sink SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM src) WHERE rn = 1",
                        Map.of("streamfusion.operators.batch-rows", "7"),
                        0);
        ParityHarness harness = new ParityHarness(miniCluster, dir);
        long t0 = System.nanoTime();
        ParityHarness.Outcome off =
                harness.run(shape, List.of(ParityHarness.Phase.toEnd(1, false)));
        long t1 = System.nanoTime();
        ParityHarness.Outcome on = harness.run(shape, List.of(ParityHarness.Phase.toEnd(1, true)));
        long t2 = System.nanoTime();
        System.out.println(
                "off "
                        + (t1 - t0) / 1e6
                        + " ms, on "
                        + (t2 - t1) / 1e6
                        + " ms, rows "
                        + off.changelog().size());
        ParityHarness.assertSameChangelog(shape, off, on, "straight");
        ParityHarness.Outcome cut =
                harness.run(
                        shape,
                        List.of(
                                new ParityHarness.Phase(
                                        1, true, ParityHarness.Stop.CHECKPOINT, 200),
                                new ParityHarness.Phase(
                                        2, true, ParityHarness.Stop.NATIVE_SAVEPOINT, 300),
                                new ParityHarness.Phase(
                                        1, false, ParityHarness.Stop.CANONICAL_SAVEPOINT, 400),
                                ParityHarness.Phase.toEnd(1, true)));
        System.out.println("cut run " + (System.nanoTime() - t2) / 1e6 + " ms");
        ParityHarness.assertSameChangelogPerKey(shape, off, cut, "cuts");
    }
}
