//! How a store lays out the index and filter blocks of its SST files, and when it changes.
//!
//! Index and filter blocks are charged to the slot's block cache. While they are a small share of
//! it, a *full* index and filter per file is fastest: every lookup binary-searches one cached
//! block. Once state grows well past the budget, those blocks (megabytes for a large file) no
//! longer stay resident, and every lookup that finds one evicted reads it whole again: a read
//! then costs a fraction of a millisecond instead of microseconds. *Partitioned* index and
//! filters cut each file's blocks into partitions of a few KiB under a small top-level index
//! pinned in the cache, so a lookup reads at most one index and one filter partition per file.
//! They cost a second cache lookup per file while everything fits.
//!
//! So a store starts with full blocks and switches to partitioned ones, for every file written
//! after, once its index and filter blocks reach [`PARTITION_AT_CACHE_SHARE`] of the slot's
//! cache. The switch is one-way: state that grew that large is expected to stay large.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rocksdb::{BlockBasedIndexType, BlockBasedOptions, BlockBasedTablePinningTier};

/// A store partitions its index and filters once they would take this share of the block cache.
/// The high-priority pool they live in is half of the cache; a quarter leaves room for the other
/// stores of the slot and for growth until compactions rewrite the older files.
pub const PARTITION_AT_CACHE_SHARE: f64 = 0.25;

/// Writes between two checks of the layout; each check reads one table property per column family.
pub const WRITES_BETWEEN_CHECKS: u64 = 1 << 16;

/// The size of an index or filter partition, RocksDB's recommended value.
const PARTITION_BYTES: usize = 4096;

/// The index and filter layout of newly written SST files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexLayout {
    /// One index and one filter block per file, each pinned in the cache while its file is open,
    /// so a lookup finds them without a cache lookup of its own. They are a quarter of the cache
    /// at most: beyond that the store partitions.
    Full,
    /// Partitioned index and filters under a pinned top level; level-0 partitions pinned too.
    Partitioned,
}

impl IndexLayout {
    /// Sets this layout on a table configuration that caches index and filter blocks.
    pub fn apply(self, table: &mut BlockBasedOptions) {
        match self {
            IndexLayout::Full => table.set_unpartitioned_pinning_tier(BlockBasedTablePinningTier::All),
            IndexLayout::Partitioned => {
                table.set_index_type(BlockBasedIndexType::TwoLevelIndexSearch);
                table.set_partition_filters(true);
                table.set_metadata_block_size(PARTITION_BYTES);
                table.set_top_level_index_pinning_tier(BlockBasedTablePinningTier::All);
                table.set_partition_pinning_tier(BlockBasedTablePinningTier::FlushAndSimilar);
            }
        }
    }
}

/// Sets up the files a store finds when it opens (restored or rescaled state), before it has
/// checked its layout: full blocks with only level-0 ones pinned. RocksDB opens every file at once
/// and pins what the options say, so pinning all of them could pin state far larger than the
/// budget; [`FULL_PINNING_CHANGE`] pins the files written later once the store stays
/// [`IndexLayout::Full`].
pub fn apply_to_files_found_at_open(table: &mut BlockBasedOptions) {
    table.set_pin_l0_filter_and_index_blocks_in_cache(true);
}

/// [`IndexLayout::Full`]'s pinning for a live column family opened with
/// [`apply_to_files_found_at_open`], as a `SetOptions` value of `block_based_table_factory`.
pub const FULL_PINNING_CHANGE: &str = "{metadata_cache_options={unpartitioned_pinning=kAll}}";

/// [`IndexLayout::Partitioned`] for a live column family, as a `SetOptions` value of
/// `block_based_table_factory`; it applies to files written from then on. The switch is one-way,
/// so no value leads back to [`IndexLayout::Full`].
pub fn partitioned_table_factory_change() -> String {
    format!(
        "{{index_type=kTwoLevelIndexSearch;partition_filters=true;metadata_block_size={PARTITION_BYTES};\
         pin_l0_filter_and_index_blocks_in_cache=false;\
         metadata_cache_options={{top_level_index_pinning=kAll;partition_pinning=kFlushedAndSimilar;\
         unpartitioned_pinning=kNone}}}}"
    )
}

/// Whether index and filter blocks of `metadata_bytes` call for partitions in a cache of
/// `cache_bytes`.
pub fn should_partition(metadata_bytes: u64, cache_bytes: usize) -> bool {
    metadata_bytes as f64 >= cache_bytes as f64 * PARTITION_AT_CACHE_SHARE
}

/// The bytes of index and filter blocks in a column family's `rocksdb.aggregated-table-properties`,
/// or `None` if the text has neither (no files yet, or a format this code does not know).
pub fn metadata_bytes(aggregated_properties: &str) -> Option<u64> {
    let index = property(aggregated_properties, "index block size");
    let filter = property(aggregated_properties, "filter block size");
    match (index, filter) {
        (None, None) => None,
        (index, filter) => Some(index.unwrap_or(0) + filter.unwrap_or(0)),
    }
}

/// The number after the first `=` that follows `name` at the start of a `; `-separated entry.
fn property(text: &str, name: &str) -> Option<u64> {
    text.split("; ")
        .map(str::trim_start)
        .find(|entry| entry.starts_with(name))
        .and_then(|entry| entry.rsplit_once('='))
        .and_then(|(_, value)| value.trim().parse().ok())
}

/// A store's current layout and the write count that schedules its next check.
#[derive(Debug, Default)]
pub struct LayoutWatch {
    partitioned: AtomicBool,
    writes: AtomicU64,
}

impl LayoutWatch {
    pub fn new(layout: IndexLayout) -> LayoutWatch {
        LayoutWatch { partitioned: AtomicBool::new(layout == IndexLayout::Partitioned), writes: AtomicU64::new(0) }
    }

    pub fn layout(&self) -> IndexLayout {
        if self.partitioned.load(Ordering::Acquire) {
            IndexLayout::Partitioned
        } else {
            IndexLayout::Full
        }
    }

    /// Counts `count` writes; true when a check of the layout is due (never once partitioned).
    pub fn note_writes(&self, count: u64) -> bool {
        if self.partitioned.load(Ordering::Relaxed) {
            return false;
        }
        let before = self.writes.fetch_add(count, Ordering::Relaxed);
        before / WRITES_BETWEEN_CHECKS != (before + count) / WRITES_BETWEEN_CHECKS
    }

    /// Marks the store partitioned; true for the caller that made the change.
    pub fn switch_to_partitioned(&self) -> bool {
        !self.partitioned.swap(true, Ordering::AcqRel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AGGREGATED: &str = "# data blocks=1112; # entries=40000; raw key size=480000; \
        index block size (user-key? 2, delta-value? 2)=16628; # index partitions=3; \
        top-level index size=48; filter block size=50197; # entries for filter=40000";

    #[test]
    fn metadata_is_index_plus_filter_bytes() {
        assert_eq!(metadata_bytes(AGGREGATED), Some(16628 + 50197));
        assert_eq!(metadata_bytes(""), None);
        assert_eq!(metadata_bytes("filter block size=10"), Some(10));
    }

    #[test]
    fn partitions_from_a_quarter_of_the_cache() {
        assert!(!should_partition(24 << 20, 100 << 20));
        assert!(should_partition(25 << 20, 100 << 20));
    }

    #[test]
    fn a_check_is_due_once_per_interval_and_never_after_the_switch() {
        let watch = LayoutWatch::new(IndexLayout::Full);
        assert!(!watch.note_writes(WRITES_BETWEEN_CHECKS - 1));
        assert!(watch.note_writes(1));
        assert!(!watch.note_writes(10));
        assert!(watch.note_writes(WRITES_BETWEEN_CHECKS * 3));
        assert!(watch.switch_to_partitioned());
        assert!(!watch.switch_to_partitioned());
        assert!(!watch.note_writes(WRITES_BETWEEN_CHECKS * 3));
        assert_eq!(watch.layout(), IndexLayout::Partitioned);
    }
}
