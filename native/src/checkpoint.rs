//! Native checkpoints: hard links of a store's live SST files plus RocksDB's metadata files,
//! in a new directory that the Java side uploads as a Flink snapshot.

use std::path::Path;

use rocksdb::checkpoint::Checkpoint;

use crate::error::Result;
use crate::store::KeyedStore;

/// Flushes every memtable, then writes a RocksDB checkpoint of `store` into `target`, which
/// must not exist yet.
///
/// The WAL is off, so only flushed data can be in a checkpoint. RocksDB also flushes when
/// asked for a checkpoint without a WAL size limit, but flushing every state column family
/// here keeps correctness independent of that detail.
pub fn create_checkpoint(store: &KeyedStore, target: &Path) -> Result<()> {
    store.flush()?;
    Checkpoint::new(store.db()?)?.create_checkpoint(target)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::test_config;
    use crate::store::StateColumnFamily;

    #[test]
    fn checkpoint_holds_unflushed_writes_and_reopens_as_a_store() {
        let dir = crate::test_support::TempDir::new();
        let target = dir.path().join("chk-1");
        {
            let store = KeyedStore::open(&dir.path().join("db"), test_config()).unwrap();
            let column = StateColumnFamily::open(&store, "values").unwrap();
            column.put(b"\x00k", b"v").unwrap();
            create_checkpoint(&store, &target).unwrap();
            // A write after the checkpoint must not show up in it.
            column.put(b"\x00later", b"x").unwrap();
        }
        let files: Vec<String> = std::fs::read_dir(&target)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(files.iter().any(|f| f.ends_with(".sst")), "no SST file in {files:?}");
        assert!(files.iter().any(|f| f == "CURRENT"));

        let restored = KeyedStore::open(&target, test_config()).unwrap();
        let column = StateColumnFamily::open(&restored, "values").unwrap();
        assert_eq!(&*column.get(b"\x00k").unwrap().unwrap(), b"v");
        assert!(column.get(b"\x00later").unwrap().is_none());
    }

    #[test]
    fn a_flush_returns_once_every_column_family_is_on_disk() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(&dir.path().join("db"), test_config()).unwrap();
        let columns: Vec<StateColumnFamily> =
            ["a", "b", "c"].iter().map(|name| StateColumnFamily::open(&store, name).unwrap()).collect();
        let value = vec![7u8; 100];
        for round in 0..3u32 {
            for column in &columns {
                for i in 0..20_000u32 {
                    column.put(&[&round.to_be_bytes()[..], &i.to_be_bytes()[..]].concat(), &value).unwrap();
                }
            }
            store.flush().unwrap();
            for column in &columns {
                assert_eq!(column.int_property("rocksdb.num-immutable-mem-table").unwrap(), Some(0));
                assert_eq!(column.int_property("rocksdb.mem-table-flush-pending").unwrap(), Some(0));
                assert_eq!(column.int_property("rocksdb.num-entries-active-mem-table").unwrap(), Some(0));
            }
        }
    }

    #[test]
    fn checkpoint_into_an_existing_directory_is_an_error() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(&dir.path().join("db"), test_config()).unwrap();
        assert!(create_checkpoint(&store, dir.path()).is_err());
    }
}
