//! One RocksDB instance per Flink keyed backend, with one column family per registered state.
//!
//! Keys arrive already in Flink's canonical composite layout
//! (`[key group][key][namespace]...`), serialized on the Java side, so the store itself is
//! layout-agnostic apart from the key-group prefix used by scans.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use rocksdb::checkpoint::Checkpoint;
use rocksdb::{
    BlockBasedOptions, BoundColumnFamily, ColumnFamilyDescriptor, DBPinnableSlice, DBWithThreadMode,
    DataBlockIndexType, MergeOperands, MultiThreaded, Options, ReadOptions, WriteBatch, WriteOptions,
};

use crate::batch;
use crate::checkpoint::PendingCheckpoints;
use crate::error::{NativeError, Result};
use crate::index_layout::{self, IndexLayout, LayoutWatch};
use crate::kept_iterator::KeptIterator;
use crate::memory::{ColumnFamilyCharge, MemoryReservation, SlotMemory, MEMTABLES_PER_COLUMN_FAMILY};
use crate::ttl::{TtlFilterConfig, TtlFilterFactory, TtlFilterSlot};
use crate::write_back::{HeldWrite, WriteBack};

pub type Db = DBWithThreadMode<MultiThreaded>;

/// The smallest write-back buffer worth holding: below it, a store writes through.
const MIN_WRITE_BACK_BYTES: usize = 256 << 10;

/// What a store is opened with: the memory of its slot, shared with the slot's other stores, and
/// the size of its [write-back buffer](crate::write_back) (0 writes every put through at once).
#[derive(Clone)]
pub struct StoreConfig {
    pub memory: Arc<SlotMemory>,
    pub write_back_bytes: usize,
}

/// RocksDB's read and write option structs are plain data that RocksDB only reads during a
/// call, so sharing one instance between threads is sound; rust-rocksdb marks them `Send` only
/// because it cannot know that they are never mutated after construction. We never mutate them.
struct SharedOptions {
    read: ReadOptions,
    write: WriteOptions,
}
unsafe impl Sync for SharedOptions {}

/// A RocksDB instance owned by one keyed backend.
pub struct KeyedStore {
    db: Db,
    options: SharedOptions,
    /// The options every state column family is opened or created with, before
    /// [`KeyedStore::adapt_index_layout`] and [`IndexLayout::table_factory_change`] set its own
    /// layout (see [`index_layout::apply_to_files_found_at_open`]).
    opening_column_options: Options,
    /// Each column family's index and filter layout, and when to check them next.
    layout: LayoutWatch,
    /// Names of the state column families, for operations over all of them (flush).
    column_names: Mutex<BTreeSet<String>>,
    /// Each state column family's TTL compaction filter configuration, empty until the state says.
    ttl_slots: Mutex<HashMap<String, Arc<TtlFilterSlot>>>,
    /// The slot's cache and write-buffer manager, kept alive while the database uses them.
    memory: Arc<SlotMemory>,
    /// This store's column families (the default one too) in the slot's memtable ceiling.
    memtable_charge: ColumnFamilyCharge,
    /// Point puts and deletes not yet applied; see [`KeyedStore::db`].
    write_back: WriteBack,
    /// The slot memory the write-back buffer holds, reserved at the store's first point write
    /// (stores that never write one take none); `None` if the slot could not spare it, and then
    /// every write goes through at once.
    write_back_budget: OnceLock<Option<MemoryReservation>>,
    /// A checkpoint whose memtables are switched but whose files are not linked yet; every write
    /// to RocksDB links them first (see [`KeyedStore::writable_db`]).
    pending_checkpoints: PendingCheckpoints,
}

impl KeyedStore {
    /// Opens (creating if needed) the instance in `path`.
    pub fn open(path: &Path, config: StoreConfig) -> Result<Arc<KeyedStore>> {
        let opening_column_options = column_options(&config);
        let mut db_options = opening_column_options.clone();
        db_options.create_if_missing(true);
        db_options.create_missing_column_families(true);
        // Two flush threads let a checkpoint's synchronous flush of several column families
        // use both cores of a small machine while the task thread waits for it. RocksDB still
        // honours this deprecated knob, and it keeps compactions at the one thread that the
        // default `max_background_jobs` (2) gives; raising the jobs to get two flush threads
        // would also give six compaction threads.
        #[allow(deprecated)]
        db_options.set_max_background_flushes(2);
        // Checkpoints give durability, as in Flink's own RocksDB backend.
        let mut write = WriteOptions::default();
        write.disable_wal(true);
        let existing: BTreeSet<String> = Db::list_cf(&db_options, path)
            .unwrap_or_default()
            .into_iter()
            .filter(|name| name != rocksdb::DEFAULT_COLUMN_FAMILY_NAME)
            .collect();
        let mut ttl_slots = HashMap::new();
        let descriptors: Vec<ColumnFamilyDescriptor> = existing
            .iter()
            .map(|name| {
                let slot = Arc::new(TtlFilterSlot::default());
                let options = state_column_options(&opening_column_options, &slot);
                ttl_slots.insert(name.clone(), slot);
                ColumnFamilyDescriptor::new(name, options)
            })
            .collect();
        let db = Db::open_cf_descriptors(&db_options, path, descriptors)?;
        let memtable_charge = config.memory.charge_column_families(existing.len() + 1);
        let store = Arc::new(KeyedStore {
            db,
            options: SharedOptions { read: ReadOptions::default(), write },
            opening_column_options,
            layout: LayoutWatch::default(),
            column_names: Mutex::new(existing),
            ttl_slots: Mutex::new(ttl_slots),
            memory: config.memory,
            memtable_charge,
            write_back: WriteBack::new(config.write_back_bytes),
            write_back_budget: OnceLock::new(),
            pending_checkpoints: PendingCheckpoints::default(),
        });
        // Restored state may already be past the point where some blocks need partitions; the
        // other column families pin the blocks of the files they write from now on, as new ones do.
        store.adapt_index_layout()?;
        let full = IndexLayout::Full.table_factory_change();
        for name in store.column_family_names() {
            if store.layout.layout(&name) == IndexLayout::Full {
                store.change_table_factory(&name, &full)?;
            }
        }
        Ok(store)
    }

    /// The database, after the write-back buffer is applied to it: whatever reads or writes it
    /// next sees every earlier write, as if each had gone through at once. Only the point reads
    /// and writes of [`StateColumnFamily`] use the database without this.
    pub(crate) fn db(&self) -> Result<&Db> {
        self.apply_write_back()?;
        Ok(&self.db)
    }

    /// The database to write to: [`KeyedStore::db`], after the files of a checkpoint begun
    /// earlier are linked. Until then no write may reach a memtable, because a memtable that a
    /// write fills may be flushed to a file, and then that file would be in the checkpoint.
    pub(crate) fn writable_db(&self) -> Result<&Db> {
        self.link_pending_checkpoint();
        self.db()
    }

    /// Links the files of a checkpoint whose memtables were switched, if there is one. Its outcome
    /// is kept for [`crate::checkpoint::complete_checkpoint`]: a failed checkpoint fails that
    /// checkpoint, not the write that had to wait for it.
    ///
    /// Linking waits for the switched memtables, then writes the RocksDB checkpoint. Nothing has
    /// written to RocksDB since the switch, so its memtables are empty and the checkpoint's own
    /// flush is a no-op.
    pub(crate) fn link_pending_checkpoint(&self) {
        self.pending_checkpoints.link_with(|target| {
            self.await_switched_memtables()?;
            Checkpoint::new(&self.db)?.create_checkpoint(target)?;
            Ok(())
        });
    }

    pub(crate) fn pending_checkpoints(&self) -> &PendingCheckpoints {
        &self.pending_checkpoints
    }

    /// Whether point writes are held back: the buffer is enabled and its memory reserved, all of
    /// it or what the slot could spare down to [`MIN_WRITE_BACK_BYTES`].
    fn buffers_writes(&self) -> bool {
        self.write_back.is_enabled()
            && self
                .write_back_budget
                .get_or_init(|| {
                    let (reservation, granted) =
                        self.memory.reserve_shrinkable(0, self.write_back.limit_bytes(), MIN_WRITE_BACK_BYTES)?;
                    self.write_back.shrink_limit(granted);
                    Some(reservation)
                })
                .is_some()
    }

    /// Applies the write-back buffer as one write batch, each column family's keys in order.
    pub fn apply_write_back(&self) -> Result<()> {
        self.apply_writes_held_for(None)
    }

    /// Applies the held writes of the column family in write-back slot `only`, or of all.
    fn apply_writes_held_for(&self, only: Option<usize>) -> Result<()> {
        let count = self.write_back.flush(only, |writes| {
            self.link_pending_checkpoint();
            let mut batch = WriteBatch::default();
            for (name, entries) in writes {
                let cf = self.db.cf_handle(name).ok_or_else(|| {
                    NativeError::Internal(format!("column family '{name}' vanished with buffered writes"))
                })?;
                for (key, held) in entries {
                    match held {
                        HeldWrite::Put(value) => batch.put_cf(&cf, key, value),
                        HeldWrite::Delete => batch.delete_cf(&cf, key),
                        HeldWrite::Merge(operands) => batch.merge_cf(&cf, key, operands),
                    }
                }
            }
            Ok::<(), NativeError>(self.db.write_opt(batch, &self.options.write)?)
        })?;
        self.after_writes(count as u64)
    }

    /// The memory of the slot this store belongs to.
    pub fn memory(&self) -> &Arc<SlotMemory> {
        &self.memory
    }

    /// Writes every entry of an encoded batch (puts and deletes) in one atomic RocksDB write.
    /// Each entry's state index picks the column family from `columns`.
    pub fn apply_batch(&self, columns: &[&StateColumnFamily], encoded: &[u8]) -> Result<usize> {
        let mut batch = WriteBatch::default();
        let mut count = 0;
        for entry in batch::decode(encoded) {
            let entry = entry?;
            let column = columns.get(entry.state_index as usize).ok_or_else(|| {
                NativeError::CorruptBatch(format!(
                    "state index {} but only {} column families were given",
                    entry.state_index,
                    columns.len()
                ))
            })?;
            column.check_store(self)?;
            match entry.value {
                Some(value) => batch.put_cf(&column.cf, entry.key, value),
                None => batch.delete_cf(&column.cf, entry.key),
            }
            count += 1;
        }
        self.write(batch)?;
        Ok(count)
    }

    /// Writes `batch` atomically and counts its entries towards the next layout check. A failed
    /// check fails the call although the write landed; the task then restarts from its last
    /// checkpoint, as after any backend error, so nothing is half-applied.
    fn write(&self, batch: WriteBatch) -> Result<()> {
        let count = batch.len() as u64;
        self.writable_db()?.write_opt(batch, &self.options.write)?;
        self.after_writes(count)
    }

    fn after_writes(&self, count: u64) -> Result<()> {
        if self.layout.note_writes(count) {
            self.adapt_index_layout()?;
        }
        Ok(())
    }

    /// The index and filter layout of the files that column family `name` writes now.
    pub fn index_layout(&self, name: &str) -> IndexLayout {
        self.layout.layout(name)
    }

    /// Switches column families to partitioned index and filters, the largest first, while the
    /// full blocks of all of them take more than a share of the slot's cache
    /// ([`index_layout`](crate::index_layout)).
    pub fn adapt_index_layout(&self) -> Result<()> {
        let mut full = Vec::new();
        for name in self.column_family_names() {
            if self.layout.layout(&name) == IndexLayout::Partitioned {
                continue;
            }
            if let Some(cf) = self.db.cf_handle(&name) {
                let properties = self.db.property_value_cf(&cf, "rocksdb.aggregated-table-properties")?;
                full.push((name, properties.as_deref().and_then(index_layout::metadata_bytes).unwrap_or(0)));
            }
        }
        let sizes = full.iter().map(|(name, bytes)| (name.as_str(), *bytes));
        for name in index_layout::columns_to_partition(sizes, self.memory.cache_capacity()) {
            if self.layout.switch_to_partitioned(name) {
                self.change_table_factory(name, &IndexLayout::Partitioned.table_factory_change())?;
            }
        }
        Ok(())
    }

    /// Applies a `block_based_table_factory` change to column family `name`; it holds for the
    /// files opened from then on.
    fn change_table_factory(&self, name: &str, change: &str) -> Result<()> {
        if let Some(cf) = self.db.cf_handle(name) {
            self.db.set_options_cf(&cf, &[("block_based_table_factory", change)])?;
        }
        Ok(())
    }

    /// Creates the column family `name` unless it exists, with the options of every state column family.
    pub(crate) fn ensure_column_family(&self, name: &str) -> Result<()> {
        if self.db.cf_handle(name).is_none() {
            self.link_pending_checkpoint();
            let slot = Arc::new(TtlFilterSlot::default());
            self.db.create_cf(name, &state_column_options(&self.opening_column_options, &slot))?;
            // A new column family has no files: it starts full, as the files it writes will be.
            self.change_table_factory(name, &IndexLayout::Full.table_factory_change())?;
            self.memtable_charge.add(1);
            self.ttl_slots.lock().unwrap_or_else(|e| e.into_inner()).insert(name.to_owned(), slot);
        }
        self.column_names.lock().unwrap_or_else(|e| e.into_inner()).insert(name.to_owned());
        Ok(())
    }

    /// Sets (or, with `None`, clears) the TTL compaction filter of a state column family. It applies
    /// from the next compaction on. `periodic_compaction_seconds` makes RocksDB compact files
    /// older than that, so cold data is cleaned too; 0 switches it off.
    pub fn configure_ttl(
        &self,
        name: &str,
        config: Option<TtlFilterConfig>,
        periodic_compaction_seconds: Option<u64>,
    ) -> Result<()> {
        let slot = self.ttl_slots.lock().unwrap_or_else(|e| e.into_inner()).get(name).cloned();
        let (Some(slot), Some(cf)) = (slot, self.db.cf_handle(name)) else {
            return Err(NativeError::InvalidArgument(format!("no state column family '{name}' to configure TTL for")));
        };
        slot.set(config);
        if let Some(seconds) = periodic_compaction_seconds {
            self.db.set_options_cf(&cf, &[("periodic_compaction_seconds", &seconds.to_string())])?;
        }
        Ok(())
    }

    /// Names of the state column families, sorted.
    pub fn column_family_names(&self) -> Vec<String> {
        self.column_names.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect()
    }

    /// The options to open another instance's files with, such as the sources of rescaling.
    pub(crate) fn opening_column_options(&self) -> &Options {
        &self.opening_column_options
    }

    pub(crate) fn write_options(&self) -> &WriteOptions {
        &self.options.write
    }

    /// Flushes the memtables of every state column family to SST files.
    pub fn flush(&self) -> Result<()> {
        self.writable_db()?;
        self.switch_memtables()?;
        self.await_switched_memtables()
    }

    /// Makes the memtable of every state column family immutable and schedules its flush, without
    /// waiting for it. Writes from now on go to new memtables.
    ///
    /// All flushes are scheduled before any is waited for, so column families flush in parallel
    /// on the store's flush threads instead of one after the other.
    pub(crate) fn switch_memtables(&self) -> Result<()> {
        let mut schedule = rocksdb::FlushOptions::default();
        schedule.set_wait(false);
        for cf in self.state_column_families() {
            self.db.flush_cf_opt(&cf, &schedule)?;
        }
        Ok(())
    }

    /// Waits until every switched memtable is on disk. Waiting on a column family whose memtable
    /// was switched but not yet flushed waits for that flush; it switches nothing if the memtable
    /// being filled is empty.
    pub(crate) fn await_switched_memtables(&self) -> Result<()> {
        for cf in self.state_column_families() {
            self.db.flush_cf(&cf)?;
        }
        Ok(())
    }

    fn state_column_families(&self) -> Vec<Arc<BoundColumnFamily<'_>>> {
        self.column_family_names().iter().filter_map(|name| self.db.cf_handle(name)).collect()
    }
}

/// Level-0 files that start a compaction into the levels below.
const LEVEL0_COMPACTION_TRIGGER: i32 = 2;

fn column_options(config: &StoreConfig) -> Options {
    let mut table = BlockBasedOptions::default();
    table.set_block_cache(config.memory.cache());
    // Point lookups dominate keyed state access: a whole-key bloom filter avoids reading
    // data blocks for absent keys.
    table.set_bloom_filter(10.0, false);
    table.set_whole_key_filtering(true);
    table.set_cache_index_and_filter_blocks(true);
    table.set_cache_index_and_filter_blocks_with_high_priority(true);
    // A hash index in each data block finds a key's restart interval without the binary search
    // over restart points, which was a fifth of a cached point read.
    table.set_data_block_index_type(DataBlockIndexType::BinaryAndHash);
    table.set_data_block_hash_ratio(0.75);
    index_layout::apply_to_files_found_at_open(&mut table);
    let mut options = Options::default();
    options.set_block_based_table_factory(&table);
    options.set_merge_operator_associative(LIST_APPEND_MERGE_OPERATOR, list_append_merge);
    options.set_write_buffer_manager(config.memory.write_buffers());
    // Small memtables keep a skiplist search (every read and write does one) in the CPU cache;
    // a whole-key bloom filter lets reads of keys the memtable lacks skip the search.
    options.set_write_buffer_size(config.memory.memtable_bytes());
    options.set_max_write_buffer_number(MEMTABLES_PER_COLUMN_FAMILY as i32);
    options.set_memtable_prefix_bloom_ratio(0.05);
    options.set_memtable_whole_key_filtering(true);
    options.set_compression_type(rocksdb::DBCompressionType::Lz4);
    // A point read skips level-0 files by their bloom filters, but an iterator (MapState
    // entries, key-group scans) seeks into every one and reads a data block of each. Compacting
    // at two files instead of RocksDB's four leaves at most one between compactions.
    options.set_level_zero_file_num_compaction_trigger(LEVEL0_COMPACTION_TRIGGER);
    options
}

/// The options of a state column family: the shared ones plus a TTL filter reading `slot`.
fn state_column_options(shared: &Options, slot: &Arc<TtlFilterSlot>) -> Options {
    let mut options = shared.clone();
    options.set_compaction_filter_factory(TtlFilterFactory::new(Arc::clone(slot)));
    options
}

/// What a prefix scan's output starts with: a map state's few entries fit without regrowing it.
const SCAN_BATCH_START_BYTES: usize = 1 << 10;

/// Named as in Flink's RocksDB backend, whose list format this operator produces.
pub const LIST_APPEND_MERGE_OPERATOR: &str = "stringappendtest";

/// The byte Flink's `ListDelimitedSerializer` puts between serialized list elements.
pub const LIST_DELIMITER: u8 = b',';

/// Appends operands to the existing value with Flink's list delimiter, exactly like RocksDB's
/// `StringAppendTESTOperator` that Flink's RocksDB backend uses: list appends never read.
fn list_append_merge(_key: &[u8], existing: Option<&[u8]>, operands: &MergeOperands) -> Option<Vec<u8>> {
    let capacity = existing.map_or(0, <[u8]>::len) + operands.iter().map(|op| op.len() + 1).sum::<usize>();
    let mut out = Vec::with_capacity(capacity);
    let mut operands = operands.iter();
    match existing.or_else(|| operands.next()) {
        Some(first) => out.extend_from_slice(first),
        None => return Some(out),
    }
    for operand in operands {
        append_list_operand(&mut out, operand);
    }
    Some(out)
}

/// Appends one merge operand to a list value (or to earlier operands): the operator is
/// concatenation with the delimiter, which is associative, so the write-back buffer may combine
/// operands before RocksDB sees them.
fn append_list_operand(value: &mut Vec<u8>, operand: &[u8]) {
    value.push(LIST_DELIMITER);
    value.extend_from_slice(operand);
}

/// The smallest key greater than every key starting with `prefix`, if there is one.
pub fn prefix_upper_bound(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut bound = prefix.to_vec();
    while let Some(last) = bound.pop() {
        if last != u8::MAX {
            bound.push(last + 1);
            return Some(bound);
        }
    }
    None
}

/// One atomic write of puts and deletes over the column families of one store.
pub struct StoreWrite {
    store: Arc<KeyedStore>,
    batch: WriteBatch,
}

impl StoreWrite {
    /// An empty write to the store of `column_family`.
    pub fn to_store_of(column_family: &StateColumnFamily) -> StoreWrite {
        StoreWrite { store: Arc::clone(&column_family.store), batch: WriteBatch::default() }
    }

    pub fn put(&mut self, column_family: &StateColumnFamily, key: &[u8], value: &[u8]) -> Result<()> {
        column_family.check_store(&self.store)?;
        self.batch.put_cf(&column_family.cf, key, value);
        Ok(())
    }

    pub fn delete(&mut self, column_family: &StateColumnFamily, key: &[u8]) -> Result<()> {
        column_family.check_store(&self.store)?;
        self.batch.delete_cf(&column_family.cf, key);
        Ok(())
    }

    /// Deletes every key that starts with `prefix`, with one range deletion. Puts after it in the
    /// same write survive it.
    pub fn delete_prefix(&mut self, column_family: &StateColumnFamily, prefix: &[u8]) -> Result<()> {
        column_family.check_store(&self.store)?;
        let end = prefix_upper_bound(prefix)
            .ok_or_else(|| NativeError::Internal("a prefix of 0xff bytes only has no upper bound".into()))?;
        self.batch.delete_range_cf(&column_family.cf, prefix, &end[..]);
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.batch.is_empty()
    }

    /// Applies every put and delete at once.
    pub fn commit(self) -> Result<()> {
        self.store.write(self.batch)
    }
}

/// An iterator over one column family at the moment it was made (later writes are not seen).
pub struct EntryCursor<'a> {
    it: rocksdb::DBRawIteratorWithThreadMode<'a, Db>,
}

impl EntryCursor<'_> {
    /// The first entry whose key is `from` or after it, if any.
    pub fn first_from(&mut self, from: &[u8]) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        self.it.seek(from);
        let found = match (self.it.key(), self.it.value()) {
            (Some(key), Some(value)) => Some((key.to_vec(), value.to_vec())),
            _ => None,
        };
        self.it.status()?;
        Ok(found)
    }

    /// Hands every entry whose key starts with `prefix` to `visit`, in key order.
    pub fn entries_with_prefix(&mut self, prefix: &[u8], mut visit: impl FnMut(&[u8], &[u8])) -> Result<()> {
        self.it.seek(prefix);
        while let (Some(key), Some(value)) = (self.it.key(), self.it.value()) {
            if !key.starts_with(prefix) {
                break;
            }
            visit(key, value);
            self.it.next();
        }
        self.it.status()?;
        Ok(())
    }

    /// The greatest entry below `before` whose key starts with `prefix` and that `accept` takes,
    /// walking backwards from `before`; every key walked past is handed to `accept`.
    pub fn last_before(
        &mut self,
        prefix: &[u8],
        before: &[u8],
        mut accept: impl FnMut(&[u8]) -> Result<bool>,
    ) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        self.it.seek_for_prev(before);
        if self.it.key() == Some(before) {
            self.it.prev();
        }
        while let (Some(key), Some(value)) = (self.it.key(), self.it.value()) {
            if !key.starts_with(prefix) {
                break;
            }
            if accept(key)? {
                return Ok(Some((key.to_vec(), value.to_vec())));
            }
            self.it.prev();
        }
        self.it.status()?;
        Ok(None)
    }
}

/// The column family of one registered state, keeping its store alive.
///
/// Field order matters: the column family handle must be dropped before the store that owns
/// the database, and Rust drops fields in declaration order.
#[derive(Clone)]
pub struct StateColumnFamily {
    /// Kept between prefix scans; declared first so it is dropped before the store it reads.
    scan_iterator: KeptIterator,
    cf: Arc<BoundColumnFamily<'static>>,
    store: Arc<KeyedStore>,
    name: String,
    /// This column family's slot in the store's write-back buffer.
    write_slot: usize,
}

/// A value read by key: pinned where RocksDB holds it, or copied out of the write-back buffer.
pub enum StoredValue<'a> {
    Pinned(DBPinnableSlice<'a>),
    Buffered(Vec<u8>),
}

impl std::ops::Deref for StoredValue<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            StoredValue::Pinned(slice) => slice,
            StoredValue::Buffered(bytes) => bytes,
        }
    }
}

impl StateColumnFamily {
    /// Creates the column family `name`, or opens it if it already exists (after a restore).
    pub fn open(store: &Arc<KeyedStore>, name: &str) -> Result<StateColumnFamily> {
        if name.is_empty() || name == rocksdb::DEFAULT_COLUMN_FAMILY_NAME {
            return Err(NativeError::InvalidArgument(format!("'{name}' cannot name a state column family")));
        }
        store.ensure_column_family(name)?;
        let cf = store
            .db
            .cf_handle(name)
            .ok_or_else(|| NativeError::Internal(format!("column family '{name}' vanished after creation")))?;
        // SAFETY: the handle borrows `store.db`. We keep an `Arc` of the store in the same
        // struct, declared after `cf`, so the database outlives the handle.
        let cf: Arc<BoundColumnFamily<'static>> = unsafe { std::mem::transmute(cf) };
        let write_slot = store.write_back.column_slot(name);
        Ok(StateColumnFamily {
            scan_iterator: KeptIterator::default(),
            cf,
            store: Arc::clone(store),
            name: name.to_owned(),
            write_slot,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn store(&self) -> &Arc<KeyedStore> {
        &self.store
    }

    pub(crate) fn cf(&self) -> &Arc<BoundColumnFamily<'static>> {
        &self.cf
    }

    fn check_store(&self, store: &KeyedStore) -> Result<()> {
        if std::ptr::eq(Arc::as_ptr(&self.store), store) {
            Ok(())
        } else {
            Err(NativeError::Internal(format!("column family '{}' belongs to another store", self.name)))
        }
    }

    /// The value of `key`: its held write if it has one (with held merge operands applied to
    /// what RocksDB holds), else what RocksDB holds.
    pub fn get(&self, key: &[u8]) -> Result<Option<StoredValue<'_>>> {
        let store = &self.store;
        let held = store.write_back.read(self.write_slot, key, |held| -> Result<Option<Option<Vec<u8>>>> {
            match held {
                None => Ok(None),
                Some(HeldWrite::Put(value)) => Ok(Some(Some(value.to_vec()))),
                Some(HeldWrite::Delete) => Ok(Some(None)),
                Some(HeldWrite::Merge(operands)) => {
                    let stored = store.db.get_pinned_cf_opt(&self.cf, key, &store.options.read)?;
                    Ok(Some(Some(match stored {
                        Some(stored) => {
                            let mut value = stored.to_vec();
                            append_list_operand(&mut value, operands);
                            value
                        }
                        None => operands.to_vec(),
                    })))
                }
            }
        })?;
        if let Some(held) = held {
            return Ok(held.map(StoredValue::Buffered));
        }
        let pinned = store.db.get_pinned_cf_opt(&self.cf, key, &store.options.read)?;
        Ok(pinned.map(StoredValue::Pinned))
    }

    /// Puts `value` under `key`, held in the write-back buffer if the store has one.
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<()> {
        self.write_point(key, Some(value))
    }

    /// Deletes `key`, held in the write-back buffer if the store has one.
    pub fn delete(&self, key: &[u8]) -> Result<()> {
        self.write_point(key, None)
    }

    fn write_point(&self, key: &[u8], value: Option<&[u8]>) -> Result<()> {
        let store = &self.store;
        if store.buffers_writes() {
            if store.write_back.write(self.write_slot, key, value) {
                store.apply_write_back()?;
            }
            return Ok(());
        }
        let db = store.writable_db()?;
        match value {
            Some(value) => db.put_cf_opt(&self.cf, key, value, &store.options.write)?,
            None => db.delete_cf_opt(&self.cf, key, &store.options.write)?,
        }
        store.after_writes(1)
    }

    /// The database with this column family's buffered writes applied: reads of it and writes to
    /// it see, and come after, every earlier write. Writes of other column families may wait.
    fn db(&self) -> Result<&Db> {
        if self.store.write_back.holds_any(self.write_slot) {
            self.store.apply_writes_held_for(Some(self.write_slot))?;
        }
        Ok(&self.store.db)
    }

    /// Looks up every key of an encoded key list in one RocksDB multi-get and returns an
    /// encoded value list in the same order.
    pub fn multi_get(&self, encoded_keys: &[u8]) -> Result<Vec<u8>> {
        let keys = batch::decode_keys(encoded_keys).collect::<Result<Vec<&[u8]>>>()?;
        let results = self.db()?.batched_multi_get_cf_opt(&self.cf, keys.iter(), false, &self.store.options.read);
        let mut out = Vec::with_capacity(keys.len() * 16);
        for result in results {
            batch::encode_optional_value(&mut out, result?.as_deref());
        }
        Ok(out)
    }

    /// The values of `keys`, in order, read with one RocksDB multi-get. The slices borrow this
    /// column family, so the values are not copied.
    pub fn multi_get_pinned<K: AsRef<[u8]>>(&self, keys: &[K]) -> Result<Vec<Option<DBPinnableSlice<'_>>>> {
        let results = self.db()?.batched_multi_get_cf_opt(&self.cf, keys.iter(), false, &self.store.options.read);
        results.into_iter().map(|result| result.map_err(NativeError::from)).collect()
    }

    /// Writes every `(key, value)` pair in one atomic write.
    pub fn put_all<'a>(&self, entries: impl IntoIterator<Item = (&'a [u8], &'a [u8])>) -> Result<()> {
        let mut batch = WriteBatch::default();
        for (key, value) in entries {
            batch.put_cf(&self.cf, key, value);
        }
        self.store.write(batch)
    }

    /// Deletes every key of an encoded key list in one atomic write.
    pub fn delete_all(&self, encoded_keys: &[u8]) -> Result<usize> {
        let mut batch = WriteBatch::default();
        let mut count = 0;
        for key in batch::decode_keys(encoded_keys) {
            batch.delete_cf(&self.cf, key?);
            count += 1;
        }
        self.store.write(batch)?;
        Ok(count)
    }

    /// Appends `value` to the list stored under `key` without reading it, held in the write-back
    /// buffer if the store has one.
    pub fn merge(&self, key: &[u8], value: &[u8]) -> Result<()> {
        let store = &self.store;
        if store.buffers_writes() {
            if store.write_back.merge(self.write_slot, key, value, &[LIST_DELIMITER]) {
                store.apply_write_back()?;
            }
            return Ok(());
        }
        store.writable_db()?.merge_cf_opt(&self.cf, key, value, &store.options.write)?;
        store.after_writes(1)
    }

    fn prefix_iterator(&self, prefix: &[u8]) -> Result<rocksdb::DBRawIteratorWithThreadMode<'_, Db>> {
        let mut read = ReadOptions::default();
        if let Some(bound) = prefix_upper_bound(prefix) {
            read.set_iterate_upper_bound(bound);
        }
        Ok(self.db()?.raw_iterator_cf_opt(&self.cf, read))
    }

    /// Encodes (state index 0) the entries whose keys start with `prefix`, in key order,
    /// beginning after `resume_after` if given, until at least `max_bytes` are encoded. A batch
    /// shorter than `max_bytes` holds every remaining entry.
    pub fn scan_prefix(&self, prefix: &[u8], resume_after: Option<&[u8]>, max_bytes: usize) -> Result<Vec<u8>> {
        let db = self.db()?;
        let scan = |it: &mut rocksdb::DBRawIteratorWithThreadMode<'_, Db>| {
            match resume_after {
                Some(after) => {
                    it.seek(after);
                    if it.key() == Some(after) {
                        it.next();
                    }
                }
                None => it.seek(prefix),
            }
            let mut out = Vec::with_capacity(max_bytes.min(SCAN_BATCH_START_BYTES));
            while out.len() < max_bytes {
                match (it.key(), it.value()) {
                    (Some(key), Some(value)) if key.starts_with(prefix) => {
                        batch::encode_entry(&mut out, 0, key, value);
                        it.next();
                    }
                    _ => break,
                }
            }
            it.status()?;
            Ok(out)
        };
        // SAFETY: `scan_iterator` is declared before `store` in this struct, so the database
        // outlives the iterator it keeps.
        unsafe { self.scan_iterator.scan(|| db.raw_iterator_cf(&self.cf), scan) }
    }

    /// The greatest key that starts with `prefix` and, if `before` is given, is below it.
    pub fn last_key_with_prefix(&self, prefix: &[u8], before: Option<&[u8]>) -> Result<Option<Vec<u8>>> {
        let mut read = ReadOptions::default();
        match (before, prefix_upper_bound(prefix)) {
            (Some(before), Some(bound)) => read.set_iterate_upper_bound(before.min(&bound[..]).to_vec()),
            (Some(before), None) => read.set_iterate_upper_bound(before.to_vec()),
            (None, Some(bound)) => read.set_iterate_upper_bound(bound),
            (None, None) => {}
        }
        let mut it = self.db()?.raw_iterator_cf_opt(&self.cf, read);
        // RocksDB's SeekToLast honours the iterate upper bound: it lands on the last key below
        // it, which starts with the prefix if any such key does.
        it.seek_to_last();
        let found = it.key().filter(|key| key.starts_with(prefix)).map(<[u8]>::to_vec);
        it.status()?;
        Ok(found)
    }

    /// A cursor over this column family as it is now, for many seeks: creating a RocksDB
    /// iterator (its memtable and file iterators) costs far more than one seek.
    pub fn cursor(&self) -> Result<EntryCursor<'_>> {
        Ok(EntryCursor { it: self.db()?.raw_iterator_cf_opt(&self.cf, ReadOptions::default()) })
    }

    /// Deletes every entry whose key starts with `prefix` in one atomic write.
    pub fn delete_prefix(&self, prefix: &[u8]) -> Result<u64> {
        let mut it = self.prefix_iterator(prefix)?;
        it.seek(prefix);
        let mut batch = WriteBatch::default();
        let mut count = 0;
        while let Some(key) = it.key() {
            if !key.starts_with(prefix) {
                break;
            }
            batch.delete_cf(&self.cf, key);
            count += 1;
            it.next();
        }
        it.status()?;
        self.store.write(batch)?;
        Ok(count)
    }

    /// An integer RocksDB property of this column family, such as
    /// `rocksdb.total-sst-files-size`; `None` if RocksDB does not know the name.
    pub fn int_property(&self, name: &str) -> Result<Option<u64>> {
        let name = std::ffi::CString::new(name)
            .map_err(|_| NativeError::InvalidArgument(format!("property name '{name}' contains a NUL byte")))?;
        Ok(self.store.db.property_int_value_cf(&self.cf, name.as_c_str())?)
    }

    /// Compacts the whole column family, running its compaction filter over every entry.
    pub fn compact(&self) -> Result<()> {
        let mut options = rocksdb::CompactOptions::default();
        // Rewrites the bottommost level too, so filters see every file.
        options.set_bottommost_level_compaction(rocksdb::BottommostLevelCompaction::Force);
        self.store.writable_db()?;
        self.db()?.compact_range_cf_opt(&self.cf, None::<&[u8]>, None::<&[u8]>, &options);
        Ok(())
    }

    /// Counts the live entries by a full scan. For tests and diagnostics, not the hot path.
    pub fn count_entries(&self) -> Result<u64> {
        let mut it = self.db()?.raw_iterator_cf(&self.cf);
        it.seek_to_first();
        let mut count = 0;
        while it.valid() {
            count += 1;
            it.next();
        }
        it.status()?;
        Ok(count)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn test_config() -> StoreConfig {
        StoreConfig { memory: Arc::new(SlotMemory::new(16 << 20, 0.5, 4 << 20).unwrap()), write_back_bytes: 64 << 10 }
    }

    #[test]
    fn put_get_delete_in_one_column() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let column = StateColumnFamily::open(&store, "value-state").unwrap();
        assert!(column.get(b"k").unwrap().is_none());
        column.put(b"k", b"v").unwrap();
        assert_eq!(&*column.get(b"k").unwrap().unwrap(), b"v");
        assert_eq!(column.count_entries().unwrap(), 1);
        column.delete(b"k").unwrap();
        assert!(column.get(b"k").unwrap().is_none());
    }

    fn index_partitions(store: &KeyedStore, name: &str) -> u64 {
        let cf = store.db.cf_handle(name).unwrap();
        let properties = store.db.property_value_cf(&cf, "rocksdb.aggregated-table-properties").unwrap().unwrap();
        // Files with a full index do not report the count.
        properties
            .split("; ")
            .find(|entry| entry.starts_with("# index partitions"))
            .map_or(0, |entry| entry.rsplit_once('=').unwrap().1.trim().parse().unwrap())
    }

    fn fill(column: &StateColumnFamily, keys: std::ops::Range<u32>) {
        for i in keys {
            column.put(&i.to_be_bytes(), &[i as u8; 100]).unwrap();
        }
    }

    #[test]
    fn the_largest_column_family_partitions_once_full_blocks_outgrow_a_share_of_the_cache() {
        let dir = crate::test_support::TempDir::new();
        let config =
            StoreConfig { memory: Arc::new(SlotMemory::new(1 << 20, 0.5, 64 << 10).unwrap()), write_back_bytes: 0 };
        {
            let store = KeyedStore::open(dir.path(), config.clone()).unwrap();
            let column = StateColumnFamily::open(&store, "big").unwrap();
            let small = StateColumnFamily::open(&store, "small").unwrap();
            fill(&column, 0..2_000);
            fill(&small, 0..1_000);
            store.flush().unwrap();
            store.adapt_index_layout().unwrap();
            assert_eq!(store.index_layout("big"), IndexLayout::Full);
            assert_eq!(index_partitions(&store, "big"), 0);
            fill(&column, 2_000..300_000);
            store.flush().unwrap();
            store.adapt_index_layout().unwrap();
            assert_eq!(store.index_layout("big"), IndexLayout::Partitioned);
            assert_eq!(store.index_layout("small"), IndexLayout::Full);
            fill(&column, 300_000..310_000);
            fill(&small, 1_000..2_000);
            store.flush().unwrap();
            assert!(index_partitions(&store, "big") > 0);
            assert_eq!(index_partitions(&store, "small"), 0);
            let later = StateColumnFamily::open(&store, "created-after").unwrap();
            fill(&later, 0..1_000);
            store.flush().unwrap();
            assert_eq!(store.index_layout("created-after"), IndexLayout::Full);
            assert_eq!(index_partitions(&store, "created-after"), 0);
            for i in [0u32, 1_999, 150_000, 305_000] {
                assert_eq!(&*column.get(&i.to_be_bytes()).unwrap().unwrap(), &[i as u8; 100][..]);
            }
            assert!(column.get(&400_000u32.to_be_bytes()).unwrap().is_none());
            assert_eq!(&*small.get(&1_500u32.to_be_bytes()).unwrap().unwrap(), &[1_500u32 as u8; 100][..]);
            // Rewritten below level 0, every file is partitioned, and its pinned top-level index
            // sits in the slot's cache: the switch kept the shared cache.
            store.db.compact_range_cf(&store.db.cf_handle("big").unwrap(), None::<&[u8]>, None::<&[u8]>);
            assert!(column.get(&7u32.to_be_bytes()).unwrap().is_some());
            assert!(config.memory.pinned_usage() > 0);
        }
        let reopened = KeyedStore::open(dir.path(), config).unwrap();
        assert_eq!(reopened.index_layout("big"), IndexLayout::Partitioned);
        assert_eq!(reopened.index_layout("small"), IndexLayout::Full);
    }

    /// Index and filter bytes of the files of `column`, from its aggregated table properties.
    fn metadata_bytes(store: &KeyedStore, column: &str) -> u64 {
        let cf = store.db.cf_handle(column).unwrap();
        let properties = store.db.property_value_cf(&cf, "rocksdb.aggregated-table-properties").unwrap().unwrap();
        index_layout::metadata_bytes(&properties).unwrap()
    }

    #[test]
    fn full_blocks_are_pinned_in_files_a_store_writes_but_not_in_those_it_finds_at_open() {
        // The slot's cache also holds its memtables' charge (pinned, 256 KiB at a time), so the
        // state is large enough that its index and filter blocks (about 1.5 MiB) stand out.
        let dir = crate::test_support::TempDir::new();
        let config =
            || StoreConfig { memory: Arc::new(SlotMemory::new(64 << 20, 0.5, 4 << 20).unwrap()), write_back_bytes: 0 };
        let fill = |column: &StateColumnFamily, keys: std::ops::Range<u32>| {
            for i in keys {
                column.put(&i.to_be_bytes(), &[1; 16]).unwrap();
            }
        };
        let written = config();
        {
            let store = KeyedStore::open(dir.path(), written.clone()).unwrap();
            let column = StateColumnFamily::open(&store, "values").unwrap();
            fill(&column, 0..600_000);
            column.compact().unwrap();
            let metadata = metadata_bytes(&store, "values");
            assert!(written.memory.pinned_usage() as u64 > metadata, "a new store pins every file's blocks");
        }
        let reopened = config();
        let store = KeyedStore::open(dir.path(), reopened.clone()).unwrap();
        let column = StateColumnFamily::open(&store, "values").unwrap();
        assert!(column.get(&7u32.to_be_bytes()).unwrap().is_some());
        let metadata = metadata_bytes(&store, "values");
        assert!((reopened.memory.pinned_usage() as u64) < metadata / 2, "files found at open are not pinned");
        fill(&column, 600_000..610_000);
        column.compact().unwrap();
        assert!(column.get(&605_000u32.to_be_bytes()).unwrap().is_some());
        assert!(reopened.memory.pinned_usage() as u64 > metadata, "files written after the check are pinned");
    }

    #[test]
    fn stores_share_the_slot_cache() {
        let config = test_config();
        let (a, b) = (crate::test_support::TempDir::new(), crate::test_support::TempDir::new());
        let first = KeyedStore::open(a.path(), config.clone()).unwrap();
        let second = KeyedStore::open(b.path(), config.clone()).unwrap();
        let (x, y) = (StateColumnFamily::open(&first, "x").unwrap(), StateColumnFamily::open(&second, "y").unwrap());
        for i in 0..2000u32 {
            x.put(&i.to_be_bytes(), &[7; 100]).unwrap();
            y.put(&i.to_be_bytes(), &[8; 100]).unwrap();
        }
        // Both stores' memtables are charged to the one shared budget.
        assert!(config.memory.write_buffer_usage() > 0);
        assert!(config.memory.cache_usage() >= config.memory.write_buffer_usage());
    }

    #[test]
    fn the_slot_counts_every_open_column_family_towards_its_memtable_ceiling() {
        let config =
            StoreConfig { memory: Arc::new(SlotMemory::new(1 << 30, 0.5, 1 << 20).unwrap()), write_back_bytes: 0 };
        let per_family = (9 << 20) / 4;
        let dir = crate::test_support::TempDir::new();
        {
            let store = KeyedStore::open(dir.path(), config.clone()).unwrap();
            assert_eq!(config.memory.memtable_ceiling(), per_family, "the default column family counts too");
            StateColumnFamily::open(&store, "x").unwrap();
            StateColumnFamily::open(&store, "x").unwrap();
            StateColumnFamily::open(&store, "y").unwrap();
            assert_eq!(config.memory.memtable_ceiling(), 3 * per_family);
        }
        assert_eq!(config.memory.memtable_ceiling(), 0, "a closed store leaves the ceiling");
        let _reopened = KeyedStore::open(dir.path(), config.clone()).unwrap();
        assert_eq!(config.memory.memtable_ceiling(), 3 * per_family, "restored column families count");
    }

    #[test]
    fn columns_are_isolated_and_reopen_after_restart() {
        let dir = crate::test_support::TempDir::new();
        {
            let store = KeyedStore::open(dir.path(), test_config()).unwrap();
            let a = StateColumnFamily::open(&store, "a").unwrap();
            let b = StateColumnFamily::open(&store, "b").unwrap();
            a.put(b"k", b"in-a").unwrap();
            assert!(b.get(b"k").unwrap().is_none());
            store.flush().unwrap();
        }
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let a = StateColumnFamily::open(&store, "a").unwrap();
        assert_eq!(&*a.get(b"k").unwrap().unwrap(), b"in-a");
    }

    #[test]
    fn last_key_with_prefix_stays_in_the_prefix_and_below_the_bound() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let column = StateColumnFamily::open(&store, "c").unwrap();
        for key in [&b"a1"[..], b"a2", b"a3", b"b1"] {
            column.put(key, b"v").unwrap();
        }
        assert_eq!(column.last_key_with_prefix(b"a", None).unwrap(), Some(b"a3".to_vec()));
        assert_eq!(column.last_key_with_prefix(b"a", Some(b"a3")).unwrap(), Some(b"a2".to_vec()));
        assert_eq!(column.last_key_with_prefix(b"a", Some(b"a1")).unwrap(), None);
        assert_eq!(column.last_key_with_prefix(b"c", None).unwrap(), None);
        assert_eq!(column.last_key_with_prefix(b"0", None).unwrap(), None);
    }

    #[test]
    fn apply_batch_puts_and_deletes_in_one_write() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let column = StateColumnFamily::open(&store, "c").unwrap();
        column.put(b"old", b"x").unwrap();
        let mut buf = Vec::new();
        batch::encode_delete(&mut buf, 0, b"old");
        batch::encode_entry(&mut buf, 0, b"new", b"y");
        assert_eq!(store.apply_batch(&[&column], &buf).unwrap(), 2);
        assert!(column.get(b"old").unwrap().is_none());
        assert_eq!(&*column.get(b"new").unwrap().unwrap(), b"y");
    }

    #[test]
    fn apply_batch_routes_entries_by_state_index() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let a = StateColumnFamily::open(&store, "a").unwrap();
        let b = StateColumnFamily::open(&store, "b").unwrap();
        let mut buf = Vec::new();
        batch::encode_entry(&mut buf, 0, b"k1", b"v1");
        batch::encode_entry(&mut buf, 1, b"k2", b"v2");
        assert_eq!(store.apply_batch(&[&a, &b], &buf).unwrap(), 2);
        assert_eq!(&*a.get(b"k1").unwrap().unwrap(), b"v1");
        assert_eq!(&*b.get(b"k2").unwrap().unwrap(), b"v2");

        let mut bad = Vec::new();
        batch::encode_entry(&mut bad, 7, b"k", b"v");
        let err = store.apply_batch(&[&a, &b], &bad).unwrap_err();
        assert!(err.to_string().contains("state index 7"), "{err}");
    }

    #[test]
    fn merge_appends_with_flinks_list_delimiter() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let list = StateColumnFamily::open(&store, "list").unwrap();
        list.merge(b"k", b"a").unwrap();
        list.merge(b"k", b"b").unwrap();
        assert_eq!(&*list.get(b"k").unwrap().unwrap(), b"a,b");
        store.flush().unwrap();
        list.merge(b"k", b"c").unwrap();
        assert_eq!(&*list.get(b"k").unwrap().unwrap(), b"a,b,c");
        list.put(b"k", b"x").unwrap();
        list.merge(b"k", b"y").unwrap();
        assert_eq!(&*list.get(b"k").unwrap().unwrap(), b"x,y");
    }

    fn decoded_keys(bytes: &[u8]) -> Vec<Vec<u8>> {
        batch::decode(bytes).map(|e| e.unwrap().key.to_vec()).collect()
    }

    #[test]
    fn prefix_scan_resumes_and_stops_at_the_prefix() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let map = StateColumnFamily::open(&store, "map").unwrap();
        for key in [&b"a1"[..], b"b1", b"b2", b"b3", b"c1", &[b'b', 0xff][..]] {
            map.put(key, b"v").unwrap();
        }
        let all = map.scan_prefix(b"b", None, 1 << 20).unwrap();
        assert_eq!(decoded_keys(&all), vec![b"b1".to_vec(), b"b2".to_vec(), b"b3".to_vec(), vec![b'b', 0xff]]);
        let first = map.scan_prefix(b"b", None, 1).unwrap();
        assert_eq!(decoded_keys(&first), vec![b"b1".to_vec()]);
        let rest = map.scan_prefix(b"b", Some(b"b1"), 1 << 20).unwrap();
        assert_eq!(decoded_keys(&rest).len(), 3);
        assert_eq!(map.delete_prefix(b"b").unwrap(), 4);
        assert!(map.scan_prefix(b"b", None, 1 << 20).unwrap().is_empty());
        assert_eq!(map.count_entries().unwrap(), 2);
    }

    /// The scan iterator is kept between scans, so each scan must see every write, delete,
    /// flush and compaction since the last one, with and without the write-back buffer.
    #[test]
    fn prefix_scans_see_what_changed_since_the_last_scan() {
        for write_back_bytes in [0, 64 << 10] {
            let dir = crate::test_support::TempDir::new();
            let config = StoreConfig { write_back_bytes, ..test_config() };
            let store = KeyedStore::open(dir.path(), config).unwrap();
            let map = StateColumnFamily::open(&store, "map").unwrap();
            let mut model = std::collections::BTreeMap::new();
            let mut random = crate::test_support::Xorshift::new(write_back_bytes as u64 + 7);
            for step in 0..20_000u32 {
                let key = [random.below(8) as u8, random.below(16) as u8];
                if random.below(3) == 0 {
                    map.delete(&key).unwrap();
                    model.remove(key.as_slice());
                } else {
                    let value = step.to_be_bytes();
                    map.put(&key, &value).unwrap();
                    model.insert(key.to_vec(), value.to_vec());
                }
                match step % 1_000 {
                    500 => store.flush().unwrap(),
                    999 => map.compact().unwrap(),
                    _ => {}
                }
                let prefix = [random.below(8) as u8];
                let scanned: Vec<(Vec<u8>, Vec<u8>)> = batch::decode(&map.scan_prefix(&prefix, None, 1 << 20).unwrap())
                    .map(|entry| entry.map(|entry| (entry.key.to_vec(), entry.value.unwrap().to_vec())).unwrap())
                    .collect();
                let expected: Vec<(Vec<u8>, Vec<u8>)> = model
                    .range(prefix.to_vec()..vec![prefix[0] + 1])
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect();
                assert_eq!(scanned, expected, "step {step}, write-back {write_back_bytes}");
            }
        }
    }

    fn key_list(keys: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for key in keys {
            out.extend_from_slice(&(key.len() as u32).to_be_bytes());
            out.extend_from_slice(key);
        }
        out
    }

    #[test]
    fn multi_get_keeps_order_and_marks_absent_keys() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let column = StateColumnFamily::open(&store, "values").unwrap();
        column.put(b"b", b"2").unwrap();
        column.put(b"a", b"1").unwrap();
        let values = column.multi_get(&key_list(&[b"b", b"zz", b"a"])).unwrap();
        let mut expected = Vec::new();
        batch::encode_optional_value(&mut expected, Some(b"2"));
        batch::encode_optional_value(&mut expected, None);
        batch::encode_optional_value(&mut expected, Some(b"1"));
        assert_eq!(values, expected);
        assert_eq!(column.delete_all(&key_list(&[b"a", b"b"])).unwrap(), 2);
        assert_eq!(column.count_entries().unwrap(), 0);
    }

    #[test]
    fn int_properties_report_sst_bytes() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let column = StateColumnFamily::open(&store, "sized").unwrap();
        assert_eq!(column.int_property("rocksdb.total-sst-files-size").unwrap(), Some(0));
        for i in 0..1000u32 {
            column.put(&i.to_be_bytes(), &[1; 64]).unwrap();
        }
        store.flush().unwrap();
        assert!(column.int_property("rocksdb.total-sst-files-size").unwrap().unwrap() > 0);
        assert_eq!(column.int_property("rocksdb.no-such-property").unwrap(), None);
    }

    #[test]
    fn upper_bound_of_prefixes() {
        assert_eq!(prefix_upper_bound(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_upper_bound(&[1, 0xff]), Some(vec![2]));
        assert_eq!(prefix_upper_bound(&[0xff, 0xff]), None);
    }

    #[test]
    fn invalid_names_are_errors() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        assert!(StateColumnFamily::open(&store, "default").is_err());
        assert!(StateColumnFamily::open(&store, "").is_err());
    }
}
