package io.streamfusion.bench.sql;

import org.apache.flink.types.Row;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
        Row first = rejected.map(3L);
        Row later = rejected.map(3L + 64);
        assertEquals(first.getField(1), later.getField(1));
        assertTrue((long) later.getField(2) < (long) first.getField(2));
        assertTrue(
                (long) improving.map(3L + 64).getField(2) > (long) improving.map(3L).getField(2));
        assertEquals(8, ((String) later.getField(3)).length());
        assertFalse(first.getField(3).equals(later.getField(3)));
    }

    @Test
    void upsertGroupsShareSinkKeys() {
        GeneratedRows rows =
                new GeneratedRows(1_000 * SqlWorkloads.CANDIDATES_PER_SINK_KEY, 1_000, true, 8);
        assertEquals(rows.map(5L).getField(1), rows.map(1_005L).getField(1));
        assertFalse(rows.map(5L).getField(0).equals(rows.map(1_005L).getField(0)));
    }
}
