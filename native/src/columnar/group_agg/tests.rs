use super::functions::{Function, NumberType};
use super::*;
use crate::columnar::batch_keys::tests::batch_of_rows;
use crate::columnar::binary_row::tests::RowBuilder;
use crate::columnar::sort_key::FieldType;
use crate::store::tests::test_config;
use crate::store::KeyedStore;
use crate::test_support::TempDir;

const UPDATE_BEFORE: u8 = 1;
const DELETE_KIND: u8 = 3;

/// `SELECT k, COUNT(*), SUM(v), MAX(v) FROM (k BIGINT, v BIGINT) GROUP BY k`; with `retracting`,
/// SUM keeps a count and COUNT(*) is the row count.
fn aggregator(dir: &TempDir, cache_bytes: usize, ttl_millis: Option<i64>, retracting: bool) -> GroupAggregator {
    let store = KeyedStore::open(dir.path(), test_config()).unwrap();
    let column_family = StateColumnFamily::open(&store, "accState").unwrap();
    GroupAggregator::new(column_family, aggregator_config(retracting, ttl_millis), Vec::new(), cache_bytes, None)
        .unwrap()
}

fn aggregator_config(retracting: bool, ttl_millis: Option<i64>) -> GroupAggConfig {
    let v = Some((1, FieldType::BigInt));
    let sum = if retracting { Function::SumWithRetract } else { Function::Sum };
    let max = if retracting { Function::Sum0 } else { Function::Max };
    GroupAggConfig {
        input_arity: 2,
        calls: vec![
            AggregateCall { function: Function::CountStar, argument: None, filter: None, decimal: None, table: None },
            AggregateCall { function: sum, argument: v, filter: None, decimal: None, table: None },
            AggregateCall { function: max, argument: v, filter: None, decimal: None, table: None },
        ],
        value_arity: 3,
        count_star_field: retracting.then_some(0),
        merged_from: None,
        per_key_runs: false,
        ttl_millis,
        generate_update_before: true,
        layout: KeyGroupLayout::new(1, 128, 0, 127).unwrap(),
    }
}

fn batch(rows: &[(u8, i64, i64)]) -> StructArray {
    let keys: Vec<Vec<u8>> = rows.iter().map(|&(_, k, _)| RowBuilder::new(1).long(0, k).build()).collect();
    let values: Vec<Vec<u8>> = rows
        .iter()
        .map(|&(kind, k, v)| {
            let mut row = RowBuilder::new(2).long(0, k).long(1, v).build();
            row[0] = kind;
            row
        })
        .collect();
    batch_of_rows(&keys, &values)
}

fn insert(k: i64, v: i64) -> (u8, i64, i64) {
    (0, k, v)
}

/// Each row's decision and the values it carries, decoded as `(count, sum, max)`.
type Values = Option<Vec<Option<Number>>>;

fn results(result: &StructArray) -> Vec<(i8, Values, Values)> {
    let decision = result.column(0).as_any().downcast_ref::<Int8Array>().unwrap();
    let decode = |column: usize, i: usize| {
        let array = result.column(column).as_any().downcast_ref::<BinaryArray>().unwrap();
        (!array.is_null(i)).then(|| {
            let mut out = vec![None; 3];
            read_numbers(array.value(i), &[NumberType::BigInt; 3], &mut out).unwrap();
            out
        })
    };
    (0..result.len()).map(|i| (decision.value(i), decode(1, i), decode(2, i))).collect()
}

fn decisions(result: &StructArray) -> Vec<i8> {
    result.column(0).as_any().downcast_ref::<Int8Array>().unwrap().values().to_vec()
}

fn values(count: i64, sum: Option<i64>, max: i64) -> Values {
    Some(vec![Some(Number::Int(count)), sum.map(Number::Int), Some(Number::Int(max))])
}

#[test]
fn first_rows_insert_and_later_rows_update_within_and_across_batches() {
    for cache_bytes in [1 << 20, 0] {
        let dir = TempDir::new();
        let mut aggregator = aggregator(&dir, cache_bytes, None, false);
        let first = aggregator.aggregate(&batch(&[insert(1, 5), insert(2, 1), insert(1, 3)]), 0).unwrap();
        assert_eq!(
            results(&first),
            vec![
                (INSERT, None, values(1, Some(5), 5)),
                (INSERT, None, values(1, Some(1), 1)),
                (UPDATE, values(1, Some(5), 5), values(2, Some(8), 5)),
            ],
            "cache of {cache_bytes} bytes"
        );
        let second = aggregator.aggregate(&batch(&[insert(1, 9)]), 0).unwrap();
        assert_eq!(results(&second), vec![(UPDATE, values(2, Some(8), 5), values(3, Some(17), 9))]);
    }
}

#[test]
fn an_unchanged_value_emits_nothing_unless_the_state_has_a_ttl() {
    let dir = TempDir::new();
    let mut aggregator = aggregator(&dir, 0, None, true);
    aggregator.aggregate(&batch(&[insert(1, 5)]), 0).unwrap();
    // +5 then -5 in one row each: the count and sum move, so both rows update.
    let zero = aggregator.aggregate(&batch(&[insert(1, 0)]), 0).unwrap();
    assert_eq!(results(&zero)[0].0, UPDATE, "the row count changed");

    let dir = TempDir::new();
    let mut no_count = aggregator_without_count(&dir, None);
    no_count.aggregate(&batch(&[insert(1, 5)]), 0).unwrap();
    assert_eq!(decisions(&no_count.aggregate(&batch(&[insert(1, 2)]), 0).unwrap()), vec![NOTHING]);
    let dir = TempDir::new();
    let mut with_ttl = aggregator_without_count(&dir, Some(1_000));
    with_ttl.aggregate(&batch(&[insert(1, 5)]), 0).unwrap();
    assert_eq!(decisions(&with_ttl.aggregate(&batch(&[insert(1, 2)]), 0).unwrap()), vec![UPDATE]);
}

/// `SELECT k, MAX(v) ... GROUP BY k`.
fn aggregator_without_count(dir: &TempDir, ttl_millis: Option<i64>) -> GroupAggregator {
    let store = KeyedStore::open(dir.path(), test_config()).unwrap();
    let column_family = StateColumnFamily::open(&store, "accState").unwrap();
    let config = GroupAggConfig {
        input_arity: 2,
        calls: vec![AggregateCall {
            function: Function::Max,
            argument: Some((1, FieldType::BigInt)),
            filter: None,
            decimal: None,
            table: None,
        }],
        value_arity: 1,
        count_star_field: None,
        merged_from: None,
        per_key_runs: false,
        ttl_millis,
        generate_update_before: true,
        layout: KeyGroupLayout::new(1, 128, 0, 127).unwrap(),
    };
    GroupAggregator::new(column_family, config, Vec::new(), 0, None).unwrap()
}

#[test]
fn the_last_retraction_deletes_and_a_leading_retraction_is_ignored() {
    for cache_bytes in [1 << 20, 0] {
        let dir = TempDir::new();
        let mut aggregator = aggregator(&dir, cache_bytes, None, true);
        let result =
            aggregator.aggregate(&batch(&[(DELETE_KIND, 1, 4), insert(1, 5), (UPDATE_BEFORE, 1, 5)]), 0).unwrap();
        assert_eq!(
            results(&result),
            vec![(NOTHING, None, None), (INSERT, None, values(1, Some(5), 5)), (DELETE, values(1, Some(5), 5), None)],
            "cache of {cache_bytes} bytes"
        );
        let again = aggregator.aggregate(&batch(&[insert(1, 2), insert(1, 3)]), 0).unwrap();
        assert_eq!(results(&again)[0], (INSERT, None, values(1, Some(2), 2)), "the key's state went");
        let retracted = aggregator.aggregate(&batch(&[(DELETE_KIND, 1, 2)]), 0).unwrap();
        assert_eq!(
            results(&retracted),
            vec![(UPDATE, values(2, Some(5), 5), values(1, Some(3), 3))],
            "read back from the state"
        );
    }
}

#[test]
fn expired_accumulators_read_as_none() {
    for cache_bytes in [1 << 20, 0] {
        let dir = TempDir::new();
        let mut aggregator = aggregator(&dir, cache_bytes, Some(100), false);
        aggregator.aggregate(&batch(&[insert(1, 5)]), 1_000).unwrap();
        let live = aggregator.aggregate(&batch(&[insert(1, 1)]), 1_050).unwrap();
        assert_eq!(results(&live)[0].0, UPDATE);
        let expired = aggregator.aggregate(&batch(&[insert(1, 7)]), 1_150).unwrap();
        assert_eq!(results(&expired), vec![(INSERT, None, values(1, Some(7), 7))], "cache of {cache_bytes} bytes");
    }
}

#[test]
fn a_retraction_into_an_insert_only_aggregation_fails() {
    let dir = TempDir::new();
    let mut aggregator = aggregator(&dir, 0, None, false);
    aggregator.aggregate(&batch(&[insert(1, 5)]), 0).unwrap();
    assert!(aggregator.aggregate(&batch(&[(UPDATE_BEFORE, 1, 5)]), 0).is_err());
}

#[test]
fn the_cache_holds_changed_accumulators_until_evicted_or_flushed() {
    let dir = TempDir::new();
    let mut cached = aggregator(&dir, 1 << 20, None, false);
    cached.aggregate(&batch(&[insert(1, 5), insert(2, 6)]), 0).unwrap();
    assert_eq!(cached.column_family.count_entries().unwrap(), 0, "both rows are only in the cache");
    cached.flush().unwrap();
    assert_eq!(cached.column_family.count_entries().unwrap(), 2);
    cached.aggregate(&batch(&[insert(1, 1)]), 0).unwrap();

    let mut uncached =
        GroupAggregator::new(cached.column_family.clone(), aggregator_config(false, None), Vec::new(), 0, None)
            .unwrap();
    let stale = uncached.aggregate(&batch(&[insert(2, 1)]), 0).unwrap();
    assert_eq!(results(&stale)[0].1, values(1, Some(6), 6), "key 2 as flushed");
    cached.flush().unwrap();
    let flushed = uncached.aggregate(&batch(&[insert(1, 1)]), 0).unwrap();
    assert_eq!(results(&flushed)[0].1, values(2, Some(6), 5), "key 1 as flushed the second time");
}

#[test]
fn evicted_accumulators_are_written() {
    let dir = TempDir::new();
    // Room for about two entries: every batch evicts.
    let mut aggregator = aggregator(&dir, 300, None, false);
    for k in 0..50 {
        aggregator.aggregate(&batch(&[insert(k, k)]), 0).unwrap();
    }
    let written = aggregator.column_family.count_entries().unwrap();
    assert!((45..50).contains(&written), "{written} of 50 keys written on eviction");
    aggregator.flush().unwrap();
    assert_eq!(aggregator.column_family.count_entries().unwrap(), 50);
    for k in 0..50 {
        let again = aggregator.aggregate(&batch(&[insert(k, 1)]), 0).unwrap();
        assert_eq!(results(&again)[0].1, values(1, Some(k), k), "key {k}");
    }
}

#[test]
fn merged_local_accumulators_add_up_and_delete_at_a_zero_count() {
    let dir = TempDir::new();
    let store = KeyedStore::open(dir.path(), test_config()).unwrap();
    let column_family = StateColumnFamily::open(&store, "accState").unwrap();
    // Rows (k, count1, sum, sum's count) of `SELECT k, SUM(v)` over retractions, two-phase.
    let config = GroupAggConfig {
        input_arity: 4,
        calls: vec![
            AggregateCall {
                function: Function::SumWithRetract,
                argument: Some((0, FieldType::BigInt)),
                filter: None,
                decimal: None,
                table: None,
            },
            AggregateCall { function: Function::CountStar, argument: None, filter: None, decimal: None, table: None },
        ],
        value_arity: 1,
        count_star_field: Some(2),
        merged_from: Some(1),
        per_key_runs: false,
        ttl_millis: None,
        generate_update_before: true,
        layout: KeyGroupLayout::new(1, 128, 0, 127).unwrap(),
    };
    let mut aggregator = GroupAggregator::new(column_family, config, Vec::new(), 1 << 20, None).unwrap();
    let local = |k: i64, sum: Option<i64>, sum_count: i64, count: i64| {
        let row = RowBuilder::new(4).long(0, k).long(2, sum_count).long(3, count);
        match sum {
            Some(sum) => row.long(1, sum),
            None => row.null(1),
        }
        .build()
    };
    let batch_of = |rows: Vec<Vec<u8>>| {
        let keys: Vec<Vec<u8>> =
            rows.iter().map(|r| RowBuilder::new(1).long(0, BinaryRow::new(r, 4).unwrap().get_i64(0)).build()).collect();
        batch_of_rows(&keys, &rows)
    };
    let value = |result: &StructArray, column: usize| {
        let array = result.column(column).as_any().downcast_ref::<BinaryArray>().unwrap();
        (!array.is_null(0)).then(|| {
            let mut out = [None];
            read_numbers(array.value(0), &[NumberType::BigInt], &mut out).unwrap();
            out[0].clone()
        })
    };
    let first = aggregator.aggregate(&batch_of(vec![local(1, Some(7), 2, 2)]), 0).unwrap();
    assert_eq!((decisions(&first), value(&first, 2)), (vec![INSERT], Some(Some(Number::Int(7)))));
    let more = aggregator.aggregate(&batch_of(vec![local(1, Some(-3), 0, 0)]), 0).unwrap();
    assert_eq!(
        (decisions(&more), value(&more, 1), value(&more, 2)),
        (vec![UPDATE], Some(Some(Number::Int(7))), Some(Some(Number::Int(4))))
    );
    let gone = aggregator.aggregate(&batch_of(vec![local(1, Some(-4), -2, -2)]), 0).unwrap();
    assert_eq!((decisions(&gone), value(&gone, 1)), (vec![DELETE], Some(Some(Number::Int(4)))));
}

#[test]
fn a_key_evicted_before_its_delete_in_the_same_batch_stays_deleted() {
    let dir = TempDir::new();
    // Room for two entries (16 key bytes, 40 row bytes and the overhead each).
    let mut aggregator = aggregator(&dir, 250, None, true);
    aggregator.aggregate(&batch(&[insert(1, 5)]), 0).unwrap();
    // Keys 5, 6 and 7 come first: their rows evict key 1's (dirty) row before key 1's own turn,
    // when its only row is retracted and the key deleted.
    let result =
        aggregator.aggregate(&batch(&[insert(5, 1), insert(6, 1), insert(7, 1), (DELETE_KIND, 1, 5)]), 0).unwrap();
    assert_eq!(decisions(&result), vec![INSERT, INSERT, INSERT, DELETE]);
    aggregator.flush().unwrap();
    let mut uncached =
        GroupAggregator::new(aggregator.column_family.clone(), aggregator_config(true, None), Vec::new(), 0, None)
            .unwrap();
    let again = uncached.aggregate(&batch(&[insert(1, 2)]), 0).unwrap();
    assert_eq!(decisions(&again), vec![INSERT], "key 1 was deleted, not restored from its evicted row");
}

/// The retracting aggregator of [`aggregator`], aggregating each key's run of rows as one.
fn run_aggregator(dir: &TempDir) -> GroupAggregator {
    let store = KeyedStore::open(dir.path(), test_config()).unwrap();
    let column_family = StateColumnFamily::open(&store, "accState").unwrap();
    let config = GroupAggConfig { per_key_runs: true, ..aggregator_config(true, None) };
    GroupAggregator::new(column_family, config, Vec::new(), 1 << 20, None).unwrap()
}

fn retract(k: i64, v: i64) -> (u8, i64, i64) {
    (UPDATE_BEFORE, k, v)
}

#[test]
fn a_run_of_rows_emits_once_at_its_end_comparing_its_start_and_end() {
    let dir = TempDir::new();
    let mut aggregator = run_aggregator(&dir);
    let first = aggregator.aggregate(&batch(&[insert(1, 5), insert(1, 3), insert(2, 1)]), 0).unwrap();
    assert_eq!(
        results(&first),
        vec![(NOTHING, None, None), (INSERT, None, values(2, Some(8), 8)), (INSERT, None, values(1, Some(1), 1))]
    );
    // A run that changes nothing overall emits nothing; one that does updates once.
    let second = aggregator.aggregate(&batch(&[insert(1, 4), retract(1, 4), insert(2, 2), retract(2, 1)]), 0).unwrap();
    assert_eq!(
        results(&second),
        vec![
            (NOTHING, None, None),
            (NOTHING, None, None),
            (NOTHING, None, None),
            (UPDATE, values(1, Some(1), 1), values(1, Some(2), 2)),
        ]
    );
    // A count that reaches zero inside a run carries on; at the end, zero deletes.
    let third = aggregator.aggregate(&batch(&[retract(1, 5), retract(1, 3), insert(1, 7), retract(1, 7)]), 0).unwrap();
    assert_eq!(decisions(&third), vec![NOTHING, NOTHING, NOTHING, DELETE]);
    assert_eq!(results(&third)[3].1, values(2, Some(8), 8));
}

#[test]
fn leading_retractions_of_a_new_key_are_skipped_and_the_next_keys_still_aggregate() {
    let dir = TempDir::new();
    let mut aggregator = run_aggregator(&dir);
    // Key 1 has no accumulators: its leading retraction is skipped, the rest aggregated. Key 2
    // has only retractions: nothing, and key 3 after it is aggregated (Flink 2.2.1 would drop it).
    let result = aggregator
        .aggregate(&batch(&[retract(1, 9), insert(1, 2), retract(2, 1), retract(2, 4), insert(3, 6)]), 0)
        .unwrap();
    assert_eq!(
        results(&result),
        vec![
            (NOTHING, None, None),
            (INSERT, None, values(1, Some(2), 2)),
            (NOTHING, None, None),
            (NOTHING, None, None),
            (INSERT, None, values(1, Some(6), 6)),
        ]
    );
}

#[test]
fn a_key_in_two_runs_of_one_batch_is_refused() {
    let dir = TempDir::new();
    let mut aggregator = run_aggregator(&dir);
    let err = aggregator.aggregate(&batch(&[insert(1, 1), insert(2, 1), insert(1, 2)]), 0).unwrap_err();
    assert!(err.to_string().contains("not one run"), "{err}");
}
