//! A byte-bounded cache of decoded rows by key, for a kernel's hot winners: one hash lookup on a
//! hit, no RocksDB and no copy. It holds clean entries only (the kernel writes a winner to
//! RocksDB in the same call that caches it), so eviction never writes. Eviction is CLOCK: an
//! entry read since the hand last passed it gets a second chance.

use hashbrown::HashTable;

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
}

impl WinnerCache {
    pub fn new(capacity: usize) -> WinnerCache {
        WinnerCache {
            capacity,
            used: 0,
            table: HashTable::new(),
            slots: Vec::new(),
            free: Vec::new(),
            hand: 0,
            hits: 0,
            misses: 0,
        }
    }

    /// The slot of `key` (whose hash is `hash`), counting a hit or a miss.
    pub fn lookup(&mut self, hash: u64, key: &[u8]) -> Option<u32> {
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

    /// Caches `row` for `key`, replacing what the key had; evicts until it fits. A row larger
    /// than the whole cache is not cached.
    pub fn put(&mut self, hash: u64, key: &[u8], row: &[u8], written_at: i64) {
        let slots = &self.slots;
        if let Some(&slot) = self.table.find(hash, |&s| slots[s as usize].as_ref().is_some_and(|e| *e.key == *key)) {
            if key.len() + row.len() + ENTRY_OVERHEAD_BYTES > self.capacity {
                self.remove(hash, key);
                return;
            }
            let entry = self.slots[slot as usize].as_mut().expect("a live slot");
            self.used = self.used - entry.row.len() + row.len();
            entry.row.clear();
            entry.row.extend_from_slice(row);
            entry.written_at = written_at;
            entry.referenced = true;
            self.evict_until_fits(0, Some(slot));
            return;
        }
        let weight = key.len() + row.len() + ENTRY_OVERHEAD_BYTES;
        if weight > self.capacity {
            return;
        }
        self.evict_until_fits(weight, None);
        let entry = CachedRow { key: key.into(), row: row.to_vec(), written_at, hash, referenced: false };
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

    #[test]
    fn stays_within_its_bytes_and_keeps_referenced_entries() {
        let entry = 8 + 16 + ENTRY_OVERHEAD_BYTES;
        let mut cache = WinnerCache::new(entry * 100);
        for i in 0..1000u64 {
            let key = i.to_be_bytes();
            cache.put(hash(&key), &key, &[1; 16], 0);
            // Key 0 is read after every insert, so CLOCK keeps giving it a second chance.
            cache.lookup(hash(&0u64.to_be_bytes()), &0u64.to_be_bytes());
            assert!(cache.used_bytes() <= entry * 100);
        }
        assert_eq!(cache.len(), 100);
        assert!(cache.lookup(hash(&0u64.to_be_bytes()), &0u64.to_be_bytes()).is_some());
        assert!(cache.lookup(hash(&999u64.to_be_bytes()), &999u64.to_be_bytes()).is_some());
        assert!(cache.lookup(hash(&500u64.to_be_bytes()), &500u64.to_be_bytes()).is_none());
    }

    #[test]
    fn a_zero_capacity_caches_nothing() {
        let mut cache = WinnerCache::new(0);
        cache.put(1, b"k", b"v", 0);
        assert!(cache.is_empty());
    }
}
