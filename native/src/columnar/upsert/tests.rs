//! The materializer against a model of Flink's `SinkUpsertMaterializer` (its list algorithm,
//! line by line), over random changelogs, plus restore, TTL and conversion cases.

use crate::columnar::batch_keys::tests::batch_of_rows;
use std::collections::HashMap;

use super::*;
use crate::columnar::binary_row::tests::RowBuilder;
use crate::columnar::sort_key::FieldType;
use crate::store::tests::test_config;
use crate::store::KeyedStore;
use crate::test_support::{TempDir, Xorshift};

const KINDS: [u8; 4] = [KIND_INSERT, KIND_UPDATE_BEFORE, KIND_UPDATE_AFTER, KIND_DELETE];

/// Rows `(k BIGINT, id BIGINT, v BIGINT)` of kind `kind`, keyed by `k`.
fn row(kind: u8, k: i64, id: i64, v: i64) -> Vec<u8> {
    let mut row = RowBuilder::new(3).long(0, k).long(1, id).long(2, v).build();
    row[0] = kind;
    row
}

fn key_of(row: &[u8]) -> Vec<u8> {
    RowBuilder::new(1).long(0, i64::from_le_bytes(row[8..16].try_into().unwrap())).build()
}

fn batch_of(rows: &[Vec<u8>]) -> StructArray {
    let keys: Vec<Vec<u8>> = rows.iter().map(|r| key_of(r)).collect();
    batch_of_rows(&keys, rows)
}

fn upsert_key() -> RowIdentity {
    RowIdentity::Fields { arity: 3, fields: vec![(1, FieldType::BigInt)] }
}

/// Inline limits to run with: every list indexed, lists of a few rows inline, the default.
const INLINE_LIMITS: [usize; 3] = [0, 300, INLINE_LIMIT_BYTES];

/// Cache sizes to run with: none, a few lists (so that dirty lists are evicted all the time),
/// every list.
const CACHE_SIZES: [usize; 3] = [0, 600, 1 << 20];

/// Every pair of an inline limit and a cache size.
fn setups() -> impl Iterator<Item = (usize, usize)> {
    INLINE_LIMITS.into_iter().flat_map(|limit| CACHE_SIZES.map(|cache| (limit, cache)))
}

fn open(
    store: &Arc<KeyedStore>,
    identity: RowIdentity,
    ttl_millis: Option<i64>,
    flink: Option<FlinkListState>,
) -> UpsertMaterializer {
    open_with(store, identity, ttl_millis, flink, (INLINE_LIMIT_BYTES, 0))
}

fn open_with(
    store: &Arc<KeyedStore>,
    identity: RowIdentity,
    ttl_millis: Option<i64>,
    flink: Option<FlinkListState>,
    (inline_limit_bytes, cache_bytes): (usize, usize),
) -> UpsertMaterializer {
    let candidates = StateColumnFamily::open(store, "upsert-candidates").unwrap();
    let layout = KeyGroupLayout::new(1, 128, 0, 127).unwrap();
    let config = UpsertConfig { identity, ttl_millis, layout, inline_limit_bytes };
    UpsertMaterializer::new(candidates, flink, config, cache_bytes, None)
}

/// What the operator emits for each row: the decision and the row emitted after it (kind aside).
fn emitted(rows: &[Vec<u8>], result: &StructArray) -> Vec<(i8, Option<Vec<u8>>)> {
    let decision = result.column(0).as_any().downcast_ref::<Int8Array>().unwrap();
    let latest_row = result.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
    let latest_bytes = result.column(2).as_any().downcast_ref::<BinaryArray>().unwrap();
    (0..result.len())
        .map(|i| {
            let d = decision.value(i);
            let out = match d {
                INSERT | UPDATE_AFTER | DELETE => Some(rows[i][1..].to_vec()),
                LATEST if latest_row.value(i) >= 0 => Some(rows[latest_row.value(i) as usize][1..].to_vec()),
                LATEST => Some(latest_bytes.value(i)[1..].to_vec()),
                _ => None,
            };
            (d, out)
        })
        .collect()
}

/// Flink's `SinkUpsertMaterializer.processElement`, over one list per key.
struct Model {
    lists: HashMap<Vec<u8>, Vec<Vec<u8>>>,
    identity: RowIdentity,
}

impl Model {
    fn apply(&mut self, row: &[u8]) -> (i8, Option<Vec<u8>>) {
        let identity = self.identity.clone();
        let values = self.lists.entry(key_of(row)).or_default();
        let find = |values: &Vec<Vec<u8>>| values.iter().position(|v| identity.equals(row, v).unwrap());
        if row[0] == KIND_INSERT || row[0] == KIND_UPDATE_AFTER {
            let outcome = if values.is_empty() { INSERT } else { UPDATE_AFTER };
            let at = matches!(identity, RowIdentity::Fields { .. }).then(|| find(values)).flatten();
            match at {
                Some(at) => values[at] = row.to_vec(),
                None => values.push(row.to_vec()),
            }
            return (outcome, Some(row[1..].to_vec()));
        }
        let last = values.len().wrapping_sub(1);
        let Some(at) = find(values) else { return (NOT_FOUND, None) };
        values.remove(at);
        if values.is_empty() {
            (DELETE, Some(row[1..].to_vec()))
        } else if at == last {
            (LATEST, Some(values.last().unwrap()[1..].to_vec()))
        } else {
            (NOTHING, None)
        }
    }
}

fn random_changelog(random: &mut Xorshift, length: usize, keys: i64, ids: i64) -> Vec<Vec<u8>> {
    (0..length)
        .map(|_| {
            let kind = KINDS[random.below(4)];
            row(kind, random.below(keys as usize) as i64, random.below(ids as usize) as i64, random.below(3) as i64)
        })
        .collect()
}

#[test]
fn random_changelogs_match_flinks_algorithm_row_by_row() {
    for (identity, setup) in
        [RowIdentity::WholeRow, upsert_key()].into_iter().flat_map(|i| setups().map(move |s| (i.clone(), s)))
    {
        for seed in 1..=6u64 {
            let dir = TempDir::new();
            let store = KeyedStore::open(dir.path(), test_config()).unwrap();
            let mut materializer = open_with(&store, identity.clone(), None, None, setup);
            let mut model = Model { lists: HashMap::new(), identity: identity.clone() };
            let mut random = Xorshift::new(seed);
            // Few keys and values, so that retractions find their rows and lists grow long.
            let changelog = random_changelog(&mut random, 3000, 3, 6);
            let mut at = 0;
            while at < changelog.len() {
                let size = 1 + random.below(60);
                let rows = &changelog[at..(at + size).min(changelog.len())];
                let result = materializer.materialize(&batch_of(rows), 0).unwrap();
                let expected: Vec<_> = rows.iter().map(|r| model.apply(r)).collect();
                assert_eq!(
                    emitted(rows, &result),
                    expected,
                    "{identity:?}, inline limit and cache {setup:?}, seed {seed}, rows {at}.."
                );
                at += rows.len();
                if random.below(8) == 0 {
                    // A checkpoint and a restore from it: the flush must write every list the
                    // cache held alone, or the new materializer's output differs from the model.
                    materializer.flush().unwrap();
                    materializer = open_with(&store, identity.clone(), None, None, setup);
                }
            }
        }
    }
}

#[test]
fn the_index_survives_reopening_the_store() {
    for setup in setups() {
        reopened_with(setup);
    }
}

fn reopened_with(setup: (usize, usize)) {
    let dir = TempDir::new();
    {
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let mut materializer = open_with(&store, RowIdentity::WholeRow, None, None, setup);
        let rows = [row(KIND_INSERT, 1, 1, 1), row(KIND_INSERT, 1, 2, 2), row(KIND_INSERT, 1, 3, 3)];
        materializer.materialize(&batch_of(&rows), 0).unwrap();
        materializer.flush().unwrap();
        store.flush().unwrap();
    }
    let store = KeyedStore::open(dir.path(), test_config()).unwrap();
    let mut materializer = open_with(&store, RowIdentity::WholeRow, None, None, setup);
    let rows = [row(KIND_DELETE, 1, 3, 3), row(KIND_DELETE, 1, 1, 1), row(KIND_DELETE, 1, 2, 2)];
    let result = materializer.materialize(&batch_of(&rows), 0).unwrap();
    assert_eq!(
        emitted(&rows, &result),
        vec![(LATEST, Some(row(0, 1, 2, 2)[1..].to_vec())), (NOTHING, None), (DELETE, Some(rows[2][1..].to_vec()))]
    );
    materializer.flush().unwrap();
    assert_eq!(StateColumnFamily::open(&store, "upsert-candidates").unwrap().count_entries().unwrap(), 0);
}

#[test]
fn an_expired_key_reads_as_empty_and_its_entries_go() {
    // Left after the expiry: the row inserted after it, as an inline list (one entry) or as a
    // counter, a candidate and its hash entry.
    for ((limit, entries_left), cache) in
        [(INLINE_LIMIT_BYTES, 1), (0, 3)].into_iter().flat_map(|c| CACHE_SIZES.map(|cache| (c, cache)))
    {
        expired_with((limit, cache), entries_left);
    }
}

fn expired_with(setup: (usize, usize), entries_left: u64) {
    let dir = TempDir::new();
    let store = KeyedStore::open(dir.path(), test_config()).unwrap();
    let mut materializer = open_with(&store, RowIdentity::WholeRow, Some(100), None, setup);
    let first = [row(KIND_INSERT, 1, 1, 1), row(KIND_INSERT, 1, 2, 2)];
    materializer.materialize(&batch_of(&first), 1_000).unwrap();
    let before_expiry = [row(KIND_INSERT, 1, 3, 3)];
    let result = materializer.materialize(&batch_of(&before_expiry), 1_099).unwrap();
    assert_eq!(emitted(&before_expiry, &result)[0].0, UPDATE_AFTER);
    let after = [row(KIND_DELETE, 1, 1, 1), row(KIND_INSERT, 1, 4, 4)];
    let result = materializer.materialize(&batch_of(&after), 1_199).unwrap();
    assert_eq!(emitted(&after, &result).iter().map(|e| e.0).collect::<Vec<_>>(), vec![NOT_FOUND, INSERT]);
    materializer.flush().unwrap();
    assert_eq!(StateColumnFamily::open(&store, "upsert-candidates").unwrap().count_entries().unwrap(), entries_left);
}

fn flink_row_list(rows: &[Vec<u8>], ttl_stamp: Option<i64>, sequenced: bool) -> Vec<u8> {
    let mut value = Vec::new();
    if let Some(stamp) = ttl_stamp {
        value.extend_from_slice(&stamp.to_be_bytes());
    }
    value.extend_from_slice(&(rows.len() as u32).to_be_bytes());
    for row in rows {
        value.extend_from_slice(&(row.len() as u32).to_be_bytes());
        value.extend_from_slice(row);
        if sequenced {
            value.extend_from_slice(&i64::MIN.to_be_bytes());
        }
    }
    value
}

#[test]
fn a_key_restored_from_flinks_list_state_is_converted_on_first_access() {
    let cases = [
        (FlinkListFormat::RowList, None),
        (FlinkListFormat::RowList, Some(1_000)),
        (FlinkListFormat::SequencedRowList, None),
    ];
    for ((format, ttl), setup) in cases.into_iter().flat_map(|c| setups().map(move |s| (c, s))) {
        let dir = TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let values = StateColumnFamily::open(&store, "values").unwrap();
        let stored = [row(KIND_INSERT, 1, 1, 1), row(KIND_UPDATE_AFTER, 1, 2, 2)];
        let mut base = Vec::new();
        KeyGroupLayout::new(1, 128, 0, 127).unwrap().write_state_key(
            &mut base,
            KeyGroupLayout::new(1, 128, 0, 127)
                .unwrap()
                .key_group(crate::columnar::key_groups::row_hash(&key_of(&stored[0])).unwrap())
                .unwrap(),
            &key_of(&stored[0]),
        );
        let sequenced = format == FlinkListFormat::SequencedRowList;
        values.put(&base, &flink_row_list(&stored, ttl.map(|_| 50), sequenced)).unwrap();
        let flink = FlinkListState { column_family: values.clone(), format };
        let mut materializer = open_with(&store, RowIdentity::WholeRow, ttl, Some(flink), setup);
        let rows = [row(KIND_DELETE, 1, 2, 2), row(KIND_INSERT, 1, 3, 3)];
        let result = materializer.materialize(&batch_of(&rows), 100).unwrap();
        assert_eq!(
            emitted(&rows, &result),
            vec![(LATEST, Some(stored[0][1..].to_vec())), (UPDATE_AFTER, Some(rows[1][1..].to_vec()))],
            "{format:?} with TTL {ttl:?}, inline limit and cache {setup:?}"
        );
        assert!(values.get(&base).unwrap().is_none(), "the converted list is deleted");
    }
}

#[test]
fn a_damaged_list_of_flinks_state_is_an_error_naming_the_state() {
    let dir = TempDir::new();
    let store = KeyedStore::open(dir.path(), test_config()).unwrap();
    let values = StateColumnFamily::open(&store, "values").unwrap();
    let rows = [row(KIND_INSERT, 1, 1, 1)];
    let layout = KeyGroupLayout::new(1, 128, 0, 127).unwrap();
    let key = key_of(&rows[0]);
    let mut base = Vec::new();
    layout.write_state_key(
        &mut base,
        layout.key_group(crate::columnar::key_groups::row_hash(&key).unwrap()).unwrap(),
        &key,
    );
    let mut damaged = flink_row_list(&rows, None, false);
    damaged.truncate(damaged.len() - 3);
    values.put(&base, &damaged).unwrap();
    let mut materializer = open(
        &store,
        RowIdentity::WholeRow,
        None,
        Some(FlinkListState { column_family: values, format: FlinkListFormat::RowList }),
    );
    let error = materializer.materialize(&batch_of(&rows), 0).err().unwrap().to_string();
    assert!(error.contains("'values'"), "{error}");
}

#[test]
fn ten_thousand_candidates_under_one_key_keep_every_entry_small() {
    let dir = TempDir::new();
    let store = KeyedStore::open(dir.path(), test_config()).unwrap();
    let mut materializer = open(&store, upsert_key(), None, None);
    for first in (0..10_000).step_by(500) {
        let rows: Vec<Vec<u8>> = (first..first + 500).map(|id| row(KIND_INSERT, 1, id, id)).collect();
        materializer.materialize(&batch_of(&rows), 0).unwrap();
    }
    // The visible candidate goes: the one before it becomes visible, found by one reverse seek.
    let rows = [row(KIND_DELETE, 1, 9_999, 9_999), row(KIND_UPDATE_BEFORE, 1, 0, 0)];
    let result = materializer.materialize(&batch_of(&rows), 0).unwrap();
    assert_eq!(emitted(&rows, &result), vec![(LATEST, Some(row(0, 1, 9_998, 9_998)[1..].to_vec())), (NOTHING, None)]);
    // No entry an operation reads holds more than a few candidates: the largest is far below the
    // 16 KiB that Flink's one list value for this key exceeds many times over.
    let column = StateColumnFamily::open(&store, "upsert-candidates").unwrap();
    let encoded = column.scan_prefix(&[], None, usize::MAX).unwrap();
    let largest = crate::batch::decode(&encoded).map(|e| e.unwrap().value.unwrap().len()).max().unwrap();
    assert!(largest < 16 << 10, "an entry of {largest} bytes");
    assert_eq!(column.count_entries().unwrap(), 1 + 2 * 9_998, "a counter, and a candidate and a hash entry each");
}

#[test]
fn keys_that_expire_and_never_come_back_are_swept_batch_by_batch() {
    for (limit, cache) in [INLINE_LIMIT_BYTES, 0].into_iter().flat_map(|l| CACHE_SIZES.map(|c| (l, c))) {
        let dir = TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let mut materializer = open_with(&store, RowIdentity::WholeRow, Some(100), None, (limit, cache));
        let old: Vec<Vec<u8>> = (0..20).map(|k| row(KIND_INSERT, k, 1, 1)).collect();
        materializer.materialize(&batch_of(&old), 1_000).unwrap();
        materializer.flush().unwrap();
        let column = StateColumnFamily::open(&store, "upsert-candidates").unwrap();
        let stored = column.count_entries().unwrap();
        assert!(stored >= 20, "inline limit {limit}: {stored} entries");
        // Later batches touch one other key only (and leave it empty); each also checks a few of
        // the expired ones.
        let live = [row(KIND_INSERT, 99, 1, 1), row(KIND_DELETE, 99, 1, 1)];
        for _ in 0..20 {
            materializer.materialize(&batch_of(&live), 5_000).unwrap();
        }
        materializer.flush().unwrap();
        let left = column.count_entries().unwrap();
        assert_eq!(left, 0, "inline limit {limit}, cache {cache}: every expired key was swept");
    }
}

#[test]
fn cached_lists_are_read_from_the_cache_and_written_at_the_flush() {
    let dir = TempDir::new();
    let store = KeyedStore::open(dir.path(), test_config()).unwrap();
    let mut materializer = open_with(&store, upsert_key(), None, None, (INLINE_LIMIT_BYTES, 1 << 20));
    let column = StateColumnFamily::open(&store, "upsert-candidates").unwrap();
    let first = [row(KIND_INSERT, 1, 1, 1), row(KIND_INSERT, 2, 1, 1)];
    materializer.materialize(&batch_of(&first), 0).unwrap();
    assert_eq!(column.count_entries().unwrap(), 0, "the lists are in the cache alone");
    let second = [row(KIND_INSERT, 1, 2, 2), row(KIND_DELETE, 2, 1, 1)];
    let result = materializer.materialize(&batch_of(&second), 0).unwrap();
    assert_eq!(emitted(&second, &result).iter().map(|e| e.0).collect::<Vec<_>>(), vec![UPDATE_AFTER, DELETE]);
    assert_eq!(materializer.cache_stats(), (2, 2), "the second batch read both keys from the cache");
    materializer.flush().unwrap();
    assert_eq!(column.count_entries().unwrap(), 1, "key 1's list; key 2 has none");
    materializer.flush().unwrap();
    // A new materializer (a restore) reads what the flush wrote.
    let mut restored = open_with(&store, upsert_key(), None, None, (INLINE_LIMIT_BYTES, 0));
    let third = [row(KIND_DELETE, 1, 2, 2)];
    let result = restored.materialize(&batch_of(&third), 0).unwrap();
    assert_eq!(emitted(&third, &result), vec![(LATEST, Some(row(0, 1, 1, 1)[1..].to_vec()))]);
}
