package io.streamfusion.migration.operators;

import io.streamfusion.migration.operators.ParityHarness.Outcome;
import io.streamfusion.migration.operators.ParityHarness.Phase;
import io.streamfusion.migration.operators.ParityHarness.Shape;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
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

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ten thousand live candidates under one sink key: the columnar materializer keeps them in its
 * indexed entries (no operation reads them all), runs through a checkpoint and a restore, and
 * retracts the visible candidate and the oldest, with Flink's output record by record. Flink's
 * LEGACY materializer holds the same key as one list value, read and written whole on every change.
 */
class UpsertCapacityTest {

    private static final int CANDIDATES = 10_000;

    /**
     * The per-key budget the key is measured against: Flink's list exceeds it many times over,
     * while no entry of the columnar index comes near it (the native test {@code
     * ten_thousand_candidates_under_one_key_keep_every_entry_small}).
     */
    private static final int KEY_BUDGET_BYTES = 16 << 10;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = OperatorTestClusters.oneTaskManager(2, "512m");

    @TempDir Path dir;

    @Test
    void tenThousandCandidatesUnderOneKey(@InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        Shape shape = shape();
        ParityHarness harness = new ParityHarness(miniCluster, dir);
        Outcome reference = harness.run(shape, List.of(Phase.toEnd(1, false)));
        harness.assertSameStraightAndRestored(shape, reference);
        assertTrue(
                legacyListBytes() > KEY_BUDGET_BYTES,
                "Flink's LEGACY list of the key takes " + legacyListBytes() + " bytes");
    }

    /**
     * The serialized size of the one list value Flink's LEGACY materializer keeps for the key (what
     * a {@code hashmap} backend holds on the heap, decoded, and copies on every change).
     */
    private static long legacyListBytes() throws Exception {
        RowDataSerializer rows =
                new RowDataSerializer(new IntType(), new IntType(), new BigIntType());
        List<RowData> list = new ArrayList<>(CANDIDATES);
        for (int p = 0; p < CANDIDATES; p++) {
            list.add(GenericRowData.of(0, p, 1L));
        }
        DataOutputSerializer out = new DataOutputSerializer(1 << 20);
        new ListSerializer<>(rows).serialize(list, out);
        return out.length();
    }

    /**
     * Rows {@code (k, p)} all of sink key 0: first one per group {@code p} (10,000 candidates),
     * then a second row for the newest group (retracting the visible candidate) and for the oldest.
     */
    private static Shape shape() {
        List<Row> input = new ArrayList<>();
        for (int p = 0; p < CANDIDATES; p++) {
            input.add(Row.of(0, p));
        }
        input.add(Row.of(0, CANDIDATES - 1));
        input.add(Row.of(0, 0));
        input.add(Row.of(0, CANDIDATES / 2));
        return new Shape(
                "10,000 candidates under one key",
                new String[] {"k", "p"},
                new TypeInformation<?>[] {Types.INT, Types.INT},
                input,
                "SELECT k, p FROM scripted",
                "k INT, p INT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED",
                true,
                "INSERT INTO sink SELECT k, p, c FROM (SELECT k, p, COUNT(*) AS c FROM src GROUP BY k, p)",
                Map.of(
                        "table.exec.sink.upsert-materialize",
                        "FORCE",
                        UpsertShapes.STRATEGY,
                        "LEGACY"),
                0);
    }
}
