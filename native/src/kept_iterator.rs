//! One RocksDB iterator kept between the prefix scans of a column family.
//!
//! Flink iterates a `MapState` by making an iterator, seeking to the key's prefix and reading a
//! few entries. Making the RocksDB iterator (a merging iterator over the memtables and one
//! iterator per file or level) and destroying it cost about as much as the seek itself. A kept
//! iterator is refreshed instead: while no flush or compaction has changed the column family's
//! files, a refresh only moves its read sequence number to the latest write, and a seek near the
//! last one reuses the file and block it already holds.
//!
//! A kept iterator pins the files and memtables it was last refreshed over, so a memtable flushed
//! since is freed at the next scan of the column family or when the column family is closed, not
//! at the flush. The write buffer manager keeps charging it to the slot's budget meanwhile.

use std::sync::Mutex;

use rocksdb::DBRawIteratorWithThreadMode;

use crate::error::Result;
use crate::store::Db;

/// A RocksDB iterator kept for reuse, or nothing yet.
#[derive(Default)]
pub struct KeptIterator {
    slot: Mutex<Option<Kept>>,
}

/// RocksDB iterators may move between threads, though not be used by two at once; the mutex
/// around every use ensures that.
struct Kept(DBRawIteratorWithThreadMode<'static, Db>);

// SAFETY: see `Kept`: a RocksDB iterator is only ever used under `KeptIterator::slot`'s lock.
unsafe impl Send for Kept {}

/// A clone keeps an iterator of its own: two holders of one column family scan independently.
impl Clone for KeptIterator {
    fn clone(&self) -> Self {
        KeptIterator::default()
    }
}

impl KeptIterator {
    /// Runs `scan` over the kept iterator, refreshed to the latest writes, or over one made by
    /// `make` when none is kept yet or another thread is using it. `scan` must seek first: a
    /// refreshed iterator has no position.
    ///
    /// # Safety
    /// The database that `make`'s iterators borrow must outlive this `KeptIterator`.
    pub unsafe fn scan<'db, R>(
        &self,
        make: impl FnOnce() -> DBRawIteratorWithThreadMode<'db, Db>,
        scan: impl FnOnce(&mut DBRawIteratorWithThreadMode<'_, Db>) -> Result<R>,
    ) -> Result<R> {
        let Ok(mut slot) = self.slot.try_lock() else {
            return scan(&mut make());
        };
        let mut kept = match slot.take() {
            Some(mut kept) => {
                kept.0.refresh()?;
                kept
            }
            // SAFETY: the caller guarantees the database outlives `self`, which owns the iterator.
            None => Kept(unsafe {
                std::mem::transmute::<DBRawIteratorWithThreadMode<'db, Db>, DBRawIteratorWithThreadMode<'static, Db>>(
                    make(),
                )
            }),
        };
        let result = scan(&mut kept.0);
        if result.is_ok() {
            // An iterator whose scan failed is dropped rather than kept: its status may stay bad.
            *slot = Some(kept);
        }
        result
    }
}
