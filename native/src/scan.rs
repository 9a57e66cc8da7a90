//! A consistent scan of a store in canonical snapshot order: by key group, then by state.
//!
//! Flink's full-snapshot writer needs every entry of a key group before the next key group
//! starts, and the entries of one state contiguous inside it. Each column family is already
//! sorted by key, and keys start with the key group, so a k-way merge over one iterator per
//! column yields that order with a single pass and no buffering.

use std::sync::Arc;

use rocksdb::{BoundColumnFamily, DBRawIteratorWithThreadMode, ReadOptions, SnapshotWithThreadMode};

use crate::batch;
use crate::error::{NativeError, Result};
use crate::store::{Db, KeyedStore, StateColumnFamily};

struct Cursor {
    iter: DBRawIteratorWithThreadMode<'static, Db>,
    state_index: u32,
}

/// A scan over a point-in-time snapshot of several state columns of one store.
///
/// Field order matters: iterators, then the snapshot, then the column handles, then the store
/// are dropped in that order, each before what it borrows from.
pub struct KeyGroupScan {
    cursors: Vec<Cursor>,
    current: Option<(usize, u32)>,
    _snapshot: SnapshotWithThreadMode<'static, Db>,
    _columns: Vec<Arc<BoundColumnFamily<'static>>>,
    _store: Arc<KeyedStore>,
    key_group_prefix_bytes: usize,
}

impl KeyGroupScan {
    /// Takes a snapshot of `store` and positions one cursor per column. The position of a
    /// column in `columns` is its state index in the emitted entries.
    pub fn open(
        store: &Arc<KeyedStore>,
        columns: &[&StateColumnFamily],
        key_group_prefix_bytes: usize,
    ) -> Result<KeyGroupScan> {
        if !(1..=2).contains(&key_group_prefix_bytes) {
            return Err(NativeError::InvalidArgument(format!(
                "key group prefix must be 1 or 2 bytes, got {key_group_prefix_bytes}"
            )));
        }
        for column in columns {
            if !Arc::ptr_eq(column.store(), store) {
                return Err(NativeError::Internal(format!(
                    "column family '{}' belongs to another store",
                    column.name()
                )));
            }
        }
        // SAFETY: the snapshot borrows the database, which `_store` keeps alive and which is
        // dropped after the snapshot (field order).
        let snapshot: SnapshotWithThreadMode<'static, Db> = unsafe { std::mem::transmute(store.db()?.snapshot()) };
        let handles: Vec<Arc<BoundColumnFamily<'static>>> = columns.iter().map(|c| Arc::clone(c.cf())).collect();
        let mut cursors = Vec::with_capacity(handles.len());
        for (index, cf) in handles.iter().enumerate() {
            let mut read = ReadOptions::default();
            read.fill_cache(false);
            let iter = snapshot.raw_iterator_cf_opt(cf, read);
            // SAFETY: as above; the iterator is dropped before the snapshot and the handles.
            let mut iter: DBRawIteratorWithThreadMode<'static, Db> = unsafe { std::mem::transmute(iter) };
            iter.seek_to_first();
            cursors.push(Cursor { iter, state_index: index as u32 });
        }
        Ok(KeyGroupScan {
            cursors,
            current: None,
            _snapshot: snapshot,
            _columns: handles,
            _store: Arc::clone(store),
            key_group_prefix_bytes,
        })
    }

    fn key_group_of(&self, key: &[u8]) -> Result<u32> {
        match (self.key_group_prefix_bytes, key) {
            (1, [a, ..]) => Ok(*a as u32),
            (2, [a, b, ..]) => Ok(u16::from_be_bytes([*a, *b]) as u32),
            _ => Err(NativeError::InvalidArgument(format!(
                "stored key of {} bytes is shorter than the key group prefix",
                key.len()
            ))),
        }
    }

    /// The cursor holding the smallest key group, ties broken by state index.
    fn select(&self) -> Result<Option<(usize, u32)>> {
        let mut best: Option<(usize, u32)> = None;
        for (i, cursor) in self.cursors.iter().enumerate() {
            let Some(key) = cursor.iter.key() else {
                cursor.iter.status()?;
                continue;
            };
            let group = self.key_group_of(key)?;
            if best.is_none_or(|(_, g)| group < g) {
                best = Some((i, group));
            }
        }
        Ok(best)
    }

    /// Encodes entries into a batch of roughly `max_bytes` (at least one entry if any remain).
    /// An empty batch means the scan is complete.
    pub fn next_batch(&mut self, max_bytes: usize) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(max_bytes.min(1 << 20));
        while out.len() < max_bytes {
            let (index, group) = match self.current {
                Some(current) => current,
                None => match self.select()? {
                    Some(selected) => {
                        self.current = Some(selected);
                        selected
                    }
                    None => break,
                },
            };
            let same_group = match self.cursors[index].iter.key() {
                Some(key) => self.key_group_of(key)? == group,
                None => false,
            };
            if !same_group {
                self.cursors[index].iter.status()?;
                self.current = None;
                continue;
            }
            let cursor = &mut self.cursors[index];
            let (key, value) = (cursor.iter.key().unwrap(), cursor.iter.value().unwrap());
            batch::encode_entry(&mut out, cursor.state_index, key, value);
            cursor.iter.next();
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::test_config;

    fn collect(scan: &mut KeyGroupScan, max_bytes: usize) -> Vec<(u32, Vec<u8>, Vec<u8>)> {
        let mut all = Vec::new();
        loop {
            let bytes = scan.next_batch(max_bytes).unwrap();
            if bytes.is_empty() {
                return all;
            }
            for e in batch::decode(&bytes) {
                let e = e.unwrap();
                all.push((e.state_index, e.key.to_vec(), e.value.unwrap().to_vec()));
            }
        }
    }

    #[test]
    fn merges_columns_by_key_group_then_state() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let a = StateColumnFamily::open(&store, "a").unwrap();
        let b = StateColumnFamily::open(&store, "b").unwrap();
        a.put(&[0, 1, b'x'], b"a0x").unwrap();
        a.put(&[0, 3, b'y'], b"a3y").unwrap();
        b.put(&[0, 1, b'z'], b"b1z").unwrap();
        b.put(&[0, 2, b'w'], b"b2w").unwrap();
        a.put(&[0, 1, b'y'], b"a1y").unwrap();

        for max_bytes in [1, 16, 1 << 16] {
            let mut scan = KeyGroupScan::open(&store, &[&a, &b], 2).unwrap();
            let got: Vec<_> = collect(&mut scan, max_bytes).into_iter().map(|(s, _, v)| (s, v)).collect();
            assert_eq!(
                got,
                vec![
                    (0, b"a0x".to_vec()),
                    (0, b"a1y".to_vec()),
                    (1, b"b1z".to_vec()),
                    (1, b"b2w".to_vec()),
                    (0, b"a3y".to_vec()),
                ],
                "max_bytes {max_bytes}"
            );
        }
    }

    #[test]
    fn scan_reads_its_snapshot_not_later_writes() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let a = StateColumnFamily::open(&store, "a").unwrap();
        a.put(&[5, b'k'], b"before").unwrap();
        let mut scan = KeyGroupScan::open(&store, &[&a], 1).unwrap();
        a.put(&[5, b'k'], b"after").unwrap();
        a.put(&[6, b'k'], b"new").unwrap();
        let got = collect(&mut scan, 1024);
        assert_eq!(got, vec![(0, vec![5, b'k'], b"before".to_vec())]);
    }

    #[test]
    fn scan_outlives_the_callers_column_handles() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let a = StateColumnFamily::open(&store, "a").unwrap();
        a.put(&[1, b'k'], b"v").unwrap();
        let mut scan = KeyGroupScan::open(&store, &[&a], 1).unwrap();
        drop(a);
        drop(store);
        assert_eq!(collect(&mut scan, 64).len(), 1);
    }

    #[test]
    fn rejects_bad_prefix_width() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        assert!(KeyGroupScan::open(&store, &[], 3).is_err());
    }
}
