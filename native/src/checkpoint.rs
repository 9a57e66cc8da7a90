//! Native checkpoints: hard links of a store's live SST files plus RocksDB's metadata files,
//! in a new directory that the Java side uploads as a Flink snapshot.
//!
//! A checkpoint has two steps, matching Flink's two phases. [`begin_checkpoint`], on the task
//! thread at the barrier, applies the write-back buffer and switches every memtable, which only
//! schedules their flushes. [`complete_checkpoint`], in the asynchronous phase, waits for those
//! flushes and links the files. In between, no write may reach RocksDB: a memtable filled after
//! the barrier could be flushed before the link, and its file would be in the checkpoint. So the
//! store links the files first when it is about to write ([`KeyedStore::writable_db`]); point
//! writes meanwhile collect in the write-back buffer, and reads see both as always.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::error::{NativeError, Result};
use crate::store::KeyedStore;

/// Starts a checkpoint of `store` into `target`, which must not exist yet: applies the write-back
/// buffer and switches every memtable. The files are linked by [`complete_checkpoint`], or by the
/// store's next write to RocksDB, whichever comes first.
///
/// The WAL is off, so only flushed data can be in a checkpoint.
pub fn begin_checkpoint(store: &KeyedStore, target: &Path) -> Result<()> {
    if target.exists() {
        return Err(NativeError::InvalidArgument(format!(
            "the checkpoint directory {} exists already; a checkpoint needs a new one",
            target.display()
        )));
    }
    // Links an earlier checkpoint's files before this one switches memtables again.
    store.writable_db()?;
    store.switch_memtables()?;
    store.pending_checkpoints().switched(target.to_path_buf());
    Ok(())
}

/// Waits until the checkpoint begun into `target` has its files, and returns how linking went.
pub fn complete_checkpoint(store: &KeyedStore, target: &Path) -> Result<()> {
    store.link_pending_checkpoint();
    store.pending_checkpoints().take_outcome(target).unwrap_or_else(|| {
        Err(NativeError::InvalidArgument(format!(
            "no checkpoint was begun into {}, or its outcome was taken already",
            target.display()
        )))
    })
}

/// Both steps at once: the checkpoint holds every write made before the call.
pub fn create_checkpoint(store: &KeyedStore, target: &Path) -> Result<()> {
    begin_checkpoint(store, target)?;
    complete_checkpoint(store, target)
}

/// The checkpoint of a store whose memtables are switched and whose files are not linked yet,
/// and the outcomes of linked ones that their asynchronous phase has not collected.
#[derive(Default)]
pub(crate) struct PendingCheckpoints {
    /// Set while `state.switched` holds a checkpoint; lets every write skip the lock.
    any_switched: AtomicBool,
    state: Mutex<PendingState>,
}

#[derive(Default)]
struct PendingState {
    switched: Option<PathBuf>,
    linked: HashMap<PathBuf, Result<()>>,
}

impl PendingCheckpoints {
    fn lock(&self) -> std::sync::MutexGuard<'_, PendingState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a checkpoint whose memtables were just switched. The caller linked any earlier one.
    fn switched(&self, target: PathBuf) {
        let mut state = self.lock();
        debug_assert!(state.switched.is_none(), "a checkpoint began before the previous one was linked");
        state.switched = Some(target);
        self.any_switched.store(true, Ordering::Release);
    }

    /// Links the switched checkpoint with `link`, if there is one, and keeps the outcome. A
    /// caller that finds another linking waits until it has finished.
    pub(crate) fn link_with(&self, link: impl FnOnce(&Path) -> Result<()>) {
        if !self.any_switched.load(Ordering::Acquire) {
            return;
        }
        let mut state = self.lock();
        if let Some(target) = state.switched.take() {
            let outcome = link(&target);
            state.linked.insert(target, outcome);
            self.any_switched.store(false, Ordering::Release);
        }
    }

    fn take_outcome(&self, target: &Path) -> Option<Result<()>> {
        self.lock().linked.remove(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use crate::store::tests::test_config;
    use crate::store::{StateColumnFamily, StoreConfig};

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

    fn entry_names(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
    }

    fn key(i: u32) -> Vec<u8> {
        [&b"\x00"[..], &i.to_be_bytes()[..]].concat()
    }

    /// Writes after the barrier, enough to fill several memtables, before the asynchronous phase
    /// links the files: none of them may be in the checkpoint.
    fn writes_after_the_barrier_stay_out(write_back_bytes: usize) {
        let dir = crate::test_support::TempDir::new();
        let target = dir.path().join("chk-1");
        let config = StoreConfig { write_back_bytes, ..test_config() };
        let value = vec![3u8; 200];
        {
            let store = KeyedStore::open(&dir.path().join("db"), config.clone()).unwrap();
            let column = StateColumnFamily::open(&store, "values").unwrap();
            for i in 0..1_000 {
                column.put(&key(i), b"before").unwrap();
            }
            begin_checkpoint(&store, &target).unwrap();
            // Reads see every write while the checkpoint waits for its files.
            assert_eq!(&*column.get(&key(7)).unwrap().unwrap(), b"before");
            for i in 0..60_000 {
                column.put(&key(i), &value).unwrap();
            }
            assert!(target.exists(), "the first write to RocksDB after the barrier links the files first");
            assert_eq!(&*column.get(&key(7)).unwrap().unwrap(), &value[..]);
            complete_checkpoint(&store, &target).unwrap();
            assert!(complete_checkpoint(&store, &target).is_err(), "an outcome is taken once");
        }
        assert!(entry_names(&target).iter().any(|f| f.ends_with(".sst")));
        let restored = KeyedStore::open(&target, config).unwrap();
        let column = StateColumnFamily::open(&restored, "values").unwrap();
        assert_eq!(column.count_entries().unwrap(), 1_000);
        assert_eq!(&*column.get(&key(999)).unwrap().unwrap(), b"before");
    }

    #[test]
    fn writes_held_back_after_the_barrier_stay_out_of_the_checkpoint() {
        writes_after_the_barrier_stay_out(64 << 10);
    }

    #[test]
    fn writes_going_through_after_the_barrier_stay_out_of_the_checkpoint() {
        writes_after_the_barrier_stay_out(0);
    }

    #[test]
    fn another_thread_links_the_files_while_the_task_reads() {
        let dir = crate::test_support::TempDir::new();
        let target = dir.path().join("chk-1");
        let store = KeyedStore::open(&dir.path().join("db"), test_config()).unwrap();
        let column = StateColumnFamily::open(&store, "values").unwrap();
        for i in 0..20_000 {
            column.put(&key(i), b"v").unwrap();
        }
        begin_checkpoint(&store, &target).unwrap();
        let linker = {
            let store = Arc::clone(&store);
            let target = target.clone();
            std::thread::spawn(move || complete_checkpoint(&store, &target))
        };
        for i in (0..20_000).step_by(97) {
            assert_eq!(&*column.get(&key(i)).unwrap().unwrap(), b"v");
        }
        linker.join().unwrap().unwrap();
        assert!(entry_names(&target).iter().any(|f| f == "CURRENT"));
    }

    #[test]
    fn a_checkpoint_begun_before_the_last_was_linked_links_that_one_first() {
        let dir = crate::test_support::TempDir::new();
        let (first, second) = (dir.path().join("chk-1"), dir.path().join("chk-2"));
        let store = KeyedStore::open(&dir.path().join("db"), test_config()).unwrap();
        let column = StateColumnFamily::open(&store, "values").unwrap();
        column.put(b"\x00a", b"1").unwrap();
        begin_checkpoint(&store, &first).unwrap();
        column.put(b"\x00b", b"2").unwrap();
        begin_checkpoint(&store, &second).unwrap();
        complete_checkpoint(&store, &second).unwrap();
        complete_checkpoint(&store, &first).unwrap();
        for (target, entries) in [(&first, 1), (&second, 2)] {
            let restored = KeyedStore::open(target, test_config()).unwrap();
            assert_eq!(StateColumnFamily::open(&restored, "values").unwrap().count_entries().unwrap(), entries);
        }
    }

    #[test]
    fn completing_a_checkpoint_that_never_began_is_an_error() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(&dir.path().join("db"), test_config()).unwrap();
        let error = complete_checkpoint(&store, &dir.path().join("chk-9")).unwrap_err();
        assert!(error.to_string().contains("no checkpoint was begun"), "{error}");
    }

    #[test]
    fn checkpoint_into_an_existing_directory_is_an_error() {
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(&dir.path().join("db"), test_config()).unwrap();
        assert!(create_checkpoint(&store, dir.path()).is_err());
    }
}
