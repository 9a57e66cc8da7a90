//! The Top-1 ranker: one row kept per key, one batch at a time, over the state Flink's operator
//! keeps. It serves Flink's `FastTop1Function` (`ROW_NUMBER() OVER (PARTITION BY k ORDER BY ...)
//! = 1` on append-only input) and its keep-last and keep-first deduplications, which differ only
//! in when a row takes its key's place (a [`Replacement`]).
//!
//! Per batch: the key group of every key, the distinct keys, a cache lookup for each, one
//! multi-get of those the cache lacks, the comparisons in row order, and the cache updated with
//! every winner seen. The cache is write-back, as the group aggregator's: a new winner goes into
//! it as its only copy, and reaches RocksDB when the cache evicts it (in the write batch of the
//! batch that evicted it) or when the operator [flushes](Top1Ranker::flush) before a checkpoint
//! barrier; a winner the cache has no room for is in the batch's write batch. Rejected rows write
//! nothing.
//!
//! A ranker may also keep its winners until their timers fire, as Flink's row-time keep-first
//! deduplication with insert-only output does: it is then guarded by the keys' emitted flags (an
//! [`EmittedGuard`]), whose rows it rejects, and [`Top1Ranker::take_winners`] takes the winners of
//! fired timers out of the state.
//!
//! The state is a Flink `ValueState<RowData>` (`Top1-Rank-State`, `deduplicate-state`) in the void
//! namespace: the value is what `RowDataSerializer` writes (a big-endian length, then the row's
//! bytes), behind `TtlSerializer`'s big-endian timestamp when the state has a TTL (Flink's
//! `OnCreateAndWrite`, `NeverReturnExpired`: an expired winner reads as none).

use std::cmp::Ordering;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BinaryArray, BinaryBuilder, Int32Array, Int8Array, StructArray};
use arrow::datatypes::{DataType, Field, Fields};

pub use super::batch_keys::batch_type;
use super::batch_keys::{key_and_row_columns, BatchKey, BatchKeys};
use super::binary_row::BinaryRow;
use super::emitted_guard::{EmittedGuard, GuardedKey};
#[cfg(test)]
use super::key_groups::row_hash;
use super::key_groups::KeyGroupLayout;
use super::sort_key::SortKey;
use super::state_writes::{write_dirty, StateWrites};
pub use super::stored_rows::KeptValue;
use super::stored_rows::{read_values, StoredValue, ValueFormat};
use super::winner_cache::WinnerCache;
use crate::error::{NativeError, Result};
use crate::memory::MemoryReservation;
use crate::store::{StateColumnFamily, StoreWrite};

/// A row that loses to (or ties with) its key's winner.
pub const REJECTED: i8 = 0;
/// A key's first row.
pub const FIRST: i8 = 1;
/// A row that beats its key's winner.
pub const REPLACED: i8 = 2;

/// When a row takes its key's place; the codes are the ordinals of Java's `Top1Replacement`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replacement {
    /// A row that sorts strictly first (Top-1: a tie keeps the incumbent).
    StrictlyFirst,
    /// A row that sorts first or ties (keep-last deduplication: of equals, the later wins).
    FirstOrTie,
    /// Like `FirstOrTie`, except that a row byte-identical to the incumbent changes nothing. That
    /// is keep-last deduplication on processing time without TTL, whose equaliser compares two
    /// `BinaryRowData` by their bytes.
    FirstOrTieUnlessIdentical,
}

impl Replacement {
    /// The names of the codes, in order, as the ABI descriptor lists them.
    pub const NAMES: [&'static str; 3] = ["strictly-first", "first-or-tie", "first-or-tie-unless-identical"];

    pub fn from_code(code: i32) -> Result<Replacement> {
        match code {
            0 => Ok(Replacement::StrictlyFirst),
            1 => Ok(Replacement::FirstOrTie),
            2 => Ok(Replacement::FirstOrTieUnlessIdentical),
            _ => Err(NativeError::InvalidArgument(format!("no Top-1 replacement has code {code}"))),
        }
    }

    fn replaces(self, order: Ordering, row: &[u8], incumbent: &[u8]) -> bool {
        match self {
            Replacement::StrictlyFirst => order == Ordering::Less,
            Replacement::FirstOrTie => order != Ordering::Greater,
            Replacement::FirstOrTieUnlessIdentical => order != Ordering::Greater && row != incumbent,
        }
    }
}

/// What a ranker ranks by and how its state is laid out.
pub struct Top1Config {
    pub arity: usize,
    pub sort_key: SortKey,
    pub replacement: Replacement,
    pub kept: KeptValue,
    /// The state's time-to-live, if it has one.
    pub ttl_millis: Option<i64>,
    /// Whether results carry the bytes of winners replaced from state or cache.
    pub return_replaced: bool,
    /// Whether every key of a batch has its winner written again, stamped with the batch's
    /// time, even when the batch replaced nothing: Flink's row-time mini-batch deduplication
    /// does so at the end of each bundle, which restarts the winner's TTL.
    pub restamps_seen_keys: bool,
    pub layout: KeyGroupLayout,
}

impl Top1Config {
    fn format(&self) -> ValueFormat {
        ValueFormat { kept: self.kept, ttl_millis: self.ttl_millis }
    }
}

fn result_fields() -> Fields {
    Fields::from(vec![
        Field::new("decision", DataType::Int8, false),
        Field::new("replaced_row", DataType::Int32, false),
        Field::new("replaced_bytes", DataType::Binary, true),
    ])
}

/// Where a key's current winner is.
#[derive(Clone, Copy)]
enum Winner {
    None,
    /// In the winner cache, at this slot.
    Cached(u32),
    /// Read from state in this batch's multi-get, at this index.
    Stored(u32),
    /// A row of this batch.
    Batch(u32),
}

/// The ranking state of one distinct key of a batch.
struct KeyOfBatch {
    first_row: u32,
    hash: u64,
    key_group: u32,
    winner: Winner,
    /// In [`Top1Ranker::take_winners`]: whether an earlier row of the batch took the key's winner.
    taken: bool,
    /// Whether the key's winner was emitted on its timer: its rows are rejected.
    flagged: bool,
}

impl KeyOfBatch {
    fn new(key: &BatchKey) -> KeyOfBatch {
        KeyOfBatch {
            first_row: key.first_row,
            hash: key.hash,
            key_group: key.key_group,
            winner: Winner::None,
            taken: false,
            flagged: false,
        }
    }
}

/// The ranker of one operator instance: its state's column family, its cache, and the
/// reservation that pays for the cache and the operator's batches.
pub struct Top1Ranker {
    column_family: StateColumnFamily,
    config: Top1Config,
    cache: WinnerCache,
    reservation: Option<MemoryReservation>,
    guard: Option<EmittedGuard>,
}

fn taken_fields() -> Fields {
    Fields::from(vec![Field::new("winner", DataType::Binary, true)])
}

impl Top1Ranker {
    /// Fails when a key keeps only a seen flag but a later row could replace its first one: there
    /// would be no row to compare with or to retract.
    pub fn new(
        column_family: StateColumnFamily,
        config: Top1Config,
        cache_bytes: usize,
        reservation: Option<MemoryReservation>,
    ) -> Result<Top1Ranker> {
        let keeps_first = config.replacement == Replacement::StrictlyFirst && config.sort_key.is_empty();
        if config.kept == KeptValue::SeenFlag && !keeps_first {
            return Err(NativeError::InvalidArgument(
                "a ranker that keeps only seen flags must keep each key's first row".into(),
            ));
        }
        Ok(Top1Ranker { column_family, config, cache: WinnerCache::new(cache_bytes), reservation, guard: None })
    }

    /// This ranker with its winners kept until their timers fire, and the rows of keys whose
    /// winner was emitted rejected (see the module documentation). Fails for a ranker that keeps
    /// only seen flags: there would be no row to emit.
    pub fn guarded_by(mut self, guard: EmittedGuard) -> Result<Top1Ranker> {
        if self.config.kept != KeptValue::Row {
            return Err(NativeError::InvalidArgument("a ranker whose winners wait for timers must keep rows".into()));
        }
        // The flags answer most rows once keys are emitted, so they get half of the cache.
        let capacity = self.cache.capacity();
        self.cache = WinnerCache::new(capacity - capacity / 2);
        self.guard = Some(guard.caching(capacity / 2));
        Ok(self)
    }

    /// Cache hits and misses since the ranker was opened.
    pub fn cache_stats(&self) -> (u64, u64) {
        (self.cache.hits(), self.cache.misses())
    }

    /// Bytes of the slot budget this ranker holds.
    pub fn reserved_bytes(&self) -> usize {
        self.reservation.as_ref().map_or(0, MemoryReservation::bytes)
    }

    fn expired(&self, written_at: i64, now: i64) -> bool {
        self.config.format().expired(written_at, now)
    }

    /// Ranks a batch (see the module documentation) and returns one result entry per row:
    /// `decision`, `replaced_row` (the batch position of a replaced winner from this batch, else
    /// -1) and `replaced_bytes` (a replaced winner from state or cache, if asked for).
    pub fn rank(&mut self, batch: &StructArray, now: i64) -> Result<StructArray> {
        let (keys, rows) = key_and_row_columns(batch, "a Top-1 batch")?;
        let batch_keys = BatchKeys::of(keys, &self.config.layout)?;
        let mut distinct: Vec<KeyOfBatch> = batch_keys.keys.iter().map(KeyOfBatch::new).collect();
        let key_of_row = batch_keys.key_of_row;
        self.flag_emitted_keys(keys, &mut distinct, now)?;
        let misses = self.look_up_cache(keys, &mut distinct, now);
        let stored = read_winners(&self.column_family, &self.config, keys, &mut distinct, &misses, now)?;

        let n = rows.len();
        let mut decision = Vec::with_capacity(n);
        let mut replaced_row = Vec::with_capacity(n);
        let mut replaced_bytes = BinaryBuilder::new();
        for (i, &key) in key_of_row.iter().enumerate() {
            let row = BinaryRow::new(rows.value(i), self.config.arity)?;
            let of_key = &mut distinct[key as usize];
            let (outcome, from_batch, from_elsewhere) = match of_key.winner {
                _ if of_key.flagged => (REJECTED, -1, None),
                Winner::None => (FIRST, -1, None),
                winner => {
                    let winner_bytes = self.winner_row(winner, rows, &stored);
                    let order = if self.config.sort_key.is_empty() {
                        Ordering::Equal
                    } else {
                        let incumbent = BinaryRow::new(winner_bytes, self.config.arity)
                            .map_err(|e| NativeError::CorruptState(format!("a stored Top-1 winner: {e}")))?;
                        self.config.sort_key.compare(&row, &incumbent)?
                    };
                    if !self.config.replacement.replaces(order, rows.value(i), winner_bytes) {
                        (REJECTED, -1, None)
                    } else if let Winner::Batch(j) = winner {
                        (REPLACED, j as i32, None)
                    } else {
                        (REPLACED, -1, Some(winner_bytes).filter(|_| self.config.return_replaced))
                    }
                }
            };
            if outcome != REJECTED {
                of_key.winner = Winner::Batch(i as u32);
            }
            decision.push(outcome);
            replaced_row.push(from_batch);
            replaced_bytes.append_option(from_elsewhere);
        }

        keep_winners(&mut self.cache, &self.config, &self.column_family, keys, rows, &distinct, &stored, now)?;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int8Array::from(decision)),
            Arc::new(Int32Array::from(replaced_row)),
            Arc::new(replaced_bytes.finish()),
        ];
        Ok(StructArray::try_new(result_fields(), columns, None)?)
    }

    /// Removes the winner of each key of `batch` (a batch of fired timers, whose rows are
    /// ignored) from the state and the cache, and flags the key as emitted, in one write batch.
    /// Returns one entry per row: the bytes of the key's winner at its first row, null at later
    /// rows of the key or when the key has no winner (a timer Flink would fire on no row).
    pub fn take_winners(&mut self, batch: &StructArray, now: i64) -> Result<StructArray> {
        if self.guard.is_none() {
            return Err(NativeError::InvalidArgument("only a ranker whose winners wait for timers takes them".into()));
        }
        let (keys, rows) = key_and_row_columns(batch, "a batch of fired timers")?;
        let batch_keys = BatchKeys::of(keys, &self.config.layout)?;
        let mut distinct: Vec<KeyOfBatch> = batch_keys.keys.iter().map(KeyOfBatch::new).collect();
        let misses = self.look_up_cache(keys, &mut distinct, now);
        let stored = read_winners(&self.column_family, &self.config, keys, &mut distinct, &misses, now)?;

        let guard = self.guard.as_ref().expect("checked above");
        let mut winners = BinaryBuilder::new();
        let mut write = StoreWrite::to_store_of(&self.column_family);
        let mut state_key = Vec::new();
        for (i, &key) in batch_keys.key_of_row.iter().enumerate() {
            let of_key = &mut distinct[key as usize];
            if of_key.taken {
                winners.append_null();
                continue;
            }
            of_key.taken = true;
            match of_key.winner {
                Winner::None => winners.append_null(),
                winner => winners.append_value(self.winner_row(winner, rows, &stored)),
            }
            state_key.clear();
            self.config.layout.write_state_key(&mut state_key, of_key.key_group, keys.value(i));
            write.delete(&self.column_family, &state_key)?;
            guard.flag(&mut write, &state_key, now)?;
        }
        write.commit()?;
        let guard = self.guard.as_mut().expect("checked above");
        for of_key in &distinct {
            let key = keys.value(of_key.first_row as usize);
            self.cache.remove(of_key.hash, key);
            guard.flagged_in_store(of_key.hash, key, now);
        }
        let columns: Vec<ArrayRef> = vec![Arc::new(winners.finish())];
        Ok(StructArray::try_new(taken_fields(), columns, None)?)
    }

    /// Flags the keys whose winner was emitted on its timer, if the ranker is guarded.
    fn flag_emitted_keys(&mut self, keys: &BinaryArray, distinct: &mut [KeyOfBatch], now: i64) -> Result<()> {
        let Some(guard) = self.guard.as_mut() else {
            return Ok(());
        };
        let guarded: Vec<GuardedKey> = distinct
            .iter()
            .map(|k| GuardedKey { key_group: k.key_group, hash: k.hash, key: keys.value(k.first_row as usize) })
            .collect();
        let flagged = guard.flagged(&self.config.layout, &guarded, now)?;
        for (of_key, flagged) in distinct.iter_mut().zip(flagged) {
            of_key.flagged = flagged;
        }
        Ok(())
    }

    /// Sets the winner of every cached key; returns the keys the cache lacks. Flagged keys need
    /// no winner.
    fn look_up_cache(&mut self, keys: &BinaryArray, distinct: &mut [KeyOfBatch], now: i64) -> Vec<u32> {
        let mut misses = Vec::new();
        for (index, of_key) in distinct.iter_mut().enumerate().filter(|(_, k)| !k.flagged) {
            let key = keys.value(of_key.first_row as usize);
            match self.cache.lookup(of_key.hash, key) {
                Some(slot) => {
                    let expired = self.expired(self.cache.get(slot).written_at, now);
                    of_key.winner = if expired { Winner::None } else { Winner::Cached(slot) };
                }
                None => misses.push(index as u32),
            }
        }
        misses
    }

    fn winner_row<'a>(&'a self, winner: Winner, rows: &'a BinaryArray, stored: &'a [Option<StoredValue>]) -> &'a [u8] {
        match winner {
            Winner::Cached(slot) => &self.cache.get(slot).row,
            Winner::Stored(index) => stored[index as usize].as_ref().expect("a stored winner").row(),
            Winner::Batch(row) => rows.value(row as usize),
            Winner::None => unreachable!("no winner has no row"),
        }
    }

    /// Writes every winner the cache holds unwritten, in one write batch: before a checkpoint,
    /// so that the snapshot has them.
    pub fn flush(&mut self) -> Result<()> {
        write_dirty(&mut self.cache, &self.config.layout, self.config.format(), &self.column_family)
    }
}

/// Reads the winners of the keys `misses` (indexes into `distinct`) with one multi-get and sets
/// them; an expired winner is none.
fn read_winners<'a>(
    column_family: &'a StateColumnFamily,
    config: &Top1Config,
    keys: &BinaryArray,
    distinct: &mut [KeyOfBatch],
    misses: &[u32],
    now: i64,
) -> Result<Vec<Option<StoredValue<'a>>>> {
    let stored = read_values(
        column_family,
        config.format(),
        &config.layout,
        misses.iter().map(|&k| (distinct[k as usize].key_group, keys.value(distinct[k as usize].first_row as usize))),
    )?;
    for (index, (&key, winner)) in misses.iter().zip(&stored).enumerate() {
        let expired = winner.as_ref().is_none_or(|w| config.format().expired(w.written_at, now));
        distinct[key as usize].winner = if expired { Winner::None } else { Winner::Stored(index as u32) };
    }
    Ok(stored)
}

/// Keeps every key's winner in the cache: a new one as its only copy, written when the cache
/// evicts it or at [`Top1Ranker::flush`]; one read from state as a clean copy (or, when the ranker
/// restamps the keys it sees, as a dirty copy stamped now, as a cached one is restamped). One write batch
/// takes the winners the cache evicted, then the new ones it has no room for.
#[allow(clippy::too_many_arguments)]
fn keep_winners(
    cache: &mut WinnerCache,
    config: &Top1Config,
    column_family: &StateColumnFamily,
    keys: &BinaryArray,
    rows: &BinaryArray,
    distinct: &[KeyOfBatch],
    stored: &[Option<StoredValue>],
    now: i64,
) -> Result<()> {
    let mut uncached = StateWrites::new(&config.layout, config.format());
    if config.restamps_seen_keys {
        // Before any put below can evict a cached winner: an evicted one is then written with
        // its new stamp.
        for of_key in distinct.iter().filter(|k| matches!(k.winner, Winner::Cached(_))) {
            cache.restamp(of_key.hash, keys.value(of_key.first_row as usize), now);
        }
    }
    for of_key in distinct {
        let key = keys.value(of_key.first_row as usize);
        match of_key.winner {
            Winner::Batch(row) => {
                let row = if config.kept == KeptValue::Row { rows.value(row as usize) } else { &[] };
                if !cache.put_dirty(of_key.hash, key, row, now) {
                    uncached.put(of_key.key_group, key, row, now);
                }
            }
            Winner::Stored(index) if config.restamps_seen_keys => {
                let winner = stored[index as usize].as_ref().expect("a stored winner");
                if !cache.put_dirty(of_key.hash, key, winner.row(), now) {
                    uncached.put(of_key.key_group, key, winner.row(), now);
                }
            }
            Winner::Stored(index) => {
                let winner = stored[index as usize].as_ref().expect("a stored winner");
                cache.put(of_key.hash, key, winner.row(), winner.written_at);
            }
            Winner::Cached(_) | Winner::None => {}
        }
    }
    uncached.commit_after_evicted(cache, column_family, StoreWrite::to_store_of(column_family))
}

#[cfg(test)]
mod tests_support {
    use super::*;
    use crate::columnar::batch_keys::tests::batch_of_rows;
    use crate::columnar::binary_row::tests::RowBuilder;
    use crate::columnar::sort_key::{FieldType, SortField};
    use crate::store::tests::test_config;
    use crate::store::KeyedStore;
    use crate::test_support::TempDir;

    /// A ranker of rows `(k BIGINT, v BIGINT)` by `v DESC`, keyed by `k`.
    pub(super) fn ranker_for(dir: &TempDir, cache_bytes: usize, ttl_millis: Option<i64>) -> Top1Ranker {
        ranker_with(dir, cache_bytes, ttl_millis, by_v_descending(), Replacement::StrictlyFirst, KeptValue::Row)
            .unwrap()
    }

    /// No sort field: every row ties, as in a deduplication by arrival.
    pub(super) fn no_order() -> SortKey {
        SortKey::new(vec![], 2).unwrap()
    }

    pub(super) fn by_v_descending() -> SortKey {
        let sort = SortField { position: 1, field_type: FieldType::BigInt, ascending: false, nulls_last: true };
        SortKey::new(vec![sort], 2).unwrap()
    }

    pub(super) fn ranker_with(
        dir: &TempDir,
        cache_bytes: usize,
        ttl_millis: Option<i64>,
        sort_key: SortKey,
        replacement: Replacement,
        kept: KeptValue,
    ) -> Result<Top1Ranker> {
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let column_family = StateColumnFamily::open(&store, "Top1-Rank-State").unwrap();
        let config = Top1Config {
            arity: 2,
            sort_key,
            replacement,
            kept,
            ttl_millis,
            return_replaced: true,
            restamps_seen_keys: false,
            layout: KeyGroupLayout::new(1, 128, 0, 127).unwrap(),
        };
        Top1Ranker::new(column_family, config, cache_bytes, None)
    }

    pub(super) fn key(k: i64) -> Vec<u8> {
        RowBuilder::new(1).long(0, k).build()
    }

    pub(super) fn row(k: i64, v: i64) -> Vec<u8> {
        RowBuilder::new(2).long(0, k).long(1, v).build()
    }

    pub(super) fn batch_of(rows: &[(i64, i64)]) -> StructArray {
        let keys: Vec<Vec<u8>> = rows.iter().map(|&(k, _)| key(k)).collect();
        let values: Vec<Vec<u8>> = rows.iter().map(|&(k, v)| row(k, v)).collect();
        batch_of_rows(&keys, &values)
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::{
        batch_of as batch, by_v_descending, key, no_order, ranker_for as ranker, ranker_with, row,
    };
    use super::*;
    use crate::test_support::TempDir;

    fn decisions(result: &StructArray) -> Vec<(i8, i32, Option<Vec<u8>>)> {
        let decision = result.column(0).as_any().downcast_ref::<Int8Array>().unwrap();
        let replaced_row = result.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
        let replaced = result.column(2).as_any().downcast_ref::<BinaryArray>().unwrap();
        (0..result.len())
            .map(|i| {
                let bytes = (!replaced.is_null(i)).then(|| replaced.value(i).to_vec());
                (decision.value(i), replaced_row.value(i), bytes)
            })
            .collect()
    }

    #[test]
    fn first_replaced_and_rejected_rows_within_one_batch() {
        let dir = TempDir::new();
        let mut ranker = ranker(&dir, 1 << 20, None);
        let result = ranker.rank(&batch(&[(1, 5), (1, 3), (1, 9), (2, 1), (1, 9)]), 0).unwrap();
        assert_eq!(
            decisions(&result),
            vec![(FIRST, -1, None), (REJECTED, -1, None), (REPLACED, 0, None), (FIRST, -1, None), (REJECTED, -1, None)],
            "a tie keeps the incumbent"
        );
    }

    #[test]
    fn keep_last_replaces_on_ties_but_not_with_an_identical_row() {
        for cache_bytes in [1 << 20, 0] {
            let dir = TempDir::new();
            let mut ranker = ranker_with(
                &dir,
                cache_bytes,
                None,
                no_order(),
                Replacement::FirstOrTieUnlessIdentical,
                KeptValue::Row,
            )
            .unwrap();
            let result = ranker.rank(&batch(&[(1, 5), (1, 5), (1, 6), (1, 5)]), 0).unwrap();
            assert_eq!(
                decisions(&result),
                vec![(FIRST, -1, None), (REJECTED, -1, None), (REPLACED, 0, None), (REPLACED, 2, None)]
            );
            let result = ranker.rank(&batch(&[(1, 5), (1, 7)]), 0).unwrap();
            assert_eq!(
                decisions(&result),
                vec![(REJECTED, -1, None), (REPLACED, -1, Some(row(1, 5)))],
                "the stored winner is the batch's last changed row; cache of {cache_bytes} bytes"
            );
        }
    }

    #[test]
    fn first_or_tie_lets_the_later_of_equal_rows_win() {
        let dir = TempDir::new();
        let mut ranker =
            ranker_with(&dir, 0, None, by_v_descending(), Replacement::FirstOrTie, KeptValue::Row).unwrap();
        let result = ranker.rank(&batch(&[(1, 5), (1, 5), (1, 4), (1, 6)]), 0).unwrap();
        assert_eq!(
            decisions(&result),
            vec![(FIRST, -1, None), (REPLACED, 0, None), (REJECTED, -1, None), (REPLACED, 1, None)]
        );
    }

    #[test]
    fn keep_first_keeps_a_seen_flag_per_key_and_rejects_every_later_row() {
        for cache_bytes in [1 << 20, 0] {
            let dir = TempDir::new();
            let mut ranker =
                ranker_with(&dir, cache_bytes, Some(100), no_order(), Replacement::StrictlyFirst, KeptValue::SeenFlag)
                    .unwrap();
            let result = ranker.rank(&batch(&[(1, 5), (1, 9), (2, 1)]), 1_000).unwrap();
            assert_eq!(decisions(&result), vec![(FIRST, -1, None), (REJECTED, -1, None), (FIRST, -1, None)]);
            ranker.flush().unwrap();
            let mut state_key = Vec::new();
            let key_group = ranker.config.layout.key_group(row_hash(&key(1)).unwrap()).unwrap();
            ranker.config.layout.write_state_key(&mut state_key, key_group, &key(1));
            let mut expected = 1_000i64.to_be_bytes().to_vec();
            expected.push(1);
            assert_eq!(&*ranker.column_family.get(&state_key).unwrap().unwrap(), &expected[..], "TtlValue(true)");
            let later = ranker.rank(&batch(&[(1, 7)]), 1_099).unwrap();
            assert_eq!(decisions(&later), vec![(REJECTED, -1, None)], "cache of {cache_bytes} bytes");
            let expired = ranker.rank(&batch(&[(1, 7)]), 1_100).unwrap();
            assert_eq!(decisions(&expired), vec![(FIRST, -1, None)], "cache of {cache_bytes} bytes");
        }
    }

    fn state_key_of(ranker: &Top1Ranker, k: i64) -> Vec<u8> {
        let mut state_key = Vec::new();
        let key_group = ranker.config.layout.key_group(row_hash(&key(k)).unwrap()).unwrap();
        ranker.config.layout.write_state_key(&mut state_key, key_group, &key(k));
        state_key
    }

    fn taken(result: &StructArray) -> Vec<Option<Vec<u8>>> {
        let winners = result.column(0).as_any().downcast_ref::<BinaryArray>().unwrap();
        (0..winners.len()).map(|i| (!winners.is_null(i)).then(|| winners.value(i).to_vec())).collect()
    }

    #[test]
    fn winners_taken_on_their_timers_leave_the_state_and_flag_their_keys_until_the_flags_expire() {
        for cache_bytes in [1 << 20, 0] {
            let dir = TempDir::new();
            let ranker =
                ranker_with(&dir, cache_bytes, None, by_v_descending(), Replacement::StrictlyFirst, KeptValue::Row)
                    .unwrap();
            let store = ranker.column_family.store().clone();
            let flags = StateColumnFamily::open(&store, "already-emitted-state-boolean").unwrap();
            let mut ranker = ranker.guarded_by(EmittedGuard::new(flags.clone(), Some(100))).unwrap();
            let ranked = ranker.rank(&batch(&[(1, 5), (1, 9), (2, 1)]), 1_000).unwrap();
            assert_eq!(decisions(&ranked), vec![(FIRST, -1, None), (REPLACED, 0, None), (FIRST, -1, None)]);

            let fired = ranker.take_winners(&batch(&[(1, 0), (3, 0), (1, 0)]), 1_010).unwrap();
            assert_eq!(taken(&fired), vec![Some(row(1, 9)), None, None], "cache of {cache_bytes} bytes");
            assert!(ranker.column_family.get(&state_key_of(&ranker, 1)).unwrap().is_none(), "the winner is gone");
            let mut flag = 1_010i64.to_be_bytes().to_vec();
            flag.push(1);
            assert_eq!(&*flags.get(&state_key_of(&ranker, 1)).unwrap().unwrap(), &flag[..], "TtlValue(true)");
            assert!(flags.get(&state_key_of(&ranker, 2)).unwrap().is_none(), "key 2 did not fire");

            let later = ranker.rank(&batch(&[(1, 20), (2, 3)]), 1_109).unwrap();
            assert_eq!(decisions(&later), vec![(REJECTED, -1, None), (REPLACED, -1, Some(row(2, 1)))]);
            let expired = ranker.rank(&batch(&[(1, 20)]), 1_110).unwrap();
            assert_eq!(decisions(&expired), vec![(FIRST, -1, None)], "the flag expired");
        }
    }

    #[test]
    fn only_a_ranker_of_rows_waits_for_timers() {
        let dir = TempDir::new();
        let flagging = ranker_with(&dir, 0, None, no_order(), Replacement::StrictlyFirst, KeptValue::SeenFlag).unwrap();
        let flags = StateColumnFamily::open(flagging.column_family.store(), "flags").unwrap();
        assert!(flagging.guarded_by(EmittedGuard::new(flags, None)).is_err());
        let other = TempDir::new();
        let mut unguarded = ranker(&other, 0, None);
        assert!(unguarded.take_winners(&batch(&[(1, 0)]), 0).is_err());
    }

    #[test]
    fn a_seen_flag_ranker_that_could_replace_rows_is_refused() {
        let dir = TempDir::new();
        let err = ranker_with(&dir, 0, None, no_order(), Replacement::FirstOrTie, KeptValue::SeenFlag).err().unwrap();
        assert!(matches!(err, NativeError::InvalidArgument(_)), "{err}");
        let dir = TempDir::new();
        let sorted = ranker_with(&dir, 0, None, by_v_descending(), Replacement::StrictlyFirst, KeptValue::SeenFlag);
        assert!(sorted.is_err());
        assert!(Replacement::from_code(3).is_err());
    }

    #[test]
    fn winners_come_back_from_the_cache_or_from_state() {
        for cache_bytes in [1 << 20, 0] {
            let dir = TempDir::new();
            let mut ranker = ranker(&dir, cache_bytes, None);
            ranker.rank(&batch(&[(1, 5), (2, 7)]), 0).unwrap();
            let result = ranker.rank(&batch(&[(1, 4), (1, 6), (2, 8)]), 0).unwrap();
            assert_eq!(
                decisions(&result),
                vec![(REJECTED, -1, None), (REPLACED, -1, Some(row(1, 5))), (REPLACED, -1, Some(row(2, 7)))],
                "cache of {cache_bytes} bytes"
            );
            let (hits, misses) = ranker.cache_stats();
            if cache_bytes == 0 {
                assert_eq!(hits, 0);
            } else {
                assert_eq!((hits, misses), (2, 2));
            }
        }
    }

    #[test]
    fn the_stored_value_is_what_row_data_serializer_writes() {
        let dir = TempDir::new();
        let mut ranker = ranker(&dir, 1 << 20, None);
        ranker.rank(&batch(&[(3, 30)]), 0).unwrap();
        ranker.flush().unwrap();
        let mut state_key = Vec::new();
        let key_group = ranker.config.layout.key_group(row_hash(&key(3)).unwrap()).unwrap();
        ranker.config.layout.write_state_key(&mut state_key, key_group, &key(3));
        let stored = ranker.column_family.get(&state_key).unwrap().unwrap();
        let mut expected = (row(3, 30).len() as u32).to_be_bytes().to_vec();
        expected.extend_from_slice(&row(3, 30));
        assert_eq!(&*stored, &expected[..]);
    }

    fn stored_row(ranker: &Top1Ranker, k: i64) -> Option<Vec<u8>> {
        let value = ranker.column_family.get(&state_key_of(ranker, k)).unwrap()?;
        Some(value[4..].to_vec())
    }

    #[test]
    fn new_winners_reach_the_state_when_flushed_or_evicted() {
        let dir = TempDir::new();
        let mut cached = ranker(&dir, 1 << 20, None);
        cached.rank(&batch(&[(1, 5), (2, 7)]), 0).unwrap();
        cached.rank(&batch(&[(1, 6)]), 0).unwrap();
        assert_eq!(stored_row(&cached, 1), None, "a cached winner waits for the flush");
        cached.flush().unwrap();
        assert_eq!(stored_row(&cached, 1), Some(row(1, 6)));
        assert_eq!(stored_row(&cached, 2), Some(row(2, 7)));
        cached.flush().unwrap();

        // Room for one winner: each new key evicts the one before, which is written.
        let dir = TempDir::new();
        let one_entry = key(1).len() + row(1, 5).len() + crate::columnar::winner_cache::ENTRY_OVERHEAD_BYTES;
        let mut small = ranker(&dir, one_entry, None);
        small.rank(&batch(&[(1, 5)]), 0).unwrap();
        small.rank(&batch(&[(2, 7)]), 0).unwrap();
        assert_eq!(stored_row(&small, 1), Some(row(1, 5)));
        assert_eq!(stored_row(&small, 2), None);
        let result = small.rank(&batch(&[(1, 6)]), 0).unwrap();
        assert_eq!(decisions(&result), vec![(REPLACED, -1, Some(row(1, 5)))]);
        assert_eq!(stored_row(&small, 2), Some(row(2, 7)));
    }

    #[test]
    fn expired_winners_read_as_none_in_state_and_in_the_cache() {
        for cache_bytes in [1 << 20, 0] {
            let dir = TempDir::new();
            let mut ranker = ranker(&dir, cache_bytes, Some(100));
            ranker.rank(&batch(&[(1, 5)]), 1_000).unwrap();
            let alive = ranker.rank(&batch(&[(1, 4)]), 1_099).unwrap();
            assert_eq!(decisions(&alive), vec![(REJECTED, -1, None)]);
            let expired = ranker.rank(&batch(&[(1, 4)]), 1_100).unwrap();
            assert_eq!(decisions(&expired), vec![(FIRST, -1, None)], "cache of {cache_bytes} bytes");
        }
    }

    #[test]
    fn a_ranker_that_restamps_seen_keys_restarts_their_ttl_on_rejected_rows() {
        // Cache on (the cached winner is restamped), tiny (evicted before each batch ends, so
        // it is written with its stamp) and off (the stored winner is written again).
        for cache_bytes in [1 << 20, 150, 0] {
            let dir = TempDir::new();
            let mut ranker = ranker_with(
                &dir,
                cache_bytes,
                Some(100),
                by_v_descending(),
                Replacement::StrictlyFirst,
                KeptValue::Row,
            )
            .unwrap();
            ranker.config.restamps_seen_keys = true;
            ranker.rank(&batch(&[(1, 5)]), 1_000).unwrap();
            for now in [1_080, 1_160, 1_240] {
                let rejected = ranker.rank(&batch(&[(1, 4), (2, now)]), now).unwrap();
                assert_eq!(decisions(&rejected)[0], (REJECTED, -1, None), "at {now}, cache of {cache_bytes} bytes");
            }
            ranker.flush().unwrap();
            let expired = ranker.rank(&batch(&[(1, 4)]), 1_340).unwrap();
            assert_eq!(decisions(&expired), vec![(FIRST, -1, None)], "cache of {cache_bytes} bytes");
        }
    }

    #[test]
    fn damaged_stored_winners_are_corruption_errors() {
        let dir = TempDir::new();
        let mut ranker = ranker(&dir, 0, None);
        let mut state_key = Vec::new();
        let key_group = ranker.config.layout.key_group(row_hash(&key(1)).unwrap()).unwrap();
        ranker.config.layout.write_state_key(&mut state_key, key_group, &key(1));
        ranker.column_family.put(&state_key, &[0, 0, 0, 99, 1, 2]).unwrap();
        let err = ranker.rank(&batch(&[(1, 5)]), 0).err().unwrap();
        assert!(matches!(err, NativeError::CorruptState(_)), "{err}");
    }
}

#[cfg(test)]
mod throughput {
    use super::tests_support::*;

    /// `cargo test --release -- --ignored --nocapture top1_throughput`: rows per second of the kernel
    /// alone, improving and rejected arrivals over 65,536 keys.
    #[test]
    #[ignore]
    fn top1_throughput() {
        for improving in [true, false] {
            let dir = crate::test_support::TempDir::new();
            let mut ranker = ranker_for(&dir, 32 << 20, None);
            let keys = 65_536i64;
            let batches = 400;
            let start = std::time::Instant::now();
            for b in 0..batches {
                let rows: Vec<(i64, i64)> = (0..4096)
                    .map(|i| {
                        let n = b * 4096 + i;
                        (n % keys, if improving { n } else { -n })
                    })
                    .collect();
                ranker.rank(&batch_of(&rows), 0).unwrap();
            }
            let elapsed = start.elapsed().as_secs_f64();
            let (hits, misses) = ranker.cache_stats();
            println!(
                "improving={improving}: {:.0} rows/s, cache hits {hits} misses {misses}",
                (batches * 4096) as f64 / elapsed
            );
        }
    }
}
