//! The memory budget of one Flink slot: one block cache and one write-buffer manager, shared
//! by every keyed backend (store) in the slot, as Flink's RocksDB backend shares them.
//!
//! The split follows Flink's `RocksDBMemoryControllerUtils`: with a total `T` and write-buffer
//! ratio `r`, the cache gets `(3 - r) * T / 3` and the write-buffer manager `2 * T * r / 3`.
//! Memtable memory is charged to the cache, so the two together stay within `T`.

use rocksdb::{Cache, WriteBufferManager};

use crate::error::{NativeError, Result};

/// A slot's shared block cache and write-buffer manager.
pub struct SlotMemory {
    cache: Cache,
    write_buffers: WriteBufferManager,
    total_bytes: usize,
    memtable_bytes: usize,
}

// RocksDB's cache and write-buffer manager are internally synchronised C++ objects meant to be
// shared by many databases and threads; rust-rocksdb only lacks the marker traits.
unsafe impl Send for SlotMemory {}
unsafe impl Sync for SlotMemory {}

impl SlotMemory {
    /// A budget of `total_bytes` whose memtables may take the share `write_buffer_ratio`, each
    /// memtable holding up to `memtable_bytes` before it is flushed.
    pub fn new(total_bytes: usize, write_buffer_ratio: f64, memtable_bytes: usize) -> Result<SlotMemory> {
        if memtable_bytes == 0 {
            return Err(NativeError::InvalidArgument("the write buffer size must be positive".to_owned()));
        }
        if total_bytes == 0 {
            return Err(NativeError::InvalidArgument("the memory budget of a slot must be positive".to_owned()));
        }
        if !(write_buffer_ratio > 0.0 && write_buffer_ratio < 1.0) {
            return Err(NativeError::InvalidArgument(format!(
                "write buffer ratio must be in (0, 1), got {write_buffer_ratio}"
            )));
        }
        let (cache_bytes, write_buffer_bytes) = split(total_bytes, write_buffer_ratio);
        let cache = Cache::new_lru_cache(cache_bytes);
        let write_buffers =
            WriteBufferManager::new_write_buffer_manager_with_cache(write_buffer_bytes, false, cache.clone());
        Ok(SlotMemory { cache, write_buffers, total_bytes, memtable_bytes })
    }

    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    pub fn write_buffers(&self) -> &WriteBufferManager {
        &self.write_buffers
    }

    pub fn total_bytes(&self) -> usize {
        self.total_bytes
    }

    /// The size of one memtable (RocksDB's `write_buffer_size`) of every store in the slot.
    pub fn memtable_bytes(&self) -> usize {
        self.memtable_bytes
    }

    /// Bytes in the block cache, including memtable memory charged to it.
    pub fn cache_usage(&self) -> usize {
        self.cache.get_usage()
    }

    pub fn pinned_usage(&self) -> usize {
        self.cache.get_pinned_usage()
    }

    pub fn write_buffer_usage(&self) -> usize {
        self.write_buffers.get_usage()
    }
}

/// Cache and write-buffer capacities for a total budget, as Flink computes them.
pub fn split(total_bytes: usize, write_buffer_ratio: f64) -> (usize, usize) {
    let total = total_bytes as f64;
    let cache = ((3.0 - write_buffer_ratio) * total / 3.0) as usize;
    let write_buffers = (2.0 * total * write_buffer_ratio / 3.0) as usize;
    (cache, write_buffers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_matches_flinks_formula() {
        assert_eq!(split(300, 0.5), (250, 100));
        let (cache, buffers) = split(64 << 20, 0.5);
        assert_eq!(cache, 55_924_053);
        assert_eq!(buffers, 22_369_621);
    }

    #[test]
    fn rejects_bad_budgets() {
        assert!(SlotMemory::new(0, 0.5, 1 << 20).is_err());
        assert!(SlotMemory::new(1 << 20, 0.0, 1 << 20).is_err());
        assert!(SlotMemory::new(1 << 20, 1.0, 1 << 20).is_err());
        assert!(SlotMemory::new(1 << 20, 0.5, 0).is_err());
        let memory = SlotMemory::new(8 << 20, 0.5, 1 << 20).unwrap();
        assert_eq!(memory.total_bytes(), 8 << 20);
    }
}
