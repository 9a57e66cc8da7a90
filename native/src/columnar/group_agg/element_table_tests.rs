//! MIN and MAX over retractions and DISTINCT calls: the aggregator against the rules of Flink's
//! `MaxWithRetractAggFunction` and `DistinctAggCodeGen`, with their element tables in the state.

use super::functions::{Function, NumberType};
use super::value_rows::AccumulatorField;
use super::*;
use crate::columnar::batch_keys::tests::batch_of_rows;
use crate::columnar::binary_row::tests::RowBuilder;
use crate::columnar::sort_key::FieldType;
use crate::store::tests::test_config;
use crate::store::KeyedStore;
use crate::test_support::TempDir;

const INSERT_KIND: u8 = 0;
const UPDATE_BEFORE_KIND: u8 = 1;

fn call(function: Function, argument: Option<usize>, table: Option<usize>) -> AggregateCall {
    AggregateCall { function, argument: argument.map(|p| (p, FieldType::BigInt)), filter: None, decimal: None, table }
}

/// The aggregation of rows `(k BIGINT, v BIGINT, f BOOLEAN)` by `calls`, the first `value_arity`
/// of them in the output, the row count at accumulator field `count_star_field`.
fn config(calls: Vec<AggregateCall>, value_arity: usize, count_star_field: Option<usize>) -> GroupAggConfig {
    GroupAggConfig {
        input_arity: 3,
        calls,
        value_arity,
        count_star_field,
        merged_from: None,
        per_key_runs: false,
        ttl_millis: None,
        generate_update_before: true,
        layout: KeyGroupLayout::new(1, 128, 0, 127).unwrap(),
    }
}

struct Fixture {
    _dir: TempDir,
    aggregator: GroupAggregator,
    map: StateColumnFamily,
}

/// An aggregator of rows `(k BIGINT, v BIGINT, f BOOLEAN)` with the given calls, whose last is
/// the row count when `retracting`, over one element table (with a NULL state if `nulls`).
fn fixture(calls: Vec<AggregateCall>, value_arity: usize, retracting: bool, nulls: bool, cache: usize) -> Fixture {
    let dir = TempDir::new();
    let store = KeyedStore::open(dir.path(), test_config()).unwrap();
    let acc = StateColumnFamily::open(&store, "accState").unwrap();
    let map = StateColumnFamily::open(&store, "agg0$map").unwrap();
    let null_state = nulls.then(|| StateColumnFamily::open(&store, "distinctAcc_0_null_state").unwrap());
    let fields: usize = calls.iter().map(|c| c.accumulator_fields().unwrap().len()).sum();
    let config = config(calls, value_arity, retracting.then_some(fields - 1));
    let tables = vec![ElementTable { map: map.clone(), nulls: null_state }];
    let aggregator = GroupAggregator::new(acc, config, tables, cache, None).unwrap();
    Fixture { _dir: dir, aggregator, map }
}

/// A batch of `(kind, k, v, f)` rows; a `v` of `None` is NULL.
fn batch(rows: &[(u8, i64, Option<i64>, bool)]) -> StructArray {
    let keys: Vec<Vec<u8>> = rows.iter().map(|&(_, k, _, _)| RowBuilder::new(1).long(0, k).build()).collect();
    let values: Vec<Vec<u8>> = rows
        .iter()
        .map(|&(kind, k, v, f)| {
            let row = RowBuilder::new(3).long(0, k).int(2, f as i32);
            let mut row = match v {
                Some(v) => row.long(1, v),
                None => row.null(1),
            }
            .build();
            row[0] = kind;
            row
        })
        .collect();
    batch_of_rows(&keys, &values)
}

fn add(k: i64, v: i64) -> (u8, i64, Option<i64>, bool) {
    (INSERT_KIND, k, Some(v), true)
}

fn take(k: i64, v: i64) -> (u8, i64, Option<i64>, bool) {
    (UPDATE_BEFORE_KIND, k, Some(v), true)
}

/// Each row's decision and its first value before and after.
fn outcomes(result: &StructArray, types: &[NumberType]) -> Vec<(i8, Option<Number>, Option<Number>)> {
    let decision = result.column(0).as_any().downcast_ref::<Int8Array>().unwrap();
    let first = |column: usize, i: usize| {
        let array = result.column(column).as_any().downcast_ref::<BinaryArray>().unwrap();
        if array.is_null(i) {
            return None;
        }
        let mut out = vec![None; types.len()];
        read_numbers(array.value(i), types, &mut out).unwrap();
        out[0].clone()
    };
    (0..result.len()).map(|i| (decision.value(i), first(1, i), first(2, i))).collect()
}

fn int(v: i64) -> Option<Number> {
    Some(Number::Int(v))
}

fn max_with_retract(cache: usize) -> Fixture {
    let calls = vec![call(Function::MaxWithRetract, Some(1), Some(0)), call(Function::CountStar, None, None)];
    fixture(calls, 1, true, false, cache)
}

#[test]
fn max_over_retractions_finds_the_next_value_in_the_state() {
    for cache in [1 << 20, 0] {
        let mut f = max_with_retract(cache);
        let types = [NumberType::BigInt];
        let first = f.aggregator.aggregate(&batch(&[add(1, 5), add(1, 9), add(1, 3), add(1, 9)]), 0).unwrap();
        assert_eq!(
            outcomes(&first, &types),
            vec![(INSERT, None, int(5)), (UPDATE, int(5), int(9)), (NOTHING, None, None), (NOTHING, None, None)]
        );
        assert_eq!(f.map.count_entries().unwrap(), 3, "5, 9 (twice) and 3 are counted");
        // One 9 of two goes: 9 stays. The second: the next greatest comes from the state.
        let second = f.aggregator.aggregate(&batch(&[take(1, 9)]), 0).unwrap();
        assert_eq!(outcomes(&second, &types), vec![(NOTHING, None, None)], "cache {cache}");
        let third = f.aggregator.aggregate(&batch(&[take(1, 9)]), 0).unwrap();
        assert_eq!(outcomes(&third, &types), vec![(UPDATE, int(9), int(5))], "cache {cache}");
        let last = f.aggregator.aggregate(&batch(&[take(1, 5), take(1, 3)]), 0).unwrap();
        assert_eq!(outcomes(&last, &types), vec![(UPDATE, int(5), int(3)), (DELETE, int(3), None)]);
        assert_eq!(f.map.count_entries().unwrap(), 0, "the key's elements went with its last row");
        let again = f.aggregator.aggregate(&batch(&[add(1, 1), take(1, 1), add(1, 2)]), 0).unwrap();
        assert_eq!(
            outcomes(&again, &types),
            vec![(INSERT, None, int(1)), (DELETE, int(1), None), (INSERT, None, int(2))],
            "a key cleared and started again within one batch"
        );
        f.aggregator.flush().unwrap();
        assert_eq!(f.map.count_entries().unwrap(), 1);
    }
}

#[test]
fn a_retraction_before_its_row_counts_below_zero_as_flink_does() {
    let mut f = max_with_retract(0);
    let types = [NumberType::BigInt];
    let first = f.aggregator.aggregate(&batch(&[add(1, 5), add(1, 6), add(1, 1), add(1, 1), add(1, 1)]), 0).unwrap();
    assert_eq!(outcomes(&first, &types)[..2], [(INSERT, None, int(5)), (UPDATE, int(5), int(6))]);
    // 9 was never added: its count goes to -1, and mapSize stays.
    let result = f.aggregator.aggregate(&batch(&[take(1, 9)]), 0).unwrap();
    assert_eq!(outcomes(&result, &types), vec![(NOTHING, None, None)]);
    // The maximum goes: Flink's updateMax takes the greatest element left, 9 with its -1.
    let result = f.aggregator.aggregate(&batch(&[take(1, 6)]), 0).unwrap();
    assert_eq!(outcomes(&result, &types), vec![(UPDATE, int(6), int(9))]);
    // Adding 10 after its retraction brings its count to 0, which removes it, and makes it the
    // maximum all the same.
    let result = f.aggregator.aggregate(&batch(&[take(1, 10), add(1, 10)]), 0).unwrap();
    assert_eq!(outcomes(&result, &types), vec![(NOTHING, None, None), (UPDATE, int(9), int(10))]);
}

#[test]
fn min_over_retractions_orders_doubles_as_java_compares_them() {
    let dir = TempDir::new();
    let store = KeyedStore::open(dir.path(), test_config()).unwrap();
    let double = |function| AggregateCall {
        function,
        argument: Some((1, FieldType::Double)),
        filter: None,
        decimal: None,
        table: Some(0),
    };
    // The row count is a value too, so every row emits the minimum it leaves.
    let config = config(vec![double(Function::MinWithRetract), call(Function::CountStar, None, None)], 2, Some(1));
    let tables = vec![ElementTable { map: StateColumnFamily::open(&store, "agg0$map").unwrap(), nulls: None }];
    let acc = StateColumnFamily::open(&store, "accState").unwrap();
    let mut aggregator = GroupAggregator::new(acc, config, tables, 0, None).unwrap();
    let d = |kind: u8, v: f64| (kind, 1, Some(v.to_bits() as i64), true);
    let result =
        aggregator.aggregate(&batch(&[d(0, 0.0), d(0, f64::NAN), d(0, -0.0), d(1, -0.0), d(1, 0.0)]), 0).unwrap();
    let got: Vec<_> = outcomes(&result, &[NumberType::Double, NumberType::BigInt])
        .into_iter()
        .map(|(d, _, after)| (d, after.map(|n| if let Number::Float(v) = n { v.to_bits() } else { 0 })))
        .collect();
    assert_eq!(
        got,
        vec![
            (INSERT, Some(0.0f64.to_bits())),
            (UPDATE, Some(0.0f64.to_bits())),
            (UPDATE, Some((-0.0f64).to_bits())),
            (UPDATE, Some(0.0f64.to_bits())),
            (UPDATE, Some(f64::NAN.to_bits())),
        ],
        "-0.0 is below 0.0, and NaN is the greatest"
    );
}

#[test]
fn max_over_retractions_of_strings_reads_the_next_string_back() {
    let dir = TempDir::new();
    let store = KeyedStore::open(dir.path(), test_config()).unwrap();
    let text = AggregateCall {
        function: Function::MaxWithRetract,
        argument: Some((1, FieldType::Bytes)),
        filter: None,
        decimal: None,
        table: Some(0),
    };
    let config = config(vec![text, call(Function::CountStar, None, None)], 1, Some(1));
    let tables = vec![ElementTable { map: StateColumnFamily::open(&store, "agg0$map").unwrap(), nulls: None }];
    let acc = StateColumnFamily::open(&store, "accState").unwrap();
    let mut aggregator = GroupAggregator::new(acc, config, tables, 1 << 20, None).unwrap();
    let row = |kind: u8, v: &str| {
        let mut row = RowBuilder::new(3).long(0, 1).bytes(1, v.as_bytes()).build();
        row[0] = kind;
        row
    };
    let batch = |rows: Vec<Vec<u8>>| batch_of_rows(&vec![RowBuilder::new(1).long(0, 1).build(); rows.len()], &rows);
    let value = |result: &StructArray| {
        let array = result.column(2).as_any().downcast_ref::<BinaryArray>().unwrap();
        let last = result.len() - 1;
        (!array.is_null(last)).then(|| {
            let mut out = vec![None];
            read_numbers(array.value(last), &[NumberType::Bytes], &mut out).unwrap();
            out[0].clone()
        })
    };
    let first = aggregator
        .aggregate(
            &batch(vec![row(INSERT_KIND, "pear"), row(INSERT_KIND, "a longer apple"), row(INSERT_KIND, "plum")]),
            0,
        )
        .unwrap();
    assert_eq!(value(&first), Some(Some(Number::Bytes(b"plum".as_slice().into()))));
    let after = aggregator.aggregate(&batch(vec![row(UPDATE_BEFORE_KIND, "plum")]), 0).unwrap();
    assert_eq!(value(&after), Some(Some(Number::Bytes(b"pear".as_slice().into()))), "read back from the state");
}

/// `COUNT(DISTINCT v), SUM(DISTINCT v) FILTER (WHERE f)` over insert-only rows.
fn distinct_pair() -> Fixture {
    let sum = AggregateCall { filter: Some(2), ..call(Function::Sum, Some(1), Some(0)) };
    fixture(vec![call(Function::Count, Some(1), Some(0)), sum], 2, false, true, 1 << 20)
}

#[test]
fn distinct_calls_see_each_value_once_with_their_filters() {
    let mut f = distinct_pair();
    let types = [NumberType::BigInt, NumberType::BigInt];
    let values = |result: &StructArray| {
        let array = result.column(2).as_any().downcast_ref::<BinaryArray>().unwrap();
        (0..result.len())
            .map(|i| {
                (!array.is_null(i)).then(|| {
                    let mut out = vec![None; 2];
                    read_numbers(array.value(i), &types, &mut out).unwrap();
                    out
                })
            })
            .collect::<Vec<_>>()
    };
    let rows = [
        (INSERT_KIND, 1, Some(4), false),
        (INSERT_KIND, 1, Some(4), true),
        (INSERT_KIND, 1, Some(4), true),
        (INSERT_KIND, 1, None, true),
        (INSERT_KIND, 1, Some(6), false),
    ];
    let result = f.aggregator.aggregate(&batch(&rows), 0).unwrap();
    assert_eq!(
        values(&result),
        vec![Some(vec![int(1), None]), Some(vec![int(1), int(4)]), None, None, Some(vec![int(2), int(4)]),],
        "4 counts once, NULL not at all, 6 only where its filter passes"
    );
    let later = f.aggregator.aggregate(&batch(&[(INSERT_KIND, 1, Some(6), true)]), 0).unwrap();
    assert_eq!(values(&later), vec![Some(vec![int(2), int(10)])], "the bits of 6 read back from the state");
    f.aggregator.flush().unwrap();
    assert_eq!(f.map.count_entries().unwrap(), 2, "4 and 6");
}

#[test]
fn a_distinct_count_over_retractions_counts_rows_per_value() {
    let calls = vec![call(Function::Count, Some(1), Some(0)), call(Function::CountStar, None, None)];
    let mut f = fixture(calls, 1, true, true, 0);
    let types = [NumberType::BigInt];
    let result = f
        .aggregator
        .aggregate(&batch(&[add(1, 4), add(1, 4), add(1, 7), (INSERT_KIND, 1, None, true), take(1, 4)]), 0)
        .unwrap();
    assert_eq!(
        outcomes(&result, &types),
        vec![
            (INSERT, None, int(1)),
            (NOTHING, None, None),
            (UPDATE, int(1), int(2)),
            (NOTHING, None, None),
            (NOTHING, None, None),
        ]
    );
    let result = f.aggregator.aggregate(&batch(&[take(1, 4)]), 0).unwrap();
    assert_eq!(outcomes(&result, &types), vec![(UPDATE, int(2), int(1))], "the last 4 went");
    let result = f.aggregator.aggregate(&batch(&[take(1, 7), (UPDATE_BEFORE_KIND, 1, None, true)]), 0).unwrap();
    assert_eq!(outcomes(&result, &types), vec![(UPDATE, int(1), int(0)), (DELETE, int(0), None)]);
    assert_eq!(f.map.count_entries().unwrap(), 0);
}

#[test]
fn mismatched_tables_are_refused() {
    let dir = TempDir::new();
    let store = KeyedStore::open(dir.path(), test_config()).unwrap();
    let acc = StateColumnFamily::open(&store, "accState").unwrap();
    let map = StateColumnFamily::open(&store, "agg0$map").unwrap();
    let config = |calls| config(calls, 1, Some(1));
    let max = vec![call(Function::MaxWithRetract, Some(1), None), call(Function::CountStar, None, None)];
    assert!(GroupAggregator::new(acc.clone(), config(max), Vec::new(), 0, None).is_err(), "a MAX without its table");
    let distinct = vec![call(Function::Count, Some(1), Some(0)), call(Function::CountStar, None, None)];
    let no_nulls = vec![ElementTable { map, nulls: None }];
    assert!(GroupAggregator::new(acc, config(distinct), no_nulls, 0, None).is_err(), "a DISTINCT view without NULLs");
}

#[test]
fn accumulator_rows_nest_the_extreme_and_end_in_empty_views() {
    let fields = [
        AccumulatorField::Extreme(NumberType::Int),
        AccumulatorField::Number(NumberType::BigInt),
        AccumulatorField::View,
    ];
    let slots = [Some(Number::Int(-3)), Some(Number::Int(2)), Some(Number::Int(7))];
    let mut bytes = Vec::new();
    write_accumulators(&mut bytes, &fields, &slots);
    // Header, three slots, then the nested row: header, -3, mapSize 2, an empty RAW at its end.
    let nested = RowBuilder::new(3).int(0, -3).long(1, 2).long(2, 32i64 << 32).build();
    let expected = RowBuilder::new(3)
        .long(0, (32i64 << 32) | 32)
        .long(1, 7)
        .long(2, 64i64 << 32)
        .build()
        .into_iter()
        .chain(nested)
        .collect::<Vec<u8>>();
    assert_eq!(bytes, expected);
    let mut back = vec![None; 3];
    read_accumulators(&bytes, &fields, &mut back).unwrap();
    assert_eq!(back, slots);
}
