//! The memory budget of one Flink slot: one block cache and one write-buffer manager, shared
//! by every keyed backend (store) in the slot, as Flink's RocksDB backend shares them.
//!
//! The split follows Flink's `RocksDBMemoryControllerUtils`: with a total `T` and write-buffer
//! ratio `r`, the cache gets `(3 - r) * T / 3` and the write-buffer manager `2 * T * r / 3`.
//! Memtable memory is charged to the cache, so the two together stay within `T`.

//!
//! Memory that the slot's budget pays for outside RocksDB (an operator's cache or its Arrow
//! batches) is [reserved](SlotMemory::reserve): the block cache shrinks by the reservation while
//! it is held, so the slot's total stays within `T`. The Java decoded-value cache may also be
//! [lent](SlotMemory::lend_to_value_cache) block cache that RocksDB leaves idle, on the same terms,
//! and may in turn [give](SlotMemory::accept_from_value_cache) the block cache part of its own share
//! while few reads hit it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rocksdb::{Cache, WriteBufferManager};

use crate::error::{NativeError, Result};

/// The share of the block cache that reservations may take; the rest always stays RocksDB's.
const RESERVABLE_SHARE: f64 = 0.5;

/// The smallest cache a kernel is given when its slot cannot spare the cache it asked for; below
/// this it runs without one.
const MIN_KERNEL_CACHE_BYTES: usize = 1 << 20;

/// What a block-cache entry is expected to charge; 0 lets RocksDB's hyper clock cache size its
/// table as entries arrive (`AutoHyperClockCache`), since a slot's entries range from 4 KiB data
/// blocks to filter blocks of megabytes.
///
/// Why a hyper clock cache and not an LRU one: a lookup is lock-free and marks an entry used without
/// moving it, where an LRU lookup takes its shard's mutex and relinks the entry. A cached point
/// read looks up a data block (and, for partitioned layouts, an index and a filter partition) per
/// file it consults. Its shards hold at least 32 MiB, so the full filter block of a large SST file
/// (about 3 MiB) fits one: an LRU cache's default shards of 512 KiB to a few MiB could not keep it
/// and read it again on every lookup.
const ESTIMATED_ENTRY_CHARGE: usize = 0;

/// Memtables a column family holds at most: the one being filled and one being flushed (RocksDB's
/// `max_write_buffer_number`, set on every column family of the slot's stores).
pub const MEMTABLES_PER_COLUMN_FAMILY: usize = 2;

/// A memtable passes its `write_buffer_size` by up to one arena block, an eighth of that size.
const MEMTABLE_ARENA_SLACK: f64 = 1.125;

/// A slot's shared block cache and write-buffer manager.
pub struct SlotMemory {
    cache: Cache,
    write_buffers: WriteBufferManager,
    total_bytes: usize,
    memtable_bytes: usize,
    /// The block cache's capacity before any reservation.
    cache_bytes: usize,
    held: Mutex<Held>,
    /// Column families of the slot's stores, whose memtables the write-buffer manager charges.
    column_families: AtomicUsize,
}

/// Bytes of the block cache's share held elsewhere; the block cache is smaller by their sum.
#[derive(Default)]
struct Held {
    /// By reservations (operator kernels), until each is dropped.
    reserved: usize,
    /// By the decoded-value cache, until it gives them back.
    lent: usize,
    /// Of the decoded-value cache's own share, given to the block cache (which grows by them)
    /// while that cache serves few reads, until it takes them back.
    accepted: usize,
}

impl Held {
    /// The block cache's capacity given its share of the budget.
    fn cache_capacity(&self, cache_bytes: usize) -> usize {
        (cache_bytes + self.accepted).saturating_sub(self.reserved + self.lent)
    }
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
        let cache = Cache::new_hyper_clock_cache(cache_bytes, ESTIMATED_ENTRY_CHARGE);
        let write_buffers =
            WriteBufferManager::new_write_buffer_manager_with_cache(write_buffer_bytes, false, cache.clone());
        Ok(SlotMemory {
            cache,
            write_buffers,
            total_bytes,
            memtable_bytes,
            cache_bytes,
            held: Mutex::new(Held::default()),
            column_families: AtomicUsize::new(0),
        })
    }

    /// Takes `bytes` of the slot's budget away from the block cache for memory kept outside
    /// RocksDB, until the reservation is dropped. `None` if the reservations of the slot would
    /// then take more than half of the block cache.
    pub fn reserve(self: &Arc<Self>, bytes: usize) -> Option<MemoryReservation> {
        let mut held = self.held();
        let limit = self.holdable_bytes();
        let reserved = held.reserved.checked_add(bytes).filter(|after| *after <= limit)?;
        // A loan gives way to a reservation: an operator's cache is part of its design, the loan
        // only uses idle memory. The decoded-value cache shrinks to the smaller loan at its next
        // check.
        held.lent = held.lent.min(limit - reserved);
        held.reserved = reserved;
        self.apply_capacity(&held);
        Some(MemoryReservation { memory: Arc::clone(self), bytes })
    }

    /// Lends the decoded-value cache `bytes` of the block cache's share in place of what it held
    /// before (0 gives everything back), at most what reservations leave of the holdable half.
    /// Returns the bytes lent. A reservation made later takes back what it needs of the loan.
    pub fn lend_to_value_cache(&self, bytes: usize) -> usize {
        let mut held = self.held();
        held.lent = bytes.min(self.holdable_bytes().saturating_sub(held.reserved));
        self.apply_capacity(&held);
        held.lent
    }

    /// Grows the block cache by `bytes` of the decoded-value cache's own share, in place of what
    /// it gave before (0 takes everything back), at most the slot's total budget. The Java cache
    /// has shrunk by as much before it gives, and grows only after it took back. Returns the bytes
    /// accepted.
    pub fn accept_from_value_cache(&self, bytes: usize) -> usize {
        let mut held = self.held();
        held.accepted = bytes.min(self.total_bytes);
        self.apply_capacity(&held);
        held.accepted
    }

    /// Block cache RocksDB does not use now and would not even with every memtable at its
    /// [ceiling](SlotMemory::memtable_ceiling): what a loan may take without evicting a block.
    pub fn idle_cache_bytes(&self) -> usize {
        let memtables_to_come = self.memtable_ceiling().saturating_sub(self.write_buffer_usage());
        self.cache_capacity().saturating_sub(self.cache_usage()).saturating_sub(memtables_to_come)
    }

    /// The most the memtables of the slot can take: the write-buffer manager's limit, or less
    /// when the slot has so few column families that their [`MEMTABLES_PER_COLUMN_FAMILY`] full
    /// memtables stay below it.
    ///
    /// Why: a slot whose job keeps one or two states has one or two column families, which can
    /// never fill a limit sized for many. Counting the whole limit as memory to come kept block
    /// cache that no memtable could ever use from being lent to the decoded-value cache.
    pub fn memtable_ceiling(&self) -> usize {
        let per_family = (self.memtable_bytes as f64 * MEMTABLE_ARENA_SLACK) as usize * MEMTABLES_PER_COLUMN_FAMILY;
        let families = self.column_families.load(Ordering::Acquire);
        self.write_buffers.get_buffer_size().min(per_family.saturating_mul(families))
    }

    /// Counts `count` column families whose memtables the slot charges, until the returned
    /// charge, which may count more, is dropped.
    pub fn charge_column_families(self: &Arc<Self>, count: usize) -> ColumnFamilyCharge {
        let charge = ColumnFamilyCharge { memory: Arc::clone(self), count: AtomicUsize::new(0) };
        charge.add(count);
        charge
    }

    /// Bytes lent to the decoded-value cache now.
    pub fn lent_bytes(&self) -> usize {
        self.held().lent
    }

    /// The most that reservations and loans may hold together.
    fn holdable_bytes(&self) -> usize {
        (self.cache_bytes as f64 * RESERVABLE_SHARE) as usize
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn apply_capacity(&self, held: &Held) {
        self.cache.clone().set_capacity(held.cache_capacity(self.cache_bytes));
    }

    /// Reserves an operator kernel's memory: its `cache` and `batches` if the slot can spare
    /// both; else its batches and a smaller cache, at most half of the room left after them (so
    /// the slot's other kernels find room too) and at least [`MIN_KERNEL_CACHE_BYTES`]; else its
    /// batches and no cache; else nothing. Returns the reservation and the cache bytes it covers.
    pub fn reserve_for_kernel(self: &Arc<Self>, cache: usize, batches: usize) -> (Option<MemoryReservation>, usize) {
        match self.reserve_shrinkable(batches, cache, MIN_KERNEL_CACHE_BYTES) {
            Some((reservation, cache)) => (Some(reservation), cache),
            None => (self.reserve(batches), 0),
        }
    }

    /// Reserves `fixed` bytes plus `wanted` if the slot can spare both; else `fixed` plus half of
    /// the room left after it (so the slot's other users find room too), if that half is at least
    /// `min`; else nothing. Returns the reservation and the part of `wanted` it covers.
    pub fn reserve_shrinkable(
        self: &Arc<Self>,
        fixed: usize,
        wanted: usize,
        min: usize,
    ) -> Option<(MemoryReservation, usize)> {
        if let Some(reservation) = self.reserve(fixed + wanted) {
            return Some((reservation, wanted));
        }
        let smaller = wanted.min(self.reservable_bytes().saturating_sub(fixed) / 2);
        if smaller < min {
            return None;
        }
        self.reserve(fixed + smaller).map(|reservation| (reservation, smaller))
    }

    /// Bytes that reservations may still take (a loan gives way to them).
    fn reservable_bytes(&self) -> usize {
        self.holdable_bytes().saturating_sub(self.held().reserved)
    }

    /// Bytes reserved from the budget and held now.
    pub fn reserved_bytes(&self) -> usize {
        self.held().reserved
    }

    /// The block cache's capacity now: its share of the budget less reservations and loans, plus
    /// what the decoded-value cache gave it.
    pub fn cache_capacity(&self) -> usize {
        self.held().cache_capacity(self.cache_bytes)
    }

    fn release(&self, bytes: usize) {
        let mut held = self.held();
        held.reserved -= bytes;
        self.apply_capacity(&held);
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

/// Bytes of a slot's budget held outside RocksDB; released when dropped.
pub struct MemoryReservation {
    memory: Arc<SlotMemory>,
    bytes: usize,
}

impl MemoryReservation {
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for MemoryReservation {
    fn drop(&mut self) {
        self.memory.release(self.bytes);
    }
}

/// A store's column families, counted towards its slot's
/// [memtable ceiling](SlotMemory::memtable_ceiling) while the store is open.
pub struct ColumnFamilyCharge {
    memory: Arc<SlotMemory>,
    count: AtomicUsize,
}

impl ColumnFamilyCharge {
    /// Counts `count` more column families.
    pub fn add(&self, count: usize) {
        self.count.fetch_add(count, Ordering::AcqRel);
        self.memory.column_families.fetch_add(count, Ordering::AcqRel);
    }
}

impl Drop for ColumnFamilyCharge {
    fn drop(&mut self) {
        self.memory.column_families.fetch_sub(*self.count.get_mut(), Ordering::AcqRel);
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

    #[test]
    fn reservations_shrink_the_block_cache_until_dropped() {
        let memory = Arc::new(SlotMemory::new(300 << 20, 0.5, 1 << 20).unwrap());
        let full = memory.cache_capacity();
        assert_eq!(full, 250 << 20);
        let first = memory.reserve(100 << 20).expect("within half the cache");
        assert_eq!(memory.cache_capacity(), 150 << 20);
        assert!(memory.reserve(30 << 20).is_none(), "more than half of the cache is refused");
        let second = memory.reserve(25 << 20).unwrap();
        assert_eq!(memory.reserved_bytes(), 125 << 20);
        drop(first);
        assert_eq!(memory.cache_capacity(), full - (25 << 20));
        drop(second);
        assert_eq!((memory.cache_capacity(), memory.reserved_bytes()), (full, 0));
    }

    #[test]
    fn a_loan_to_the_value_cache_shrinks_the_block_cache_within_what_reservations_leave() {
        let memory = Arc::new(SlotMemory::new(300 << 20, 0.5, 1 << 20).unwrap());
        let full = memory.cache_capacity();
        assert_eq!(memory.lend_to_value_cache(50 << 20), 50 << 20);
        assert_eq!((memory.cache_capacity(), memory.lent_bytes()), (full - (50 << 20), 50 << 20));
        let reservation = memory.reserve(70 << 20).expect("the loan leaves room");
        assert_eq!(memory.lend_to_value_cache(100 << 20), 55 << 20, "clipped to what the reservation leaves");
        assert_eq!(memory.cache_capacity(), full / 2);
        let second = memory.reserve(25 << 20).expect("a reservation takes back part of the loan");
        assert_eq!((memory.lent_bytes(), memory.cache_capacity()), (30 << 20, full / 2));
        assert!(memory.reserve(31 << 20).is_none(), "but never more than the holdable half");
        drop((reservation, second));
        assert_eq!(memory.cache_capacity(), full - (30 << 20), "the loan stays after the reservations go");
        assert_eq!(memory.lend_to_value_cache(0), 0);
        assert_eq!((memory.cache_capacity(), memory.lent_bytes(), memory.reserved_bytes()), (full, 0, 0));
    }

    #[test]
    fn the_value_cache_share_given_grows_the_block_cache_beside_reservations() {
        let memory = Arc::new(SlotMemory::new(300 << 20, 0.5, 1 << 20).unwrap());
        let full = memory.cache_capacity();
        assert_eq!(memory.accept_from_value_cache(15 << 20), 15 << 20);
        assert_eq!(memory.cache_capacity(), full + (15 << 20));
        let reservation = memory.reserve(full / 2).expect("half of the budgeted block cache");
        assert!(memory.reserve(1).is_none(), "the bytes given do not widen the holdable half");
        assert_eq!(memory.cache_capacity(), full / 2 + (15 << 20));
        drop(reservation);
        assert_eq!(memory.accept_from_value_cache(0), 0);
        assert_eq!(memory.cache_capacity(), full);
        assert_eq!(memory.accept_from_value_cache(usize::MAX), 300 << 20, "never more than the slot's budget");
    }

    #[test]
    fn memtables_to_come_are_bounded_by_the_column_families_of_the_slot() {
        let memory = Arc::new(SlotMemory::new(300 << 20, 0.5, 1 << 20).unwrap());
        assert_eq!(memory.memtable_ceiling(), 0, "no column family, no memtable");
        let first = memory.charge_column_families(1);
        let per_family = 2 * (9 << 20) / 8;
        assert_eq!(memory.memtable_ceiling(), per_family);
        let idle = memory.idle_cache_bytes();
        let expected = memory.cache_capacity() - memory.cache_usage() - (per_family - memory.write_buffer_usage());
        assert_eq!(idle, expected);
        let many = memory.charge_column_families(99);
        many.add(1);
        assert_eq!(memory.memtable_ceiling(), 100 << 20, "never above the write-buffer manager's limit");
        drop(many);
        assert_eq!(memory.memtable_ceiling(), per_family);
        drop(first);
        assert_eq!(memory.memtable_ceiling(), 0);
    }

    #[test]
    fn a_kernel_gets_a_smaller_cache_when_its_slot_is_short() {
        // 64 MiB per slot, as parallelism 4 gets of 256 MiB: about 28 MiB may be reserved.
        let memory = Arc::new(SlotMemory::new(64 << 20, 0.5, 1 << 20).unwrap());
        let limit = (memory.cache_capacity() as f64 * RESERVABLE_SHARE) as usize;
        let (first, first_cache) = memory.reserve_for_kernel(32 << 20, 4 << 20);
        assert_eq!(first_cache, (limit - (4 << 20)) / 2, "half of the room after its batches");
        let (second, second_cache) = memory.reserve_for_kernel(32 << 20, 4 << 20);
        assert!(second_cache >= MIN_KERNEL_CACHE_BYTES && second_cache < first_cache, "{second_cache}");
        let (third, third_cache) = memory.reserve_for_kernel(32 << 20, 4 << 20);
        assert_eq!((third.is_none(), third_cache), (true, 0), "no room for its batches: nothing");
        drop(second);
        let (fourth, fourth_cache) = memory.reserve_for_kernel(32 << 20, 4 << 20);
        assert_eq!((fourth.is_some(), fourth_cache), (true, second_cache), "the room the second left");
        drop((first, fourth));
        let (whole, cache) = memory.reserve_for_kernel(8 << 20, 4 << 20);
        assert_eq!((whole.map(|r| r.bytes()), cache), (Some(12 << 20), 8 << 20), "what fits is given whole");
    }
}
