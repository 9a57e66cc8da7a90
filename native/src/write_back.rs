//! Point writes of one store held back, coalesced by key, and applied as one sorted write batch.
//!
//! A per-record Flink operator writes its value state once per record, and each single `Put`
//! pays RocksDB's write path and a skiplist search from the top of a memtable that random keys
//! keep out of the CPU cache. Held here, a key written again before the next flush costs one
//! hash-map update; a flush sorts each column family's keys, so the memtable inserts them in order
//! and each insert starts its search where the previous one ended.
//!
//! The buffer is invisible to readers: a point read looks here first, and the store applies the
//! buffer before anything else reads or writes RocksDB (see `KeyedStore::db`). Like a memtable
//! without a write-ahead log, what the buffer holds is lost only with the store itself; a
//! checkpoint applies it first.
//!
//! Keys and values live in one arena, a byte vector the table's entries point into, so holding a
//! new key allocates nothing and a flush frees nothing: it clears the arena and keeps its
//! capacity for the next round.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use hashbrown::HashTable;

use crate::word_hash::WordHashBuilder;

/// What one entry costs beyond its bytes in the arena: its table slot, with the table's spare
/// capacity.
const ENTRY_OVERHEAD_BYTES: usize = 64;

/// The pending write of one key, as the buffer shows it: what a flush hands RocksDB for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeldWrite<'a> {
    Put(&'a [u8]),
    Delete,
    /// Merge operands not yet applied, joined by the store's merge separator.
    Merge(&'a [u8]),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Put,
    Delete,
    Merge,
}

/// A run of the arena's bytes.
#[derive(Clone, Copy, Default)]
struct Span {
    start: usize,
    len: usize,
}

impl Span {
    fn end(self) -> usize {
        self.start + self.len
    }
}

/// One held key: where its key and value bytes are in the arena.
#[derive(Clone, Copy)]
struct Entry {
    hash: u64,
    key: Span,
    kind: Kind,
    value: Span,
}

/// The bytes of every held key and value, appended. A value that outgrows its place moves to
/// the end, and what it leaves counts towards the buffer's limit until the arena is cleared.
#[derive(Default)]
struct Arena {
    bytes: Vec<u8>,
}

impl Arena {
    fn get(&self, span: Span) -> &[u8] {
        &self.bytes[span.start..span.end()]
    }

    fn push(&mut self, bytes: &[u8]) -> Span {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(bytes);
        Span { start, len: bytes.len() }
    }

    /// `bytes` in place of `old` if they fit there, else at the end.
    fn replace(&mut self, old: Span, bytes: &[u8]) -> Span {
        if bytes.len() > old.len {
            return self.push(bytes);
        }
        self.bytes[old.start..old.start + bytes.len()].copy_from_slice(bytes);
        Span { start: old.start, len: bytes.len() }
    }

    /// `span` followed by `separator` and `operand`, at the end of the arena (`span` moves there
    /// unless it already ends it).
    fn append(&mut self, span: Span, separator: &[u8], operand: &[u8]) -> Span {
        let span = if span.end() == self.bytes.len() {
            span
        } else {
            let start = self.bytes.len();
            self.bytes.extend_from_within(span.start..span.end());
            Span { start, len: span.len }
        };
        self.bytes.extend_from_slice(separator);
        self.bytes.extend_from_slice(operand);
        Span { start: span.start, len: self.bytes.len() - span.start }
    }
}

/// The pending writes of one column family, by key.
struct ColumnWrites {
    name: String,
    entries: HashTable<Entry>,
}

#[derive(Default)]
struct Pending {
    columns: Vec<ColumnWrites>,
    arena: Arena,
}

impl Pending {
    fn held(&self, entry: &Entry) -> HeldWrite<'_> {
        match entry.kind {
            Kind::Put => HeldWrite::Put(self.arena.get(entry.value)),
            Kind::Delete => HeldWrite::Delete,
            Kind::Merge => HeldWrite::Merge(self.arena.get(entry.value)),
        }
    }

    fn find(&self, slot: usize, key: &[u8]) -> Option<&Entry> {
        let arena = &self.arena;
        self.columns[slot].entries.find(hash(key), |entry| arena.get(entry.key) == key)
    }
}

fn hash(key: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    WordHashBuilder::default().hash_one(key)
}

/// The write-back buffer of one store. Column families are named by a slot number that
/// [`WriteBack::column_slot`] hands out once per name.
pub struct WriteBack {
    pending: Mutex<Pending>,
    /// Entries held now; read without the lock, so that a read finds an empty buffer for free.
    entries: AtomicUsize,
    /// The configured size until [`WriteBack::shrink_limit`] sets what the slot could spare.
    limit_bytes: AtomicUsize,
}

/// The writes a flush hands over: for each column family with pending writes, its name and its
/// entries in key order.
pub type DrainedWrites<'a> = Vec<(&'a str, Vec<(&'a [u8], HeldWrite<'a>)>)>;

impl WriteBack {
    /// A buffer that asks to be flushed once it holds `limit_bytes`; 0 holds nothing back.
    pub fn new(limit_bytes: usize) -> WriteBack {
        WriteBack {
            pending: Mutex::new(Pending::default()),
            entries: AtomicUsize::new(0),
            limit_bytes: AtomicUsize::new(limit_bytes),
        }
    }

    pub fn is_enabled(&self) -> bool {
        self.limit_bytes() > 0
    }

    /// The bytes after which the buffer asks to be flushed.
    pub fn limit_bytes(&self) -> usize {
        self.limit_bytes.load(Ordering::Relaxed)
    }

    /// Lowers the limit to `bytes`, what the memory budget granted; the next write past it flushes.
    pub fn shrink_limit(&self, bytes: usize) {
        self.limit_bytes.fetch_min(bytes, Ordering::Relaxed);
    }

    /// The slot of the column family `name`, the same for every call with that name.
    pub fn column_slot(&self, name: &str) -> usize {
        let mut pending = self.lock();
        if let Some(slot) = pending.columns.iter().position(|column| column.name == name) {
            return slot;
        }
        pending.columns.push(ColumnWrites { name: name.to_owned(), entries: HashTable::new() });
        pending.columns.len() - 1
    }

    /// Holds a put (`Some`) or delete (`None`) of `key` in the column family `slot`, replacing an
    /// earlier one of the same key. Returns whether the buffer is full and should be flushed.
    pub fn write(&self, slot: usize, key: &[u8], value: Option<&[u8]>) -> bool {
        self.hold(slot, key, |arena, held| match (value, held) {
            (Some(value), Some((_, old))) => (Kind::Put, arena.replace(old, value)),
            (Some(value), None) => (Kind::Put, arena.push(value)),
            (None, _) => (Kind::Delete, Span::default()),
        })
    }

    /// Holds a merge of `operand` into `key` in the column family `slot`, as the store's merge
    /// operator would join them: operands and a value concatenate with `separator` between them
    /// (an associative operator). A held put or merge of the key takes the operand in, and a held
    /// delete becomes a put of the operand. Returns whether the buffer is full and should be
    /// flushed.
    pub fn merge(&self, slot: usize, key: &[u8], operand: &[u8], separator: &[u8]) -> bool {
        self.hold(slot, key, |arena, held| match held {
            Some((Kind::Put, value)) => (Kind::Put, arena.append(value, separator, operand)),
            Some((Kind::Merge, operands)) => (Kind::Merge, arena.append(operands, separator, operand)),
            Some((Kind::Delete, _)) => (Kind::Put, arena.push(operand)),
            None => (Kind::Merge, arena.push(operand)),
        })
    }

    /// Sets the held write of `key` to what `change` makes of the one it has (if any), which
    /// puts its value bytes in the arena.
    fn hold(
        &self,
        slot: usize,
        key: &[u8],
        change: impl FnOnce(&mut Arena, Option<(Kind, Span)>) -> (Kind, Span),
    ) -> bool {
        let mut pending = self.lock();
        let Pending { columns, arena } = &mut *pending;
        let hash = hash(key);
        let entries = &mut columns[slot].entries;
        match entries.find_mut(hash, |entry| arena.get(entry.key) == key) {
            Some(entry) => (entry.kind, entry.value) = change(arena, Some((entry.kind, entry.value))),
            None => {
                let key = arena.push(key);
                let (kind, value) = change(arena, None);
                entries.insert_unique(hash, Entry { hash, key, kind, value }, |entry| entry.hash);
                self.entries.fetch_add(1, Ordering::Release);
            }
        }
        // The arena, dead bytes included, and the entries.
        let bytes = arena.bytes.len() + self.entries.load(Ordering::Relaxed) * ENTRY_OVERHEAD_BYTES;
        bytes >= self.limit_bytes()
    }

    /// Runs `read` over the held write of `key` in the column family `slot` (`None` if it has
    /// none), under the lock if the buffer holds anything: a read that must combine a held merge
    /// with RocksDB's value sees neither change meanwhile.
    pub fn read<R>(&self, slot: usize, key: &[u8], read: impl FnOnce(Option<HeldWrite<'_>>) -> R) -> R {
        if self.is_empty() {
            return read(None);
        }
        let pending = self.lock();
        read(pending.find(slot, key).map(|entry| pending.held(entry)))
    }

    /// Whether the column family `slot` has pending writes.
    pub fn holds_any(&self, slot: usize) -> bool {
        !self.is_empty() && !self.lock().columns[slot].entries.is_empty()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.load(Ordering::Acquire) == 0
    }

    /// Runs `apply` over the pending writes of the column family `only`, or of all of them,
    /// sorted by key within each column family, and takes them out of the buffer if it succeeds.
    /// The lock is held throughout, so no other thread reads a key between its leaving the buffer
    /// and its reaching RocksDB, and no write overtakes it. If `apply` fails the writes stay
    /// pending. Returns the writes applied.
    pub fn flush<E>(
        &self,
        only: Option<usize>,
        apply: impl FnOnce(&DrainedWrites<'_>) -> Result<(), E>,
    ) -> Result<usize, E> {
        if self.is_empty() {
            return Ok(0);
        }
        let mut pending = self.lock();
        let flushed: Vec<usize> = (0..pending.columns.len())
            .filter(|&slot| !pending.columns[slot].entries.is_empty() && only.is_none_or(|only| only == slot))
            .collect();
        if flushed.is_empty() {
            return Ok(0);
        }
        let mut drained: DrainedWrites<'_> = Vec::with_capacity(flushed.len());
        for &slot in &flushed {
            let column = &pending.columns[slot];
            let mut entries: Vec<_> =
                column.entries.iter().map(|entry| (pending.arena.get(entry.key), pending.held(entry))).collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            drained.push((column.name.as_str(), entries));
        }
        let count = drained.iter().map(|(_, entries)| entries.len()).sum();
        apply(&drained)?;
        drop(drained);
        for slot in flushed {
            pending.columns[slot].entries.clear();
        }
        if pending.columns.iter().all(|column| column.entries.is_empty()) {
            pending.arena.bytes.clear();
        }
        self.entries.fetch_sub(count, Ordering::Release);
        Ok(count)
    }

    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A held write taken out of the buffer's lock.
    #[derive(Debug, PartialEq, Eq)]
    enum Held {
        Put(Vec<u8>),
        Delete,
        Merge(Vec<u8>),
    }

    impl From<HeldWrite<'_>> for Held {
        fn from(held: HeldWrite<'_>) -> Held {
            match held {
                HeldWrite::Put(value) => Held::Put(value.to_vec()),
                HeldWrite::Delete => Held::Delete,
                HeldWrite::Merge(operands) => Held::Merge(operands.to_vec()),
            }
        }
    }

    fn held(buffer: &WriteBack, slot: usize, key: &[u8]) -> Option<Held> {
        buffer.read(slot, key, |held| held.map(Held::from))
    }

    /// What a flush handed over, by column family name.
    type Flushed = Vec<(String, Vec<(Vec<u8>, Held)>)>;

    fn drained(buffer: &WriteBack) -> Flushed {
        let mut out = Vec::new();
        buffer
            .flush(None, |writes| {
                out = writes
                    .iter()
                    .map(|(name, entries)| {
                        let entries = entries.iter().map(|&(key, held)| (key.to_vec(), Held::from(held))).collect();
                        (name.to_string(), entries)
                    })
                    .collect();
                Ok::<(), ()>(())
            })
            .unwrap();
        out
    }

    #[test]
    fn a_later_write_of_a_key_replaces_the_earlier_one() {
        let buffer = WriteBack::new(1 << 20);
        let slot = buffer.column_slot("value");
        buffer.write(slot, b"k", Some(b"first"));
        buffer.write(slot, b"k", Some(b"second, longer"));
        assert_eq!(held(&buffer, slot, b"k"), Some(Held::Put(b"second, longer".to_vec())));
        buffer.write(slot, b"k", None);
        assert_eq!(held(&buffer, slot, b"k"), Some(Held::Delete));
        buffer.write(slot, b"k", Some(b"third"));
        assert_eq!(held(&buffer, slot, b"k"), Some(Held::Put(b"third".to_vec())));
        assert_eq!(held(&buffer, slot, b"other"), None);
    }

    #[test]
    fn merges_combine_with_what_the_key_holds() {
        let buffer = WriteBack::new(1 << 20);
        let slot = buffer.column_slot("lists");
        buffer.merge(slot, b"fresh", b"a", b",");
        buffer.merge(slot, b"fresh", b"b", b",");
        assert_eq!(held(&buffer, slot, b"fresh"), Some(Held::Merge(b"a,b".to_vec())));
        buffer.write(slot, b"put", Some(b"x"));
        buffer.merge(slot, b"put", b"y", b",");
        assert_eq!(held(&buffer, slot, b"put"), Some(Held::Put(b"x,y".to_vec())));
        buffer.write(slot, b"deleted", None);
        buffer.merge(slot, b"deleted", b"z", b",");
        assert_eq!(held(&buffer, slot, b"deleted"), Some(Held::Put(b"z".to_vec())));
        buffer.write(slot, b"fresh", Some(b"replaced"));
        assert_eq!(held(&buffer, slot, b"fresh"), Some(Held::Put(b"replaced".to_vec())));
    }

    #[test]
    fn a_flush_hands_over_each_column_family_in_key_order_and_empties_the_buffer() {
        let buffer = WriteBack::new(1 << 20);
        let a = buffer.column_slot("a");
        let b = buffer.column_slot("b");
        assert_eq!(buffer.column_slot("a"), a);
        for key in [b"3", b"1", b"2"] {
            buffer.write(a, key, Some(key));
        }
        buffer.write(b, b"x", None);
        let writes = drained(&buffer);
        assert_eq!(writes.len(), 2);
        assert_eq!(writes[0].0, "a");
        let keys: Vec<&[u8]> = writes[0].1.iter().map(|(key, _)| key.as_slice()).collect();
        assert_eq!(keys, vec![b"1", b"2", b"3"]);
        assert_eq!(writes[1], ("b".to_owned(), vec![(b"x".to_vec(), Held::Delete)]));
        assert!(buffer.is_empty());
        assert_eq!(held(&buffer, a, b"1"), None);
        assert!(drained(&buffer).is_empty());
    }

    #[test]
    fn a_flush_of_one_column_family_leaves_the_others_pending() {
        let buffer = WriteBack::new(1 << 20);
        let a = buffer.column_slot("a");
        let b = buffer.column_slot("b");
        buffer.write(a, b"1", Some(b"x"));
        buffer.write(b, b"2", Some(b"y"));
        let mut names = Vec::new();
        let applied = buffer
            .flush(Some(a), |writes| {
                names = writes.iter().map(|(name, _)| name.to_string()).collect();
                Ok::<(), ()>(())
            })
            .unwrap();
        assert_eq!((applied, names), (1, vec!["a".to_owned()]));
        assert!(!buffer.holds_any(a));
        assert!(held(&buffer, b, b"2").is_some());
        assert_eq!(buffer.flush(Some(a), |_| Err("not called")), Ok(0));
        assert_eq!(drained(&buffer).len(), 1);
        assert!(buffer.is_empty());
    }

    #[test]
    fn a_failed_flush_keeps_the_writes() {
        let buffer = WriteBack::new(1 << 20);
        let slot = buffer.column_slot("value");
        buffer.write(slot, b"k", Some(b"v"));
        assert_eq!(buffer.flush(None, |_| Err("disk full")), Err("disk full"));
        assert!(!buffer.is_empty());
        assert_eq!(held(&buffer, slot, b"k"), Some(Held::Put(b"v".to_vec())));
    }

    #[test]
    fn reports_full_once_the_entries_reach_the_limit() {
        let buffer = WriteBack::new(3 * (ENTRY_OVERHEAD_BYTES + 2));
        let slot = buffer.column_slot("value");
        assert!(!buffer.write(slot, b"a", Some(b"1")));
        assert!(!buffer.write(slot, b"b", Some(b"2")));
        assert!(!buffer.write(slot, b"b", Some(b"3")), "a rewrite of a held key adds no entry");
        assert!(buffer.write(slot, b"c", Some(b"4")));
        assert!(buffer.holds_any(slot));
    }

    #[test]
    fn a_value_that_outgrows_its_place_moves_and_its_old_bytes_count_until_a_flush() {
        // Key "k" and a 1-byte value, then a 4-byte one: live bytes 5, arena 6.
        let buffer = WriteBack::new(ENTRY_OVERHEAD_BYTES + 6);
        let slot = buffer.column_slot("value");
        assert!(!buffer.write(slot, b"k", Some(b"a")));
        assert!(buffer.write(slot, b"k", Some(b"bbbb")), "the 1-byte value's place still counts");
        assert_eq!(held(&buffer, slot, b"k"), Some(Held::Put(b"bbbb".to_vec())));

        let buffer = WriteBack::new(ENTRY_OVERHEAD_BYTES + 6);
        let slot = buffer.column_slot("value");
        assert!(!buffer.write(slot, b"k", Some(b"bbbb")));
        assert!(!buffer.write(slot, b"k", Some(b"cc")), "a shorter value takes the place it has");
        assert_eq!(held(&buffer, slot, b"k"), Some(Held::Put(b"cc".to_vec())));
        assert_eq!(drained(&buffer), vec![("value".to_owned(), vec![(b"k".to_vec(), Held::Put(b"cc".to_vec()))])]);
        assert!(!buffer.write(slot, b"k", Some(b"dddd")), "the flush emptied the arena");
    }

    #[test]
    fn merges_into_a_value_written_before_other_keys_keep_every_key_intact() {
        let buffer = WriteBack::new(1 << 20);
        let slot = buffer.column_slot("lists");
        buffer.write(slot, b"a", Some(b"x"));
        buffer.merge(slot, b"m", b"1", b",");
        buffer.write(slot, b"b", Some(b"y"));
        buffer.merge(slot, b"a", b"z", b",");
        buffer.merge(slot, b"m", b"2", b",");
        buffer.merge(slot, b"a", b"w", b",");
        buffer.write(slot, b"b", None);
        assert_eq!(held(&buffer, slot, b"a"), Some(Held::Put(b"x,z,w".to_vec())));
        assert_eq!(held(&buffer, slot, b"m"), Some(Held::Merge(b"1,2".to_vec())));
        assert_eq!(held(&buffer, slot, b"b"), Some(Held::Delete));
        let keys: Vec<Vec<u8>> = drained(&buffer)[0].1.iter().map(|(key, _)| key.clone()).collect();
        assert_eq!(keys, vec![b"a".to_vec(), b"b".to_vec(), b"m".to_vec()]);
    }
}

/// The buffer as a store uses it: invisible to every read and write of the store.
#[cfg(test)]
mod store_tests {
    use std::sync::Arc;

    use crate::memory::SlotMemory;
    use crate::store::{KeyedStore, StateColumnFamily, StoreConfig};
    use crate::test_support::TempDir;

    fn open(dir: &TempDir, write_back_bytes: usize) -> Arc<KeyedStore> {
        let memory = Arc::new(SlotMemory::new(16 << 20, 0.5, 4 << 20).unwrap());
        KeyedStore::open(dir.path(), StoreConfig { memory, write_back_bytes }).unwrap()
    }

    fn in_memtable(column: &StateColumnFamily) -> u64 {
        column.int_property("rocksdb.num-entries-active-mem-table").unwrap().unwrap()
    }

    #[test]
    fn held_writes_are_read_back_and_applied_before_a_scan_sees_the_column() {
        let dir = TempDir::new();
        let store = open(&dir, 1 << 20);
        let column = StateColumnFamily::open(&store, "values").unwrap();
        column.put(b"\x00b", b"2").unwrap();
        column.put(b"\x00a", b"1").unwrap();
        column.put(b"\x00a", b"3").unwrap();
        assert_eq!(in_memtable(&column), 0, "the writes are held");
        assert_eq!(&*column.get(b"\x00a").unwrap().unwrap(), b"3");
        let from_another_thread = std::thread::scope(|s| {
            s.spawn(|| column.get(b"\x00b").unwrap().map(|value| value.to_vec())).join().unwrap()
        });
        assert_eq!(from_another_thread.as_deref(), Some(&b"2"[..]));
        let scanned = column.scan_prefix(b"\x00", None, 1 << 20).unwrap();
        let entries: Vec<_> = crate::batch::decode(&scanned).map(|entry| entry.unwrap().key.to_vec()).collect();
        assert_eq!(entries, vec![b"\x00a".to_vec(), b"\x00b".to_vec()]);
        assert_eq!(in_memtable(&column), 2, "one write per key, applied by the scan");
    }

    #[test]
    fn a_held_delete_hides_the_stored_value_until_it_is_applied() {
        let dir = TempDir::new();
        let store = open(&dir, 1 << 20);
        let column = StateColumnFamily::open(&store, "values").unwrap();
        column.put(b"k", b"v").unwrap();
        store.flush().unwrap();
        column.delete(b"k").unwrap();
        assert!(column.get(b"k").unwrap().is_none());
        assert_eq!(column.count_entries().unwrap(), 0);
    }

    #[test]
    fn writes_that_bypass_the_buffer_come_after_the_held_ones() {
        let dir = TempDir::new();
        let store = open(&dir, 1 << 20);
        let values = StateColumnFamily::open(&store, "values").unwrap();
        let lists = StateColumnFamily::open(&store, "lists").unwrap();
        values.put(b"k", b"held").unwrap();
        values.put_all([(&b"k"[..], &b"direct"[..])]).unwrap();
        assert_eq!(&*values.get(b"k").unwrap().unwrap(), b"direct");
        lists.put(b"k", b"a").unwrap();
        lists.merge(b"k", b"b").unwrap();
        assert_eq!(&*lists.get(b"k").unwrap().unwrap(), b"a,b");
    }

    #[test]
    fn held_merges_read_and_apply_as_rocksdb_merges_them() {
        let dir = TempDir::new();
        let store = open(&dir, 1 << 20);
        let lists = StateColumnFamily::open(&store, "lists").unwrap();
        lists.put(b"stored", b"a").unwrap();
        store.apply_write_back().unwrap();
        lists.merge(b"stored", b"b").unwrap();
        lists.merge(b"stored", b"c").unwrap();
        lists.merge(b"new", b"x").unwrap();
        assert_eq!(in_memtable(&lists), 1, "only the applied put reached RocksDB");
        assert_eq!(&*lists.get(b"stored").unwrap().unwrap(), b"a,b,c");
        assert_eq!(&*lists.get(b"new").unwrap().unwrap(), b"x");
        store.apply_write_back().unwrap();
        assert_eq!(in_memtable(&lists), 3, "one merge operand per key");
        assert_eq!(&*lists.get(b"stored").unwrap().unwrap(), b"a,b,c");
        store.flush().unwrap();
        assert_eq!(&*lists.get(b"stored").unwrap().unwrap(), b"a,b,c");
        assert_eq!(&*lists.get(b"new").unwrap().unwrap(), b"x");
    }

    #[test]
    fn a_full_buffer_is_applied_and_the_store_keeps_every_value() {
        let dir = TempDir::new();
        let store = open(&dir, 4 << 10);
        let column = StateColumnFamily::open(&store, "values").unwrap();
        for i in 0..1_000u32 {
            column.put(&i.to_be_bytes(), &i.to_le_bytes()).unwrap();
        }
        assert!(in_memtable(&column) > 900, "full buffers went to the memtable");
        for i in 0..1_000u32 {
            assert_eq!(&*column.get(&i.to_be_bytes()).unwrap().unwrap(), &i.to_le_bytes());
        }
    }

    #[test]
    fn a_store_takes_what_its_slot_can_spare_of_the_buffer_or_writes_through() {
        let memory = Arc::new(SlotMemory::new(16 << 20, 0.5, 4 << 20).unwrap());
        let open = |dir: &TempDir| {
            KeyedStore::open(dir.path(), StoreConfig { memory: Arc::clone(&memory), write_back_bytes: 1 << 20 })
                .unwrap()
        };
        let dirs = [TempDir::new(), TempDir::new(), TempDir::new()];
        let first = open(&dirs[0]);
        assert_eq!(memory.reserved_bytes(), 0, "nothing reserved before the first write");
        StateColumnFamily::open(&first, "values").unwrap().put(b"k", b"v").unwrap();
        assert_eq!(memory.reserved_bytes(), 1 << 20, "reserved at the first write");
        // An operator takes all but 600 KiB of what reservations may hold: the next store gets
        // half of that, the one after it less than the minimum and writes through.
        let holdable = crate::memory::split(16 << 20, 0.5).0 / 2;
        let operator = memory.reserve(holdable - memory.reserved_bytes() - (600 << 10)).unwrap();
        let second = open(&dirs[1]);
        let values = StateColumnFamily::open(&second, "values").unwrap();
        values.put(b"k", b"v").unwrap();
        assert_eq!(in_memtable(&values), 0, "held in a smaller buffer");
        assert_eq!(memory.reserved_bytes(), holdable - (300 << 10));
        let third = open(&dirs[2]);
        let through = StateColumnFamily::open(&third, "values").unwrap();
        through.put(b"k", b"v").unwrap();
        assert_eq!(in_memtable(&through), 1, "written through");
        drop(operator);
    }
}
