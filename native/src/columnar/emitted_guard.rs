//! The emitted flags of Flink's `RowTimeDeduplicateKeepFirstRowFunction`
//! (`already-emitted-state-boolean`, a `ValueState<Boolean>` with the operator's TTL). A key's
//! earliest row waits in the ranker's state until its event-time timer fires; then the row is
//! emitted, taken out of the state, and the key is flagged. Every later row of a flagged key is
//! dropped until the flag expires, because an emitted row can be neither retracted nor replaced.
//!
//! Once keys are emitted, nearly every row is one of a flagged key, so the flags are cached:
//! only the guard writes them, so what it read or wrote stays true (a key without a flag keeps
//! none until the guard flags it, and a flag's expiry is fixed when it is written) and the cache
//! answers without reading RocksDB.

use super::key_groups::KeyGroupLayout;
use super::stored_rows::{read_values, KeptValue, ValueFormat};
use super::winner_cache::WinnerCache;
use crate::error::Result;
use crate::store::{StateColumnFamily, StoreWrite};

/// A cached flag is one byte, as `BooleanSerializer` writes `true`; a key known to have no flag
/// caches no bytes.
const FLAG: &[u8] = &[1];

/// A key whose flag the guard looks up: its key group, its hash and its bytes.
pub struct GuardedKey<'k> {
    pub key_group: u32,
    pub hash: u64,
    pub key: &'k [u8],
}

/// The flags of one operator instance, in their own column family, and the cache of those known.
pub struct EmittedGuard {
    column_family: StateColumnFamily,
    format: ValueFormat,
    known: WinnerCache,
}

impl EmittedGuard {
    /// Flags kept in `column_family` as Flink's `BooleanSerializer` writes them, behind
    /// `TtlSerializer`'s timestamp when the state has a TTL of `ttl_millis`; no cache yet.
    pub fn new(column_family: StateColumnFamily, ttl_millis: Option<i64>) -> EmittedGuard {
        EmittedGuard {
            column_family,
            format: ValueFormat { kept: KeptValue::SeenFlag, ttl_millis },
            known: WinnerCache::new(0),
        }
    }

    /// This guard with a cache of `cache_bytes`, which it is given from its ranker's.
    pub(super) fn caching(mut self, cache_bytes: usize) -> EmittedGuard {
        self.known = WinnerCache::new(cache_bytes);
        self
    }

    /// Whether each key is flagged and its flag unexpired at `now`: from the cache, and for the
    /// keys it lacks with one multi-get.
    pub fn flagged(&mut self, layout: &KeyGroupLayout, keys: &[GuardedKey], now: i64) -> Result<Vec<bool>> {
        let mut flagged = vec![false; keys.len()];
        let mut misses = Vec::new();
        for (index, key) in keys.iter().enumerate() {
            match self.known.lookup(key.hash, key.key) {
                Some(slot) => {
                    let cached = self.known.get(slot);
                    flagged[index] = cached.row == FLAG && !self.format.expired(cached.written_at, now);
                }
                None => misses.push(index),
            }
        }
        let stored = read_values(
            &self.column_family,
            self.format,
            layout,
            misses.iter().map(|&index| (keys[index].key_group, keys[index].key)),
        )?;
        for (&index, value) in misses.iter().zip(&stored) {
            let key = &keys[index];
            match value {
                Some(value) => {
                    flagged[index] = !self.format.expired(value.written_at, now);
                    self.known.put(key.hash, key.key, FLAG, value.written_at);
                }
                None => self.known.put(key.hash, key.key, &[], 0),
            }
        }
        Ok(flagged)
    }

    /// Flags `key` (stored under `state_key`) at `now`, as part of `write`; call
    /// [`flagged_in_store`](Self::flagged_in_store) once `write` is committed.
    pub fn flag(&self, write: &mut StoreWrite, state_key: &[u8], now: i64) -> Result<()> {
        let mut value = Vec::with_capacity(9);
        self.format.write_value(&mut value, &[], now);
        write.put(&self.column_family, state_key, &value)
    }

    /// Records that the flag of `key` was written at `now`.
    pub fn flagged_in_store(&mut self, hash: u64, key: &[u8], now: i64) {
        self.known.put(hash, key, FLAG, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::test_config;
    use crate::store::KeyedStore;
    use crate::test_support::TempDir;

    fn layout() -> KeyGroupLayout {
        KeyGroupLayout::new(1, 128, 0, 127).unwrap()
    }

    #[test]
    fn flags_are_read_once_then_answered_from_the_cache_until_they_expire() {
        for cache_bytes in [1 << 20, 0] {
            let dir = TempDir::new();
            let store = KeyedStore::open(dir.path(), test_config()).unwrap();
            let column_family = StateColumnFamily::open(&store, "already-emitted-state-boolean").unwrap();
            let mut guard = EmittedGuard::new(column_family.clone(), Some(100)).caching(cache_bytes);
            let keys =
                [GuardedKey { key_group: 3, hash: 7, key: b"a" }, GuardedKey { key_group: 5, hash: 9, key: b"b" }];
            assert_eq!(guard.flagged(&layout(), &keys, 0).unwrap(), vec![false, false]);

            let mut state_key = Vec::new();
            layout().write_state_key(&mut state_key, 3, b"a");
            let mut write = StoreWrite::to_store_of(&column_family);
            guard.flag(&mut write, &state_key, 10).unwrap();
            write.commit().unwrap();
            guard.flagged_in_store(7, b"a", 10);

            let misses = guard.known.misses();
            assert_eq!(guard.flagged(&layout(), &keys, 109).unwrap(), vec![true, false], "cache of {cache_bytes}");
            assert_eq!(guard.known.misses() > misses, cache_bytes == 0, "both keys known, cache of {cache_bytes}");
            assert_eq!(guard.flagged(&layout(), &keys, 110).unwrap(), vec![false, false], "cache of {cache_bytes}");
            let mut reopened = EmittedGuard::new(column_family, Some(100)).caching(cache_bytes);
            assert_eq!(reopened.flagged(&layout(), &keys, 109).unwrap(), vec![true, false], "read from state");
        }
    }
}
