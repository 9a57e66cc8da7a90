//! A byte-bounded cache of decoded rows by key, for a kernel's hot rows: one hash lookup on a
//! hit, no RocksDB and no copy. An entry is clean (the kernel wrote it to RocksDB in the call that
//! cached it) or dirty (the cache holds its only copy): an evicted dirty entry is handed back to
//! be written ([`take_evicted`](WinnerCache::take_evicted)), and [`drain_dirty`](WinnerCache::drain_dirty)
//! hands out all of them before a checkpoint. Eviction is CLOCK: an entry read since the hand last
//! passed it gets a second chance.
//!
//! A full cache admits a new key only if the key was read more often lately than the entry it
//! would evict ([`FrequencySketch`], TinyLFU): keys read in a cycle larger than the cache (the
//! groups of a job whose input walks them in order) would otherwise each evict the next one to be
//! read, and hit never; with the test, the cache keeps the keys it holds, and they hit on every
//! cycle. A key that is not admitted is written by the caller, as a row larger than the cache is.

use hashbrown::HashTable;

use super::frequency_sketch::FrequencySketch;

/// Bytes charged per entry on top of its key and row: the slot, the table entry and the
/// allocations' headers.
pub const ENTRY_OVERHEAD_BYTES: usize = 64;

/// A cached row and the time it was written (for TTL).
pub struct CachedRow {
    key: Box<[u8]>,
    pub row: Vec<u8>,
    pub written_at: i64,
    hash: u64,
    referenced: bool,
    dirty: bool,
}

/// A dirty entry the cache evicted: the kernel writes it.
pub struct EvictedRow {
    pub key: Box<[u8]>,
    pub row: Vec<u8>,
    pub written_at: i64,
}

impl CachedRow {
    fn weight(&self) -> usize {
        self.key.len() + self.row.len() + ENTRY_OVERHEAD_BYTES
    }
}

/// See the module documentation. A capacity of 0 caches nothing.
pub struct WinnerCache {
    capacity: usize,
    used: usize,
    table: HashTable<u32>,
    slots: Vec<Option<CachedRow>>,
    free: Vec<u32>,
    hand: usize,
    hits: u64,
    misses: u64,
    evicted: Vec<EvictedRow>,
    sketch: FrequencySketch,
}

impl WinnerCache {
    /// A cache of `capacity` bytes, its frequency sketch included.
    pub fn new(capacity: usize) -> WinnerCache {
        // About one counter pair per entry of a typical size: a few percent of the capacity.
        let sketch = FrequencySketch::new(capacity / (2 * ENTRY_OVERHEAD_BYTES));
        WinnerCache {
            capacity: capacity.saturating_sub(sketch.bytes()),
            used: 0,
            table: HashTable::new(),
            slots: Vec::new(),
            free: Vec::new(),
            hand: 0,
            hits: 0,
            misses: 0,
            evicted: Vec::new(),
            sketch,
        }
    }

    /// The bytes this cache may hold.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The slot of `key` (whose hash is `hash`), counting a hit or a miss, and the read.
    pub fn lookup(&mut self, hash: u64, key: &[u8]) -> Option<u32> {
        // As in Caffeine, reads count only once the cache is half full: only a full cache asks
        // the sketch, and one that holds every key it sees (a kernel's usual case) would pay four
        // counter updates per read for nothing.
        if self.used * 2 >= self.capacity {
            self.sketch.increment(hash);
        }
        let slots = &self.slots;
        let found = self.table.find(hash, |&slot| slots[slot as usize].as_ref().is_some_and(|e| *e.key == *key));
        match found {
            Some(&slot) => {
                self.hits += 1;
                if let Some(entry) = self.slots[slot as usize].as_mut() {
                    entry.referenced = true;
                }
                Some(slot)
            }
            None => {
                self.misses += 1;
                None
            }
        }
    }

    /// The row in `slot`, as returned by [`lookup`](Self::lookup) since the last change.
    pub fn get(&self, slot: u32) -> &CachedRow {
        self.slots[slot as usize].as_ref().expect("a slot returned by lookup")
    }

    /// Caches `row` for `key` as written to RocksDB, replacing what the key had; evicts until it
    /// fits. A row larger than the whole cache, or of a new key a full cache does not admit, is
    /// not cached.
    pub fn put(&mut self, hash: u64, key: &[u8], row: &[u8], written_at: i64) {
        self.put_entry(hash, key, row, written_at, false);
    }

    /// Caches `row` for `key` as its only copy, replacing what the key had; false (and nothing
    /// cached, the key's old entry dropped) if the row is larger than the whole cache, or the key
    /// is new and a full cache does not admit it, when the caller writes it itself.
    pub fn put_dirty(&mut self, hash: u64, key: &[u8], row: &[u8], written_at: i64) -> bool {
        self.put_entry(hash, key, row, written_at, true)
    }

    fn put_entry(&mut self, hash: u64, key: &[u8], row: &[u8], written_at: i64, dirty: bool) -> bool {
        let slots = &self.slots;
        if let Some(&slot) = self.table.find(hash, |&s| slots[s as usize].as_ref().is_some_and(|e| *e.key == *key)) {
            if key.len() + row.len() + ENTRY_OVERHEAD_BYTES > self.capacity {
                self.remove(hash, key);
                return false;
            }
            let entry = self.slots[slot as usize].as_mut().expect("a live slot");
            self.used = self.used - entry.row.len() + row.len();
            entry.row.clear();
            entry.row.extend_from_slice(row);
            entry.written_at = written_at;
            entry.referenced = true;
            entry.dirty = dirty;
            self.evict_until_fits(0, Some(slot));
            return true;
        }
        let weight = key.len() + row.len() + ENTRY_OVERHEAD_BYTES;
        if weight > self.capacity || (self.used + weight > self.capacity && !self.admits(hash)) {
            return false;
        }
        self.evict_until_fits(weight, None);
        let entry = CachedRow { key: key.into(), row: row.to_vec(), written_at, hash, referenced: false, dirty };
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some(entry);
                slot
            }
            None => {
                self.slots.push(Some(entry));
                (self.slots.len() - 1) as u32
            }
        };
        self.used += weight;
        let slots = &self.slots;
        self.table.insert_unique(hash, slot, |&s| slots[s as usize].as_ref().map_or(0, |e| e.hash));
        true
    }

    /// Stamps `key`'s entry as written at `written_at`, dirty, so it is written again with that
    /// time; false if the key has no entry.
    pub fn restamp(&mut self, hash: u64, key: &[u8], written_at: i64) -> bool {
        let slots = &self.slots;
        match self.table.find(hash, |&s| slots[s as usize].as_ref().is_some_and(|e| *e.key == *key)) {
            Some(&slot) => {
                let entry = self.slots[slot as usize].as_mut().expect("a live slot");
                entry.written_at = written_at;
                entry.dirty = true;
                true
            }
            None => false,
        }
    }

    /// The dirty entries evicted since the last call, for the caller to write.
    pub fn take_evicted(&mut self) -> Vec<EvictedRow> {
        std::mem::take(&mut self.evicted)
    }

    /// Hands every dirty entry (key, row, written at) to `write`, then counts them all clean.
    pub fn drain_dirty(&mut self, mut write: impl FnMut(&[u8], &[u8], i64)) {
        for entry in self.slots.iter_mut().flatten().filter(|e| e.dirty) {
            write(&entry.key, &entry.row, entry.written_at);
            entry.dirty = false;
        }
    }

    /// Drops `key`'s entry, if any.
    pub fn remove(&mut self, hash: u64, key: &[u8]) {
        let slots = &self.slots;
        if let Ok(found) = self.table.find_entry(hash, |&s| slots[s as usize].as_ref().is_some_and(|e| *e.key == *key))
        {
            let (slot, _) = found.remove();
            self.free_slot(slot);
        }
    }

    fn free_slot(&mut self, slot: u32) {
        if let Some(entry) = self.slots[slot as usize].take() {
            self.used -= entry.weight();
            self.free.push(slot);
        }
    }

    /// Whether a new key whose hash is `hash` was read more often lately than the entry the hand
    /// would evict next; ties keep the entry. A cache too small for a sketch admits every key.
    fn admits(&mut self, hash: u64) -> bool {
        if self.sketch.bytes() == 0 {
            return true;
        }
        match self.next_victim() {
            Some(victim) => self.sketch.frequency(hash) > self.sketch.frequency(victim),
            None => true,
        }
    }

    /// The hash of the entry the hand would evict next, leaving the hand on it; entries read
    /// since the hand last passed them get their second chance on the way.
    fn next_victim(&mut self) -> Option<u64> {
        if self.table.is_empty() {
            return None;
        }
        loop {
            if self.hand >= self.slots.len() {
                self.hand = 0;
            }
            match self.slots[self.hand].as_mut() {
                Some(entry) if entry.referenced => entry.referenced = false,
                Some(entry) => return Some(entry.hash),
                None => {}
            }
            self.hand += 1;
        }
    }

    fn evict_until_fits(&mut self, incoming: usize, keep: Option<u32>) {
        while self.used + incoming > self.capacity && self.used > 0 {
            if self.hand >= self.slots.len() {
                self.hand = 0;
            }
            let slot = self.hand as u32;
            self.hand += 1;
            if Some(slot) == keep {
                continue;
            }
            let Some(entry) = self.slots[slot as usize].as_mut() else { continue };
            if entry.referenced {
                entry.referenced = false;
                continue;
            }
            let hash = entry.hash;
            if let Ok(found) = self.table.find_entry(hash, |&s| s == slot) {
                found.remove();
            }
            if let Some(entry) = self.slots[slot as usize].as_ref().filter(|e| e.dirty) {
                self.evicted.push(EvictedRow {
                    key: entry.key.clone(),
                    row: entry.row.clone(),
                    written_at: entry.written_at,
                });
            }
            self.free_slot(slot);
        }
    }

    pub fn used_bytes(&self) -> usize {
        self.used
    }

    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    pub fn hits(&self) -> u64 {
        self.hits
    }

    pub fn misses(&self) -> u64 {
        self.misses
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(key: &[u8]) -> u64 {
        key.iter().fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(*b as u64))
    }

    #[test]
    fn hits_replace_and_remove() {
        let mut cache = WinnerCache::new(1 << 20);
        assert!(cache.lookup(hash(b"k"), b"k").is_none());
        cache.put(hash(b"k"), b"k", b"row-1", 10);
        let slot = cache.lookup(hash(b"k"), b"k").unwrap();
        assert_eq!((cache.get(slot).row.as_slice(), cache.get(slot).written_at), (&b"row-1"[..], 10));
        cache.put(hash(b"k"), b"k", b"row-two", 20);
        let slot = cache.lookup(hash(b"k"), b"k").unwrap();
        assert_eq!(cache.get(slot).row, b"row-two");
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.used_bytes(), 1 + 7 + ENTRY_OVERHEAD_BYTES);
        cache.remove(hash(b"k"), b"k");
        assert!(cache.is_empty() && cache.used_bytes() == 0);
        assert_eq!((cache.hits(), cache.misses()), (2, 1));
    }

    /// Reads `k` and, on a miss, caches a 16-byte row for it, as a kernel does.
    fn read_and_put(cache: &mut WinnerCache, k: u64) {
        let key = k.to_be_bytes();
        if cache.lookup(hash(&key), &key).is_none() {
            cache.put(hash(&key), &key, &[1; 16], 0);
        }
        assert!(cache.used_bytes() <= cache.capacity());
    }

    #[test]
    fn a_cycle_larger_than_the_cache_keeps_what_it_holds() {
        let entry = 8 + 16 + ENTRY_OVERHEAD_BYTES;
        let mut cache = WinnerCache::new(entry * 100 + 1024);
        let fits = (cache.capacity() / entry) as u64;
        assert!(fits >= 100, "{fits}");
        for k in 0..fits {
            read_and_put(&mut cache, k);
        }
        assert_eq!(cache.len() as u64, fits);
        // Twice through keys twice as many as fit: without the admission test each key would
        // evict one the cycle reads next, and none would be left.
        for _ in 0..2 {
            for k in 0..2 * fits {
                read_and_put(&mut cache, k);
            }
        }
        let held = (0..fits).filter(|k| cache.lookup(hash(&k.to_be_bytes()), &k.to_be_bytes()).is_some()).count();
        assert!(held as u64 >= fits * 9 / 10, "{held} of {fits} kept");
        // A key read more often than any other is admitted, and stays.
        let hot = 1_000_000u64;
        for _ in 0..6 {
            read_and_put(&mut cache, hot);
        }
        assert!(cache.lookup(hash(&hot.to_be_bytes()), &hot.to_be_bytes()).is_some());
    }

    #[test]
    fn dirty_entries_are_handed_back_when_evicted_and_when_drained() {
        let row = [0u8; 1000];
        let entry = 8 + row.len() + ENTRY_OVERHEAD_BYTES;
        let mut cache = WinnerCache::new(entry * 2 + 100);
        assert!(cache.capacity() >= entry * 2 && cache.capacity() < entry * 3);
        for i in 0..2u64 {
            let key = i.to_be_bytes();
            assert!(cache.put_dirty(hash(&key), &key, &[i as u8; 1000], i as i64));
        }
        let unread = 9u64.to_be_bytes();
        assert!(
            !cache.put_dirty(hash(&unread), &unread, &row, 9),
            "a full cache admits no key read less than it holds"
        );
        let third = 2u64.to_be_bytes();
        for _ in 0..2 {
            assert!(cache.lookup(hash(&third), &third).is_none());
        }
        assert!(cache.put_dirty(hash(&third), &third, &[2; 1000], 2), "read more often than the entry it evicts");
        let evicted = cache.take_evicted();
        assert_eq!(evicted.len(), 1, "the third entry evicted one of two");
        assert_eq!((&evicted[0].key[..], evicted[0].row[0], evicted[0].written_at), (&0u64.to_be_bytes()[..], 0, 0));
        assert!(cache.take_evicted().is_empty());
        let mut drained = Vec::new();
        cache.drain_dirty(|key, row, at| drained.push((key.to_vec(), row[0], at)));
        drained.sort();
        assert_eq!(drained, vec![(1u64.to_be_bytes().to_vec(), 1, 1), (2u64.to_be_bytes().to_vec(), 2, 2)]);
        cache.drain_dirty(|_, _, _| panic!("drained entries are clean"));
        assert!(!cache.put_dirty(1, b"k", &[0; 4000], 0), "too large for the cache");
    }

    #[test]
    fn reads_count_towards_admission_once_the_cache_is_half_full() {
        let entry = 8 + 16 + ENTRY_OVERHEAD_BYTES;
        let mut cache = WinnerCache::new(entry * 100 + 1024);
        let key = 7u64.to_be_bytes();
        cache.lookup(hash(&key), &key);
        assert_eq!(cache.sketch.frequency(hash(&key)), 0, "an empty cache counts no read");
        let mut k = 1_000u64;
        while cache.used_bytes() * 2 < cache.capacity() {
            read_and_put(&mut cache, k);
            k += 1;
        }
        cache.lookup(hash(&key), &key);
        assert_eq!(cache.sketch.frequency(hash(&key)), 1, "a half-full cache counts every read");
    }

    #[test]
    fn a_zero_capacity_caches_nothing() {
        let mut cache = WinnerCache::new(0);
        cache.put(1, b"k", b"v", 0);
        assert!(cache.is_empty());
    }
}
