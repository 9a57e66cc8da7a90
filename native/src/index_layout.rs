//! How a store lays out the index and filter blocks of its SST files, column family by column
//! family, and when that changes.
//!
//! Index and filter blocks are charged to the slot's block cache. While they are a small share of
//! it, a *full* index and filter per file is fastest: every lookup binary-searches one cached
//! block. Once state grows well past the budget, those blocks (megabytes for a large file) no
//! longer stay resident, and every lookup that finds one evicted reads it whole again: a read
//! then costs a fraction of a millisecond instead of microseconds. *Partitioned* index and
//! filters cut each file's blocks into partitions of a few KiB under a small top-level index
//! pinned in the cache, so a lookup reads at most one index and one filter partition per file.
//! They cost a second cache lookup per file, measured at 12-25% of a point read that the cache
//! serves.
//!
//! So every column family starts with full blocks, pinned while their files are open. Once the
//! full blocks of a store's column families together reach [`PARTITION_AT_CACHE_SHARE`] of the
//! slot's cache, the largest of them switches to partitioned ones for every file written after,
//! then the next largest, until the rest fit ([`columns_to_partition`]). One large MapState then
//! pays for partitions while the small value and list states next to it keep their full blocks.
//! A switch is one-way: state that grew that large is expected to stay large.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rocksdb::BlockBasedOptions;

/// Full index and filter blocks of a store take at most this share of the block cache; beyond
/// it, its largest column families partition theirs. Full blocks are pinned; a quarter leaves the
/// rest to data blocks, the other stores of the slot and growth until compactions rewrite the
/// older files.
pub const PARTITION_AT_CACHE_SHARE: f64 = 0.25;

/// Writes between two checks of the layout; each check reads one table property per column family.
pub const WRITES_BETWEEN_CHECKS: u64 = 1 << 16;

/// The size of an index or filter partition, RocksDB's recommended value.
const PARTITION_BYTES: usize = 4096;

/// The index and filter layout of a column family's newly written SST files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexLayout {
    /// One index and one filter block per file, each pinned in the cache while its file is open,
    /// so a lookup finds them without a cache lookup of its own.
    Full,
    /// Partitioned index and filters under a pinned top level; level-0 partitions pinned too.
    Partitioned,
}

impl IndexLayout {
    /// This layout for a live column family, as a `SetOptions` value of
    /// `block_based_table_factory`; it applies to the files opened from then on. Every column
    /// family is opened or created with [`apply_to_files_found_at_open`] and gets one of them
    /// once the store has checked its layout.
    pub fn table_factory_change(self) -> String {
        match self {
            IndexLayout::Full => "{metadata_cache_options={unpartitioned_pinning=kAll}}".to_owned(),
            IndexLayout::Partitioned => format!(
                "{{index_type=kTwoLevelIndexSearch;partition_filters=true;metadata_block_size={PARTITION_BYTES};\
                 pin_l0_filter_and_index_blocks_in_cache=false;\
                 metadata_cache_options={{top_level_index_pinning=kAll;partition_pinning=kFlushedAndSimilar;\
                 unpartitioned_pinning=kNone}}}}"
            ),
        }
    }
}

/// Sets up the files a store finds when it opens (restored or rescaled state), before it has
/// checked its layout: full blocks with only level-0 ones pinned. RocksDB opens every file at once
/// and pins what the options say, so pinning all of them could pin state far larger than the
/// budget; [`IndexLayout::table_factory_change`] then sets each column family's own layout.
pub fn apply_to_files_found_at_open(table: &mut BlockBasedOptions) {
    table.set_pin_l0_filter_and_index_blocks_in_cache(true);
}

/// Of the column families whose files still have full blocks, given with those blocks' bytes, the
/// ones to partition: the largest first, as few as leave the rest under
/// [`PARTITION_AT_CACHE_SHARE`] of a cache of `cache_bytes`.
pub fn columns_to_partition<'a>(full: impl IntoIterator<Item = (&'a str, u64)>, cache_bytes: usize) -> Vec<&'a str> {
    let mut full: Vec<(&str, u64)> = full.into_iter().collect();
    full.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let limit = cache_bytes as f64 * PARTITION_AT_CACHE_SHARE;
    let mut remaining: u64 = full.iter().map(|(_, bytes)| bytes).sum();
    let mut chosen = Vec::new();
    for (name, bytes) in full {
        if (remaining as f64) < limit {
            break;
        }
        chosen.push(name);
        remaining -= bytes;
    }
    chosen
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

/// Which of a store's column families have switched to partitions, and the write count that
/// schedules the next check.
#[derive(Debug, Default)]
pub struct LayoutWatch {
    partitioned: Mutex<BTreeSet<String>>,
    writes: AtomicU64,
}

impl LayoutWatch {
    /// The layout of the files that `column` writes now.
    pub fn layout(&self, column: &str) -> IndexLayout {
        if self.partitioned.lock().unwrap_or_else(|e| e.into_inner()).contains(column) {
            IndexLayout::Partitioned
        } else {
            IndexLayout::Full
        }
    }

    /// Counts `count` writes; true when a check of the layout is due.
    pub fn note_writes(&self, count: u64) -> bool {
        let before = self.writes.fetch_add(count, Ordering::Relaxed);
        before / WRITES_BETWEEN_CHECKS != (before + count) / WRITES_BETWEEN_CHECKS
    }

    /// Marks `column` partitioned; true for the caller that made the change.
    pub fn switch_to_partitioned(&self, column: &str) -> bool {
        self.partitioned.lock().unwrap_or_else(|e| e.into_inner()).insert(column.to_owned())
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
    fn partitions_the_largest_column_families_until_the_rest_fit_a_quarter_of_the_cache() {
        let cache = 100 << 20;
        assert!(columns_to_partition([("map", 20 << 20), ("value", 4 << 20)], cache).is_empty());
        assert_eq!(columns_to_partition([("value", 5 << 20), ("map", 20 << 20)], cache), ["map"]);
        assert_eq!(
            columns_to_partition([("c", 12 << 20), ("a", 14 << 20), ("b", 13 << 20), ("d", 0)], cache),
            ["a", "b"]
        );
        assert_eq!(columns_to_partition([("alone", 25 << 20)], cache), ["alone"]);
        assert!(columns_to_partition([], cache).is_empty());
    }

    #[test]
    fn a_check_is_due_once_per_interval() {
        let watch = LayoutWatch::default();
        assert!(!watch.note_writes(WRITES_BETWEEN_CHECKS - 1));
        assert!(watch.note_writes(1));
        assert!(!watch.note_writes(10));
        assert!(watch.note_writes(WRITES_BETWEEN_CHECKS * 3));
    }

    #[test]
    fn a_column_family_switches_once_and_alone() {
        let watch = LayoutWatch::default();
        assert!(watch.switch_to_partitioned("map"));
        assert!(!watch.switch_to_partitioned("map"));
        assert_eq!(watch.layout("map"), IndexLayout::Partitioned);
        assert_eq!(watch.layout("value"), IndexLayout::Full);
    }
}
