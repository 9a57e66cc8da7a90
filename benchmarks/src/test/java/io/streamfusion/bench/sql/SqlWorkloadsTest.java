package io.streamfusion.bench.sql;

import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The planner builds the job each SQL benchmark claims to measure, from the rows it claims. */
class SqlWorkloadsTest {

    @Test
    void upsertWorkloadsGetTheSinkUpsertMaterializer() {
        for (SqlWorkload workload : SqlWorkloads.of(SqlWorkloads.UPSERT, true)) {
            String plan = SqlJobBenchmark.explain(workload);
            assertTrue(
                    plan.contains("upsertMaterialize=[true]"), workload.caseName() + ":\n" + plan);
        }
    }

    @Test
    void top1WorkloadsRankAppendOnlyInput() {
        for (SqlWorkload workload : SqlWorkloads.of(SqlWorkloads.TOP1, true)) {
            String plan = SqlJobBenchmark.explain(workload);
            assertTrue(
                    plan.contains("Rank(strategy=[AppendFastStrategy]"),
                    workload.caseName() + ":\n" + plan);
            assertTrue(plan.contains("rankRange=[rankStart=1, rankEnd=1]"), plan);
        }
    }

    @Test
    void dedupWorkloadsKeepARowOnTheirTimeAttribute() {
        for (SqlWorkload workload : SqlWorkloads.of(SqlWorkloads.DEDUP, true)) {
            String plan = SqlJobBenchmark.explain(workload);
            String keep = workload.caseName().contains("keep-last") ? "LastRow" : "FirstRow";
            String order = workload.rowTime() ? "ROWTIME" : "PROCTIME";
            assertTrue(
                    plan.contains(
                            "Deduplicate(keep=[" + keep + "], key=[k], order=[" + order + "]"),
                    workload.caseName() + ":\n" + plan);
        }
    }

    @Test
    void aggregateWorkloadsGroupByKey() {
        for (SqlWorkload workload : SqlWorkloads.of(SqlWorkloads.AGGREGATE, false)) {
            String plan = SqlJobBenchmark.explain(workload);
            assertTrue(plan.contains("GroupAggregate(groupBy=[k]"), plan);
            assertFalse(plan.contains("upsertMaterialize=[true]"), plan);
        }
    }

    @Test
    void rejectedArrivalsLoseAndImprovingArrivalsWin() {
        GeneratedRows rejected = new GeneratedRows(64, 64, false, 8);
        GeneratedRows improving = new GeneratedRows(64, 64, true, 8);
        RowData first = rejected.map(3L);
        RowData later = rejected.map(3L + 64);
        assertEquals(first.getLong(1), later.getLong(1));
        assertTrue(later.getLong(2) < first.getLong(2));
        assertTrue(improving.map(3L + 64).getLong(2) > improving.map(3L).getLong(2));
        assertEquals(8, later.getString(3).toString().length());
        assertEquals("ppppppp3", first.getString(3).toString());
        assertEquals("pppppp67", later.getString(3).toString());
    }

    @Test
    void upsertGroupsShareSinkKeys() {
        GeneratedRows rows =
                new GeneratedRows(1_000 * SqlWorkloads.CANDIDATES_PER_SINK_KEY, 1_000, true, 8);
        assertEquals(rows.map(5L).getLong(1), rows.map(1_005L).getLong(1));
        assertNotEquals(rows.map(5L).getLong(0), rows.map(1_005L).getLong(0));
    }

    @Test
    void theSourceTypeDeclaresThePayloadTypeOfTheWorkload() {
        assertEquals(
                "ROW<`g` BIGINT, `k` BIGINT, `v` BIGINT, `payload` CHAR(5)>",
                GeneratedRows.type("CHAR(5)").toRowType().asSummaryString());
    }
}
