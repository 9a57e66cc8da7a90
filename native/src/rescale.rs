//! Rescaling a restored instance to a backend's key groups: clipping away the key groups it
//! does not own, and copying the owned key groups of another restored instance into it.
//!
//! Every key starts with its key-group prefix, so a set of key groups is one key range.

use std::path::Path;

use rocksdb::{ReadOptions, WriteBatch};

use crate::error::{NativeError, Result};
use crate::store::{Db, KeyedStore};

/// Bytes of copied entries gathered before one write.
const COPY_BATCH_BYTES: usize = 4 << 20;

/// The keys `k` with `begin <= k < end`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRange {
    pub begin: Vec<u8>,
    pub end: Vec<u8>,
}

impl KeyRange {
    pub fn new(begin: &[u8], end: &[u8]) -> Result<KeyRange> {
        if begin > end {
            return Err(NativeError::InvalidArgument(format!("key range begins at {begin:?} after its end {end:?}")));
        }
        Ok(KeyRange { begin: begin.to_vec(), end: end.to_vec() })
    }

    fn is_empty(&self) -> bool {
        self.begin == self.end
    }
}

/// Deletes every key in `ranges` from every state column family of `store`. SST files that
/// lie wholly inside a range are dropped first, which costs no I/O; a range tombstone then
/// covers what remains.
pub fn delete_ranges(store: &KeyedStore, ranges: &[KeyRange]) -> Result<()> {
    let db = store.writable_db()?;
    for name in store.column_family_names() {
        let Some(cf) = db.cf_handle(&name) else { continue };
        for range in ranges.iter().filter(|r| !r.is_empty()) {
            db.delete_file_in_range_cf(&cf, &range.begin, &range.end)?;
            db.delete_range_cf_opt(&cf, &range.begin, &range.end, store.write_options())?;
        }
    }
    Ok(())
}

/// Copies every entry in `range` of every column family of the instance in `source` into the
/// same-named column family of `store`, creating it where needed. Returns the entries copied.
///
/// The source is opened read-only with the store's column options, so its unmerged list
/// appends are merged by the same operator while they are read.
pub fn copy_range_from(store: &KeyedStore, source: &Path, range: &KeyRange) -> Result<u64> {
    let options = store.opening_column_options().clone();
    let names: Vec<String> =
        Db::list_cf(&options, source)?.into_iter().filter(|name| name != rocksdb::DEFAULT_COLUMN_FAMILY_NAME).collect();
    let source_db = Db::open_cf_with_opts_for_read_only(
        &options,
        source,
        names.iter().map(|name| (name.as_str(), options.clone())),
        false,
    )?;
    let db = store.writable_db()?;
    let mut copied = 0;
    for name in &names {
        store.ensure_column_family(name)?;
        let (Some(from), Some(to)) = (source_db.cf_handle(name), db.cf_handle(name)) else {
            return Err(NativeError::Internal(format!("column family '{name}' vanished during copy")));
        };
        let mut read = ReadOptions::default();
        read.set_iterate_upper_bound(range.end.clone());
        // A one-off scan must not evict the slot's hot blocks.
        read.fill_cache(false);
        let mut it = source_db.raw_iterator_cf_opt(&from, read);
        it.seek(&range.begin);
        let mut batch = WriteBatch::default();
        while let (Some(key), Some(value)) = (it.key(), it.value()) {
            batch.put_cf(&to, key, value);
            copied += 1;
            if batch.size_in_bytes() >= COPY_BATCH_BYTES {
                db.write_opt(std::mem::take(&mut batch), store.write_options())?;
            }
            it.next();
        }
        it.status()?;
        db.write_opt(batch, store.write_options())?;
    }
    Ok(copied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::create_checkpoint;
    use crate::store::tests::test_config;
    use crate::store::StateColumnFamily;

    fn keys(column: &StateColumnFamily) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut it = column.store().db().unwrap().raw_iterator_cf(column.cf());
        it.seek_to_first();
        while let Some(key) = it.key() {
            out.push(key.to_vec());
            it.next();
        }
        out
    }

    /// One entry in each of key groups 0..8 (one-byte prefixes), flushed so files exist.
    fn fill(store: &std::sync::Arc<KeyedStore>, name: &str) -> StateColumnFamily {
        let column = StateColumnFamily::open(store, name).unwrap();
        for group in 0u8..8 {
            column.put(&[group, b'k'], &[group]).unwrap();
        }
        store.flush().unwrap();
        column
    }

    #[test]
    fn delete_ranges_clips_every_column_to_the_kept_key_groups() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let (a, b) = (fill(&store, "a"), fill(&store, "b"));
        // Keep key groups 2..=5: delete [0, 2) and [6, 8).
        let ranges = [KeyRange::new(&[0], &[2]).unwrap(), KeyRange::new(&[6], &[8]).unwrap()];
        delete_ranges(&store, &ranges).unwrap();
        let expected: Vec<Vec<u8>> = (2u8..6).map(|g| vec![g, b'k']).collect();
        assert_eq!(keys(&a), expected);
        assert_eq!(keys(&b), expected);
    }

    #[test]
    fn copy_range_from_merges_only_the_owned_key_groups_of_another_instance() {
        let dir = crate::test_support::TempDir::new();
        let source_dir = dir.path().join("source");
        {
            let source = KeyedStore::open(&dir.path().join("other"), test_config()).unwrap();
            let lists = fill(&source, "lists");
            // An unflushed, unmerged append must arrive merged.
            lists.merge(&[3, b'k'], b"more").unwrap();
            fill(&source, "only-in-source");
            create_checkpoint(&source, &source_dir).unwrap();
        }
        let store = KeyedStore::open(&dir.path().join("target"), test_config()).unwrap();
        let lists = StateColumnFamily::open(&store, "lists").unwrap();
        lists.put(&[0, b'k'], b"mine").unwrap();

        let copied = copy_range_from(&store, &source_dir, &KeyRange::new(&[3], &[5]).unwrap()).unwrap();
        assert_eq!(copied, 4);
        assert_eq!(keys(&lists), vec![vec![0, b'k'], vec![3, b'k'], vec![4, b'k']]);
        assert_eq!(&*lists.get(&[3, b'k']).unwrap().unwrap(), b"\x03,more");
        let created = StateColumnFamily::open(&store, "only-in-source").unwrap();
        assert_eq!(keys(&created), vec![vec![3, b'k'], vec![4, b'k']]);
    }

    #[test]
    fn a_reversed_range_is_rejected() {
        assert!(KeyRange::new(&[5], &[2]).is_err());
    }
}
