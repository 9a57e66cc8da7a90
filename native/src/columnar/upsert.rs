//! The sink upsert materializer: Flink's `SinkUpsertMaterializer` (and `SinkUpsertMaterializerV2`,
//! which emits the same) one batch at a time, over a candidate index instead of one list value
//! per key.
//!
//! Flink keeps, per sink key, the list of rows it emitted that were not retracted. An insert or
//! update-after replaces the first row with the same upsert key (with one) or is appended, and is
//! emitted as INSERT if the list was empty, else as UPDATE_AFTER. An update-before or delete
//! removes the first row that is the same candidate ([`RowIdentity`]): if the list is then empty
//! the incoming row is emitted as DELETE; if the removed row was the last one, the new last row is
//! emitted as UPDATE_AFTER; otherwise nothing is. A retraction that matches nothing emits nothing
//! and writes nothing.
//!
//! Here the list is a candidate index ([`super::candidate_entries`]): list order is sequence
//! order, a replacement keeps its sequence, and a removal of the last row finds the one before it
//! with one reverse seek. Per batch: the distinct keys, one multi-get of their counters, one of
//! the hash entries the batch's rows fall under, the rows in order against an in-memory overlay of
//! what the batch changed, and one write batch. A key restored from Flink's own state (`values`
//! or V2's `list`) is converted on its first access, in the same write.
//!
//! Keys whose candidates are few (an [`InlineList`]) are also kept in a write-back cache
//! ([`WinnerCache`], keyed by state key, holding the inline entry's value, empty for a key with no
//! candidates): a cached key costs no read, and its changed list goes into the cache as its only
//! copy. It reaches RocksDB when the cache evicts it (in the write batch of the batch that evicted
//! it) or when the operator [flushes](UpsertMaterializer::flush) before a checkpoint barrier. A key
//! that moves into the indexed entries leaves the cache, so a cached key never has index entries.
//!
//! TTL is per key, as Flink's on the list value (`OnCreateAndWrite`, `NeverReturnExpired`): a key
//! whose last write is older than the TTL reads as empty, and its entries are deleted.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BinaryArray, BinaryBuilder, Int32Array, Int8Array, StructArray};
use arrow::datatypes::{DataType, Field, Fields};
use rocksdb::DBPinnableSlice;

use super::batch_keys::{key_and_row_columns, BatchKeys};
use super::candidate_entries::{self as entries, Counter};
use super::key_groups::KeyGroupLayout;
use super::row_identity::RowIdentity;
use super::winner_cache::WinnerCache;
use crate::error::{NativeError, Result};
use crate::memory::MemoryReservation;
use crate::store::{EntryCursor, StateColumnFamily, StoreWrite};
use crate::word_hash::WordHashMap;
use expiry_sweep::ExpirySweep;
use inline_list::InlineList;

/// A retraction of a candidate that is not the last: nothing is emitted.
pub const NOTHING: i8 = 0;
/// An addition to an empty list: the row is emitted as INSERT.
pub const INSERT: i8 = 1;
/// An addition to a list with rows: the row is emitted as UPDATE_AFTER.
pub const UPDATE_AFTER: i8 = 2;
/// A retraction of the only row: the incoming row is emitted as DELETE.
pub const DELETE: i8 = 3;
/// A retraction of the last row: the new last row is emitted as UPDATE_AFTER.
pub const LATEST: i8 = 4;
/// A retraction that matched no row: nothing is emitted (Flink logs that state was lost).
pub const NOT_FOUND: i8 = 5;

const KIND_INSERT: u8 = 0;
const KIND_UPDATE_BEFORE: u8 = 1;
const KIND_UPDATE_AFTER: u8 = 2;
const KIND_DELETE: u8 = 3;
const LENGTH_BYTES: usize = 4;
const TIMESTAMP_BYTES: usize = 8;

/// How Flink's own operator stored a key's rows, for keys restored from its savepoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlinkListFormat {
    /// `SinkUpsertMaterializer`'s `values`: `ValueState<List<RowData>>`, TTL-stamped if it has a TTL.
    RowList,
    /// `SinkUpsertMaterializerV2`'s `list` (VALUE strategy): `ValueState<List<Tuple2<RowData, Long>>>`.
    SequencedRowList,
}

/// What a materializer matches candidates by and how its state is laid out.
pub struct UpsertConfig {
    pub identity: RowIdentity,
    pub ttl_millis: Option<i64>,
    pub layout: KeyGroupLayout,
    /// The most bytes a key's candidates take in its inline list; past it they are indexed.
    pub inline_limit_bytes: usize,
}

/// The default [`UpsertConfig::inline_limit_bytes`]: a few dozen typical rows, and about one
/// RocksDB data block, so an inline list is read with the block that holds it.
pub const INLINE_LIMIT_BYTES: usize = 4 << 10;

pub use super::batch_keys::batch_type;

fn result_fields() -> Fields {
    Fields::from(vec![
        Field::new("decision", DataType::Int8, false),
        Field::new("latest_row", DataType::Int32, false),
        Field::new("latest_bytes", DataType::Binary, true),
    ])
}

/// A candidate's row: a row of this batch (stored with the kind it was emitted as), bytes read
/// from state in this batch (borrowed, not copied), or bytes.
#[derive(Clone)]
enum CandidateRow<'a> {
    Batch { row: u32, kind: u8 },
    Stored(&'a [u8]),
    Owned(Vec<u8>),
}

impl CandidateRow<'_> {
    fn bytes<'s>(&'s self, rows: &'s BinaryArray) -> &'s [u8] {
        match self {
            CandidateRow::Batch { row, .. } => rows.value(*row as usize),
            CandidateRow::Stored(bytes) => bytes,
            CandidateRow::Owned(bytes) => bytes,
        }
    }
}

/// What the batch knows of one key.
struct KeyWork<'a> {
    /// The key's candidates while they are few (see [`inline_list`]); `None` once indexed.
    inline: Option<InlineList<'a>>,
    /// Whether the key has an inline entry stored, and whether the batch changed its list.
    inline_stored: bool,
    inline_changed: bool,
    /// Whether its list came from the cache, which may hold the only copy of it.
    cached: bool,
    counter: Counter,
    /// Whether the key's stored index entries are current (not new, expired or converted).
    on_disk: bool,
    /// Delete the key's stored entries first (they expired).
    clear_stored: bool,
    counter_changed: bool,
    /// Candidates the batch wrote (`Some`) or removed (`None`), by sequence.
    candidates: BTreeMap<i64, Option<CandidateRow<'a>>>,
    /// Delete the key's value in Flink's own state, converted here.
    converted: bool,
}

/// One hash entry as the batch changed it.
struct HashWork<'a> {
    records: Vec<(i64, CandidateRow<'a>)>,
    changed: bool,
}

/// Flink's list state of a restored job, converted key by key.
pub struct FlinkListState {
    pub column_family: StateColumnFamily,
    pub format: FlinkListFormat,
}

/// The materializer of one operator instance.
pub struct UpsertMaterializer {
    candidates: StateColumnFamily,
    flink_list: Option<FlinkListState>,
    config: UpsertConfig,
    sweep: ExpirySweep,
    cache: WinnerCache,
    _reservation: Option<MemoryReservation>,
}

impl UpsertMaterializer {
    /// A materializer whose cache of inline lists holds up to `cache_bytes` (0: no cache).
    pub fn new(
        candidates: StateColumnFamily,
        flink_list: Option<FlinkListState>,
        config: UpsertConfig,
        cache_bytes: usize,
        reservation: Option<MemoryReservation>,
    ) -> UpsertMaterializer {
        UpsertMaterializer {
            candidates,
            flink_list,
            config,
            sweep: ExpirySweep::new(),
            cache: WinnerCache::new(cache_bytes),
            _reservation: reservation,
        }
    }

    /// The cache's hits and misses so far.
    pub fn cache_stats(&self) -> (u64, u64) {
        (self.cache.hits(), self.cache.misses())
    }

    /// Writes every inline list the cache holds unwritten, in one write batch: before a
    /// checkpoint, so that the snapshot has them.
    pub fn flush(&mut self) -> Result<()> {
        let mut lists = Vec::new();
        self.cache.drain_dirty(|base, value, _| {
            let mut key = Vec::with_capacity(base.len() + 8);
            entries::inline_key(&mut key, base);
            lists.push((key, value.to_vec()));
        });
        lists.sort_unstable();
        let mut write = StoreWrite::to_store_of(&self.candidates);
        for (key, value) in &lists {
            put_or_delete(&mut write, &self.candidates, key, value)?;
        }
        if write.is_empty() {
            return Ok(());
        }
        write.commit()
    }

    fn expired(&self, last_write: i64, now: i64) -> bool {
        self.config.ttl_millis.is_some_and(|ttl| last_write.saturating_add(ttl) <= now)
    }

    /// Materializes a batch (see the module documentation) and returns one result entry per row:
    /// `decision`, `latest_row` (for [`LATEST`], the batch position of the new last row when it
    /// came from this batch, else -1) and `latest_bytes` (for [`LATEST`], the new last row's bytes
    /// when it came from state).
    pub fn materialize(&mut self, batch: &StructArray, now: i64) -> Result<StructArray> {
        let swept = match self.config.ttl_millis {
            Some(ttl) => self.sweep.expired_keys(&self.candidates, self.config.layout.prefix_bytes, ttl, now)?,
            None => Vec::new(),
        };
        // The batch borrows the cache while it borrows the rest of the materializer; an empty
        // cache allocates nothing.
        let mut cache = std::mem::replace(&mut self.cache, WinnerCache::new(0));
        let result = self.materialize_swept(&mut cache, batch, now, &swept);
        self.cache = cache;
        result
    }

    /// [`Self::materialize`], deleting first the entries of the `swept` keys, which expired.
    fn materialize_swept(
        &self,
        cache: &mut WinnerCache,
        batch: &StructArray,
        now: i64,
        swept: &[Vec<u8>],
    ) -> Result<StructArray> {
        let (keys, rows) = key_and_row_columns(batch, "an upsert batch")?;
        let batch_keys = BatchKeys::of(keys, &self.config.layout)?;
        let bases = StateKeys::of(&batch_keys, keys, &self.config.layout);
        let cached = CachedLists::of(cache, &batch_keys, &bases);
        let stored = self.read_keys(&bases, &cached.misses)?;
        let mut work = self.key_work(&cached, &stored, now)?;
        self.convert_flink_lists(&bases, &mut work, now)?;
        // Hashes are needed for indexed keys only: an inline list is searched in full.
        let mut hashes = vec![0; rows.len()];
        for (i, &key) in batch_keys.key_of_row.iter().enumerate() {
            if work[key as usize].inline.is_none() {
                hashes[i] = self.config.identity.hash(rows.value(i))?;
            }
        }
        let mut by_hash = WordHashMap::default();
        self.read_hash_entries(&bases, &batch_keys.key_of_row, &hashes, &work, &mut by_hash)?;

        // One iterator for every reverse seek of the batch, made on the first: it sees the state as
        // the batch found it, which the overlay then corrects.
        let mut cursor = None;
        let n = rows.len();
        let mut decision = Vec::with_capacity(n);
        let mut latest_row = Vec::with_capacity(n);
        let mut latest_bytes = BinaryBuilder::new();
        for (i, (&key, &hash)) in batch_keys.key_of_row.iter().zip(&hashes).enumerate() {
            let of_key = &mut work[key as usize];
            let adds = match rows.value(i).first().copied() {
                Some(KIND_INSERT | KIND_UPDATE_AFTER) => true,
                Some(KIND_UPDATE_BEFORE | KIND_DELETE) => false,
                other => return Err(NativeError::CorruptRow(format!("a row of kind {other:?} in an upsert batch"))),
            };
            let identity = &self.config.identity;
            let (outcome, latest) = if let Some(list) = of_key.inline.as_mut() {
                let result = if adds {
                    (list.add(identity, rows, i as u32, now)?, None)
                } else {
                    list.retract(identity, rows, i as u32, now)?
                };
                of_key.inline_changed |= result.0 != NOT_FOUND;
                result
            } else {
                let entry =
                    by_hash.entry((key, hash)).or_insert_with(|| HashWork { records: Vec::new(), changed: false });
                if adds {
                    (self.add(of_key, entry, rows, i as u32, now)?, None)
                } else {
                    self.retract(bases.get(key), of_key, entry, rows, i as u32, now, &mut cursor)?
                }
            };
            decision.push(outcome);
            match latest {
                Some(CandidateRow::Batch { row, .. }) => {
                    latest_row.push(row as i32);
                    latest_bytes.append_null();
                }
                Some(CandidateRow::Stored(bytes)) => {
                    latest_row.push(-1);
                    latest_bytes.append_value(bytes);
                }
                Some(CandidateRow::Owned(bytes)) => {
                    latest_row.push(-1);
                    latest_bytes.append_value(bytes);
                }
                None => {
                    latest_row.push(-1);
                    latest_bytes.append_null();
                }
            }
        }

        self.spill_long_lists(&mut work, &mut by_hash, rows)?;
        let hashes_of_keys: Vec<u64> = batch_keys.keys.iter().map(|k| k.hash).collect();
        self.write(cache, swept, &bases, &hashes_of_keys, &work, &by_hash, rows)?;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int8Array::from(decision)),
            Arc::new(Int32Array::from(latest_row)),
            Arc::new(latest_bytes.finish()),
        ];
        Ok(StructArray::try_new(result_fields(), columns, None)?)
    }

    fn add<'r>(
        &self,
        of_key: &mut KeyWork<'r>,
        entry: &mut HashWork<'r>,
        rows: &BinaryArray,
        i: u32,
        now: i64,
    ) -> Result<i8> {
        let outcome = if of_key.counter.count == 0 { INSERT } else { UPDATE_AFTER };
        let kind = if outcome == INSERT { KIND_INSERT } else { KIND_UPDATE_AFTER };
        let candidate = CandidateRow::Batch { row: i, kind };
        let replaced = match self.config.identity {
            RowIdentity::WholeRow => None,
            RowIdentity::Fields { .. } => self.first_match(entry, rows, i)?,
        };
        let sequence = match replaced {
            Some(at) => {
                entry.records[at].1 = candidate.clone();
                entry.records[at].0
            }
            None => {
                let counter = &mut of_key.counter;
                let sequence = counter.next_sequence;
                counter.next_sequence += 1;
                counter.count += 1;
                counter.latest_sequence = sequence;
                entry.records.push((sequence, candidate.clone()));
                sequence
            }
        };
        entry.changed = true;
        of_key.candidates.insert(sequence, Some(candidate));
        of_key.counter.last_write = now;
        of_key.counter_changed = true;
        Ok(outcome)
    }

    #[allow(clippy::too_many_arguments)]
    fn retract<'a, 'r>(
        &'a self,
        base: &[u8],
        of_key: &mut KeyWork<'r>,
        entry: &mut HashWork<'r>,
        rows: &BinaryArray,
        i: u32,
        now: i64,
        cursor: &mut Option<EntryCursor<'a>>,
    ) -> Result<(i8, Option<CandidateRow<'r>>)> {
        let Some(at) = self.first_match(entry, rows, i)? else {
            return Ok((NOT_FOUND, None));
        };
        let (sequence, _) = entry.records.remove(at);
        entry.changed = true;
        of_key.candidates.insert(sequence, None);
        let counter = &mut of_key.counter;
        counter.count -= 1;
        counter.last_write = now;
        of_key.counter_changed = true;
        if counter.count == 0 {
            counter.latest_sequence = -1;
            return Ok((DELETE, None));
        }
        if sequence != counter.latest_sequence {
            return Ok((NOTHING, None));
        }
        let (latest, row) = self.latest_before(base, of_key, sequence, cursor)?;
        of_key.counter.latest_sequence = latest;
        Ok((LATEST, Some(row)))
    }

    /// The position in `entry` of the oldest candidate that is the same as row `i`.
    fn first_match(&self, entry: &HashWork, rows: &BinaryArray, i: u32) -> Result<Option<usize>> {
        let row = rows.value(i as usize);
        for (at, (_, candidate)) in entry.records.iter().enumerate() {
            if self.config.identity.equals(row, candidate.bytes(rows))? {
                return Ok(Some(at));
            }
        }
        Ok(None)
    }

    /// The last candidate before `sequence`, which the key still has: the greater of the batch's
    /// last written one and the stored one the batch did not touch, found by a reverse seek.
    fn latest_before<'a, 'r>(
        &'a self,
        base: &[u8],
        of_key: &KeyWork<'r>,
        sequence: i64,
        cursor: &mut Option<EntryCursor<'a>>,
    ) -> Result<(i64, CandidateRow<'r>)> {
        let written = of_key.candidates.range(..sequence).rev().find_map(|(&s, c)| c.as_ref().map(|c| (s, c.clone())));
        if of_key.on_disk {
            let floor = written.as_ref().map_or(i64::MIN, |w| w.0);
            let mut prefix = Vec::new();
            entries::candidate_key(&mut prefix, base, 0);
            prefix.truncate(prefix.len() - 8);
            let mut before = Vec::new();
            entries::candidate_key(&mut before, base, sequence);
            let mut below_floor = false;
            let cursor = match cursor {
                Some(cursor) => cursor,
                None => cursor.insert(self.candidates.cursor()?),
            };
            let stored = cursor.last_before(&prefix, &before, |key| {
                let s = entries::sequence_of_candidate_key(key)?;
                below_floor = s <= floor;
                Ok(below_floor || !of_key.candidates.contains_key(&s))
            })?;
            if let Some((key, value)) = stored.filter(|_| !below_floor) {
                let payload = entries::payload_of(&value, "candidate")?;
                let row = serialized_row(payload, "a candidate index entry")?;
                return Ok((entries::sequence_of_candidate_key(&key)?, CandidateRow::Owned(row.to_vec())));
            }
        }
        written.ok_or_else(|| {
            NativeError::CorruptState(format!(
                "the candidate index of state '{}' counts candidates before sequence {sequence}, but has none",
                self.candidates.name()
            ))
        })
    }

    /// The counter and inline list entries of each of the keys `misses`, with one multi-get.
    fn read_keys(&self, bases: &StateKeys, misses: &[u32]) -> Result<Vec<Option<DBPinnableSlice<'_>>>> {
        if misses.is_empty() {
            return Ok(Vec::new());
        }
        let mut buffer = Vec::with_capacity(bases.buffer.len() * 2 + 12 * misses.len());
        let mut ends = Vec::with_capacity(2 * misses.len());
        for &k in misses {
            entries::counter_key(&mut buffer, bases.get(k));
            ends.push(buffer.len());
            entries::inline_key(&mut buffer, bases.get(k));
            ends.push(buffer.len());
        }
        let entry_keys: Vec<&[u8]> = slices(&buffer, &ends).collect();
        self.candidates.multi_get_pinned(&entry_keys)
    }

    /// What the batch starts from for each key: its cached inline list, or from its
    /// [`Self::read_keys`] entries its inline list or its counter. An expired key starts empty
    /// (and an expired index is range-deleted); a key with neither starts inline.
    fn key_work<'a>(
        &self,
        cached: &'a CachedLists,
        stored: &'a [Option<DBPinnableSlice<'_>>],
        now: i64,
    ) -> Result<Vec<KeyWork<'a>>> {
        let mut work = Vec::with_capacity(cached.lists.len());
        let mut read = stored.chunks_exact(2);
        for list in &cached.lists {
            let (counter, inline, from_cache) = match list {
                Some(range) => (None, Some(&cached.buffer[range.clone()]).filter(|v| !v.is_empty()), true),
                None => {
                    let pair = read.next().expect("a multi-get pair for every key the cache lacks");
                    let counter = pair[0].as_ref().map(|v| Counter::parse(v)).transpose()?;
                    (counter, pair[1].as_deref(), false)
                }
            };
            let expired = counter.is_some_and(|c| self.expired(c.last_write, now));
            let indexed = counter.is_some() && !expired;
            let mut of_key = KeyWork {
                inline: None,
                inline_stored: inline.is_some() && !from_cache,
                inline_changed: false,
                cached: from_cache,
                counter: counter.filter(|_| indexed).unwrap_or(Counter::EMPTY),
                on_disk: indexed,
                clear_stored: expired,
                counter_changed: false,
                candidates: BTreeMap::new(),
                converted: false,
            };
            if !indexed {
                let list = inline.map(InlineList::parse).transpose()?;
                of_key.inline = Some(match list {
                    Some(list) if !self.expired(list.last_write, now) => list,
                    Some(_) => {
                        // Expired: it reads as empty and goes with this batch's write.
                        of_key.inline_changed = true;
                        InlineList::empty()
                    }
                    None => InlineList::empty(),
                });
            }
            work.push(of_key);
        }
        Ok(work)
    }

    /// Converts the keys that have neither an index nor an inline list but a list in Flink's own
    /// state (with one multi-get) into inline lists, in list order.
    fn convert_flink_lists(&self, bases: &StateKeys, work: &mut [KeyWork], now: i64) -> Result<()> {
        let Some(flink) = &self.flink_list else {
            return Ok(());
        };
        let fresh: Vec<u32> = (0..work.len() as u32)
            .filter(|&k| {
                let of_key = &work[k as usize];
                of_key.inline.is_some() && !of_key.inline_stored && !of_key.clear_stored && !of_key.cached
            })
            .collect();
        let list_keys: Vec<&[u8]> = fresh.iter().map(|&k| bases.get(k)).collect();
        for (&key, value) in fresh.iter().zip(flink.column_family.multi_get_pinned(&list_keys)?) {
            let Some(value) = value else { continue };
            let of_key = &mut work[key as usize];
            of_key.converted = true;
            of_key.inline_changed = true;
            let (written_at, rows) = parse_flink_list(&value, flink.format, self.config.ttl_millis.is_some())
                .map_err(|e| NativeError::CorruptState(format!("state '{}': {e}", flink.column_family.name())))?;
            if written_at.is_some_and(|at| self.expired(at, now)) {
                continue;
            }
            let list = of_key.inline.as_mut().expect("a fresh key starts inline");
            list.rows = rows.into_iter().map(|row| CandidateRow::Owned(row.to_vec())).collect();
            list.last_write = written_at.unwrap_or(now);
        }
        Ok(())
    }

    /// Moves every changed inline list longer than the inline limit into the indexed entries:
    /// candidates 0, 1, ... in list order, their hash entries and a counter, all new.
    fn spill_long_lists<'r>(
        &self,
        work: &mut [KeyWork<'r>],
        by_hash: &mut WordHashMap<(u32, u32), HashWork<'r>>,
        rows: &BinaryArray,
    ) -> Result<()> {
        for (key, of_key) in work.iter_mut().enumerate() {
            let long = of_key
                .inline
                .as_ref()
                .is_some_and(|list| of_key.inline_changed && list.encoded_len(rows) > self.config.inline_limit_bytes);
            if !long {
                continue;
            }
            let list = of_key.inline.take().expect("checked above");
            for (sequence, candidate) in list.rows.into_iter().enumerate() {
                let sequence = sequence as i64;
                let hash = self.config.identity.hash(candidate.bytes(rows))?;
                by_hash
                    .entry((key as u32, hash))
                    .or_insert_with(|| HashWork { records: Vec::new(), changed: true })
                    .records
                    .push((sequence, candidate.clone()));
                of_key.candidates.insert(sequence, Some(candidate));
                of_key.counter = Counter {
                    next_sequence: sequence + 1,
                    count: sequence + 1,
                    latest_sequence: sequence,
                    last_write: list.last_write,
                };
            }
            of_key.counter_changed = true;
        }
        Ok(())
    }

    /// The stored hash entries of the batch's rows whose keys have an index, with one multi-get.
    fn read_hash_entries<'r>(
        &self,
        bases: &StateKeys,
        key_of_row: &[u32],
        hashes: &[u32],
        work: &[KeyWork<'r>],
        by_hash: &mut WordHashMap<(u32, u32), HashWork<'r>>,
    ) -> Result<()> {
        let mut wanted = Vec::new();
        let mut hash_keys = Vec::new();
        for (&key, &hash) in key_of_row.iter().zip(hashes) {
            if work[key as usize].on_disk && !by_hash.contains_key(&(key, hash)) {
                by_hash.insert((key, hash), HashWork { records: Vec::new(), changed: false });
                let mut hash_key = Vec::new();
                entries::hash_key(&mut hash_key, bases.get(key), hash);
                hash_keys.push(hash_key);
                wanted.push((key, hash));
            }
        }
        for (pair, value) in wanted.into_iter().zip(self.candidates.multi_get_pinned(&hash_keys)?) {
            if let Some(value) = value {
                let records = entries::parse_hash_entry(&value)?;
                let work = by_hash.get_mut(&pair).expect("inserted above");
                for (sequence, serialized) in records {
                    let row = serialized_row(serialized, "a candidate index hash entry")?;
                    work.records.push((sequence, CandidateRow::Owned(row.to_vec())));
                }
            }
        }
        Ok(())
    }

    /// Where each key's inline list goes: into the cache, or, for a key that left the inline
    /// entry, that is not cached or whose list is larger than the whole cache, into the write
    /// batch (`Some` value, empty for a delete). Keys whose list the batch did not change are
    /// cached as read.
    fn cache_inline_lists(
        &self,
        cache: &mut WinnerCache,
        bases: &StateKeys,
        key_hashes: &[u64],
        work: &[KeyWork],
        rows: &BinaryArray,
    ) -> Vec<Option<Vec<u8>>> {
        let mut direct = Vec::with_capacity(work.len());
        for (k, of_key) in work.iter().enumerate() {
            let (base, hash) = (bases.get(k as u32), key_hashes[k]);
            // RocksDB may hold an inline entry for the key: a delete is needed to remove it.
            let maybe_stored = of_key.inline_stored || of_key.cached;
            let Some(list) = &of_key.inline else {
                if of_key.cached {
                    cache.remove(hash, base);
                }
                direct.push(maybe_stored.then(Vec::new));
                continue;
            };
            if of_key.cached && !of_key.inline_changed {
                direct.push(None);
                continue;
            }
            let mut value = Vec::new();
            if !list.rows.is_empty() {
                value.reserve_exact(list.encoded_value_len(rows));
                list.encode(&mut value, rows);
            }
            if !of_key.inline_changed || (value.is_empty() && !maybe_stored) {
                // As stored (or absent): the cache knows it, and RocksDB has it already.
                cache.put(hash, base, &value, list.last_write);
                direct.push(None);
            } else if cache.put_dirty(hash, base, &value, list.last_write) {
                direct.push(None);
            } else {
                direct.push(Some(value));
            }
        }
        direct
    }

    /// One write batch of everything the batch changed: the deletes of the `swept` keys, the
    /// inline lists the cache evicted (older than anything the batch writes directly), then each
    /// key's entries.
    #[allow(clippy::too_many_arguments)]
    fn write(
        &self,
        cache: &mut WinnerCache,
        swept: &[Vec<u8>],
        bases: &StateKeys,
        key_hashes: &[u64],
        work: &[KeyWork],
        by_hash: &WordHashMap<(u32, u32), HashWork>,
        rows: &BinaryArray,
    ) -> Result<()> {
        let direct = self.cache_inline_lists(cache, bases, key_hashes, work, rows);
        let mut write = StoreWrite::to_store_of(&self.candidates);
        // First, so that what this batch writes for a swept key survives the deletion.
        for base in swept {
            write.delete_prefix(&self.candidates, base)?;
        }
        let (mut key, mut value) = (Vec::new(), Vec::new());
        for evicted in cache.take_evicted() {
            key.clear();
            entries::inline_key(&mut key, &evicted.key);
            put_or_delete(&mut write, &self.candidates, &key, &evicted.row)?;
        }
        for ((k, of_key), inline) in work.iter().enumerate().zip(&direct) {
            let base = bases.get(k as u32);
            if of_key.clear_stored {
                write.delete_prefix(&self.candidates, base)?;
            }
            if of_key.converted {
                let flink = self.flink_list.as_ref().expect("converted from Flink's list state");
                write.delete(&flink.column_family, base)?;
            }
            if let Some(inline) = inline {
                key.clear();
                entries::inline_key(&mut key, base);
                put_or_delete(&mut write, &self.candidates, &key, inline)?;
            }
            for (&sequence, candidate) in &of_key.candidates {
                key.clear();
                entries::candidate_key(&mut key, base, sequence);
                match candidate {
                    Some(candidate) => {
                        value.clear();
                        let (kind, row) = stored_row(candidate, rows);
                        let length = (row.len() as u32).to_be_bytes();
                        entries::map_value(&mut value, &[&length, &[kind], &row[1..]]);
                        write.put(&self.candidates, &key, &value)?;
                    }
                    None => write.delete(&self.candidates, &key)?,
                }
            }
            if of_key.counter_changed {
                key.clear();
                entries::counter_key(&mut key, base);
                if of_key.counter.count == 0 {
                    write.delete(&self.candidates, &key)?;
                } else {
                    value.clear();
                    of_key.counter.encode(&mut value);
                    write.put(&self.candidates, &key, &value)?;
                }
            }
        }
        let mut serialized = Vec::new();
        for (&(k, hash), entry) in by_hash.iter().filter(|(_, e)| e.changed) {
            key.clear();
            entries::hash_key(&mut key, bases.get(k), hash);
            if entry.records.is_empty() {
                write.delete(&self.candidates, &key)?;
                continue;
            }
            // Each record holds the candidate as its serializer writes it: length, then the row.
            serialized.clear();
            let mut bounds = Vec::with_capacity(entry.records.len());
            for (sequence, candidate) in &entry.records {
                let start = serialized.len();
                let (kind, row) = stored_row(candidate, rows);
                serialized.extend_from_slice(&(row.len() as u32).to_be_bytes());
                serialized.push(kind);
                serialized.extend_from_slice(&row[1..]);
                bounds.push((*sequence, start, serialized.len()));
            }
            value.clear();
            entries::encode_hash_entry(&mut value, bounds.iter().map(|&(s, start, end)| (s, &serialized[start..end])));
            write.put(&self.candidates, &key, &value)?;
        }
        if write.is_empty() {
            return Ok(());
        }
        write.commit()
    }
}

/// Puts `value` for `key`, or deletes the key if `value` is empty.
fn put_or_delete(write: &mut StoreWrite, column_family: &StateColumnFamily, key: &[u8], value: &[u8]) -> Result<()> {
    if value.is_empty() {
        write.delete(column_family, key)
    } else {
        write.put(column_family, key, value)
    }
}

/// The inline lists the cache holds for a batch's keys, copied out of it so that the batch can
/// change the cache while it reads them, and the keys the cache lacks.
struct CachedLists {
    buffer: Vec<u8>,
    /// For each key, the range of its cached value in `buffer` (empty: no candidates), or none.
    lists: Vec<Option<std::ops::Range<usize>>>,
    misses: Vec<u32>,
}

impl CachedLists {
    fn of(cache: &mut WinnerCache, batch_keys: &BatchKeys, bases: &StateKeys) -> CachedLists {
        let mut cached = CachedLists { buffer: Vec::new(), lists: Vec::with_capacity(bases.len()), misses: Vec::new() };
        for (k, key) in batch_keys.keys.iter().enumerate() {
            match cache.lookup(key.hash, bases.get(k as u32)) {
                Some(slot) => {
                    let start = cached.buffer.len();
                    cached.buffer.extend_from_slice(&cache.get(slot).row);
                    cached.lists.push(Some(start..cached.buffer.len()));
                }
                None => {
                    cached.lists.push(None);
                    cached.misses.push(k as u32);
                }
            }
        }
        cached
    }
}

/// A candidate as stored: the row kind it carries and its bytes (whose first byte is the kind
/// it had when it arrived).
fn stored_row<'s>(candidate: &'s CandidateRow, rows: &'s BinaryArray) -> (u8, &'s [u8]) {
    let bytes = candidate.bytes(rows);
    let kind = match candidate {
        CandidateRow::Batch { kind, .. } => *kind,
        CandidateRow::Stored(bytes) => bytes[0],
        CandidateRow::Owned(bytes) => bytes[0],
    };
    (kind, bytes)
}

/// The state keys (`[key group][key][namespace]`) of a batch's distinct keys, in one buffer.
struct StateKeys {
    buffer: Vec<u8>,
    ends: Vec<usize>,
}

impl StateKeys {
    fn of(batch_keys: &BatchKeys, keys: &BinaryArray, layout: &KeyGroupLayout) -> StateKeys {
        let mut buffer = Vec::new();
        let mut ends = Vec::with_capacity(batch_keys.keys.len());
        for (k, key) in batch_keys.keys.iter().enumerate() {
            layout.write_state_key(&mut buffer, key.key_group, batch_keys.key(keys, k as u32));
            ends.push(buffer.len());
        }
        StateKeys { buffer, ends }
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, k: u32) -> &[u8] {
        let start = if k == 0 { 0 } else { self.ends[k as usize - 1] };
        &self.buffer[start..self.ends[k as usize]]
    }
}

/// The slices of `buffer` that end at `ends`, in order.
fn slices<'b>(buffer: &'b [u8], ends: &'b [usize]) -> impl Iterator<Item = &'b [u8]> {
    ends.iter().scan(0, move |start, &end| {
        let slice = &buffer[*start..end];
        *start = end;
        Some(slice)
    })
}

/// The row of a `RowDataSerializer`'s bytes: a big-endian length, then the row.
fn serialized_row<'a>(serialized: &'a [u8], what: &str) -> Result<&'a [u8]> {
    let length = serialized.get(..LENGTH_BYTES).map(|l| u32::from_be_bytes(l.try_into().expect("four bytes")));
    match length {
        Some(len) if len as usize == serialized.len() - LENGTH_BYTES && len > 0 => Ok(&serialized[LENGTH_BYTES..]),
        _ => Err(NativeError::CorruptState(format!("{what} of {} bytes is not a serialized row", serialized.len()))),
    }
}

/// The rows (and, with a TTL, the write time) of a value of Flink's list state.
fn parse_flink_list(value: &[u8], format: FlinkListFormat, ttl: bool) -> Result<(Option<i64>, Vec<&[u8]>)> {
    let corrupt =
        |at: usize| NativeError::CorruptState(format!("a list value of {} bytes is cut off at byte {at}", value.len()));
    let mut at = 0;
    let mut take = |n: usize| -> Result<&[u8]> {
        let bytes = value.get(at..at + n).ok_or_else(|| corrupt(at))?;
        at += n;
        Ok(bytes)
    };
    let written_at = if ttl && format == FlinkListFormat::RowList {
        Some(i64::from_be_bytes(take(TIMESTAMP_BYTES)?.try_into().expect("eight bytes")))
    } else {
        None
    };
    let count = u32::from_be_bytes(take(LENGTH_BYTES)?.try_into().expect("four bytes")) as usize;
    let mut rows = Vec::with_capacity(count.min(value.len() / LENGTH_BYTES));
    for _ in 0..count {
        let len = u32::from_be_bytes(take(LENGTH_BYTES)?.try_into().expect("four bytes")) as usize;
        rows.push(take(len)?);
        if format == FlinkListFormat::SequencedRowList {
            take(TIMESTAMP_BYTES)?;
        }
    }
    if at != value.len() {
        return Err(corrupt(at));
    }
    Ok((written_at, rows))
}

mod expiry_sweep;
mod inline_list;
#[cfg(test)]
mod tests;
