//! The writes of a kernel with a write-back cache, gathered and applied as one write batch: the
//! rows the cache evicted or flushes, the rows it had no room for, and deletes. They are applied in
//! state-key order, where the memtable's skip list reuses its insert position from one key to the
//! next; the sort is stable, so of two writes of one key the later one is applied.

use super::key_groups::{row_hash, KeyGroupLayout};
use super::stored_rows::ValueFormat;
use super::winner_cache::WinnerCache;
use crate::error::Result;
use crate::store::{StateColumnFamily, StoreWrite};

/// Puts and deletes of one state's values, in the order they were added.
pub struct StateWrites<'a> {
    layout: &'a KeyGroupLayout,
    format: ValueFormat,
    buffer: Vec<u8>,
    /// (key start, value start, end) in `buffer`; a delete has an empty value.
    entries: Vec<(usize, usize, usize)>,
}

impl<'a> StateWrites<'a> {
    pub fn new(layout: &'a KeyGroupLayout, format: ValueFormat) -> StateWrites<'a> {
        StateWrites { layout, format, buffer: Vec::new(), entries: Vec::new() }
    }

    /// Puts `row` as the value of `key` (the `BinaryRowData` bytes of a key in `key_group`),
    /// written at `written_at`.
    pub fn put(&mut self, key_group: u32, key: &[u8], row: &[u8], written_at: i64) {
        let key_start = self.buffer.len();
        self.layout.write_state_key(&mut self.buffer, key_group, key);
        let value_start = self.buffer.len();
        self.format.write_value(&mut self.buffer, row, written_at);
        self.entries.push((key_start, value_start, self.buffer.len()));
    }

    /// Puts `row` for `key` as [`put`](Self::put) does, finding the key group from the key, as
    /// for a row a cache hands back.
    pub fn put_keyed(&mut self, key: &[u8], row: &[u8], written_at: i64) -> Result<()> {
        let key_group = self.layout.key_group(row_hash(key)?)?;
        self.put(key_group, key, row, written_at);
        Ok(())
    }

    /// Deletes the value of `key` in `key_group`.
    pub fn delete(&mut self, key_group: u32, key: &[u8]) {
        let key_start = self.buffer.len();
        self.layout.write_state_key(&mut self.buffer, key_group, key);
        self.entries.push((key_start, self.buffer.len(), self.buffer.len()));
    }

    /// Applies `write` (other states' changes), the rows `cache` evicted since it last handed
    /// them back, then these writes, in one write batch. A key whose older row the cache evicted
    /// before this batch's newer row (or delete) was added here has both, and the newer one is
    /// applied.
    pub fn commit_after_evicted(
        self,
        cache: &mut WinnerCache,
        column_family: &StateColumnFamily,
        mut write: StoreWrite,
    ) -> Result<()> {
        let mut writes = StateWrites::new(self.layout, self.format);
        for evicted in cache.take_evicted() {
            writes.put_keyed(&evicted.key, &evicted.row, evicted.written_at)?;
        }
        writes.append(self);
        writes.add_to(column_family, &mut write)?;
        if write.is_empty() {
            return Ok(());
        }
        write.commit()
    }

    /// Adds the writes of `later` after this one's.
    fn append(&mut self, later: StateWrites) {
        let shift = self.buffer.len();
        self.buffer.extend_from_slice(&later.buffer);
        self.entries.extend(later.entries.iter().map(|&(key, value, end)| (key + shift, value + shift, end + shift)));
    }

    /// Applies every put and delete to `column_family` in one write batch.
    pub fn commit(self, column_family: &StateColumnFamily) -> Result<()> {
        if self.entries.is_empty() {
            return Ok(());
        }
        let mut write = StoreWrite::to_store_of(column_family);
        self.add_to(column_family, &mut write)?;
        write.commit()
    }

    /// Adds every put and delete on `column_family` to `write`, in state-key order.
    fn add_to(mut self, column_family: &StateColumnFamily, write: &mut StoreWrite) -> Result<()> {
        let buffer = &self.buffer;
        self.entries.sort_by(|a, b| buffer[a.0..a.1].cmp(&buffer[b.0..b.1]));
        for &(key, value, end) in &self.entries {
            if value == end {
                write.delete(column_family, &buffer[key..value])?;
            } else {
                write.put(column_family, &buffer[key..value], &buffer[value..end])?;
            }
        }
        Ok(())
    }
}

/// Writes every row `cache` holds unwritten to `column_family` in one write batch, and counts
/// them clean: a kernel's flush before a checkpoint barrier.
pub fn write_dirty(
    cache: &mut WinnerCache,
    layout: &KeyGroupLayout,
    format: ValueFormat,
    column_family: &StateColumnFamily,
) -> Result<()> {
    let mut writes = StateWrites::new(layout, format);
    let mut failed = Ok(());
    cache.drain_dirty(|key, row, written_at| {
        if failed.is_ok() {
            failed = writes.put_keyed(key, row, written_at);
        }
    });
    failed?;
    writes.commit(column_family)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columnar::stored_rows::KeptValue;
    use crate::store::tests::test_config;
    use crate::store::KeyedStore;
    use crate::test_support::TempDir;

    fn stored(column_family: &StateColumnFamily, layout: &KeyGroupLayout, key: &[u8]) -> Option<Vec<u8>> {
        let mut state_key = Vec::new();
        layout.write_state_key(&mut state_key, layout.key_group(row_hash(key).unwrap()).unwrap(), key);
        column_family.get(&state_key).unwrap().map(|value| value[4..].to_vec())
    }

    #[test]
    fn of_two_writes_of_a_key_the_later_one_is_applied() {
        let dir = TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let column_family = StateColumnFamily::open(&store, "accState").unwrap();
        let layout = KeyGroupLayout::new(1, 128, 0, 127).unwrap();
        let format = ValueFormat { kept: KeptValue::Row, ttl_millis: None };
        let (a, b, c) =
            (&[0u8, 0, 0, 0, 1, 0, 0, 0][..], &[0u8, 0, 0, 0, 2, 0, 0, 0][..], &[0u8, 0, 0, 0, 3, 0, 0, 0][..]);

        let mut first = StateWrites::new(&layout, format);
        first.put_keyed(a, b"old a", 0).unwrap();
        first.put_keyed(b, b"b", 0).unwrap();
        first.put_keyed(c, b"old c", 0).unwrap();
        let mut later = StateWrites::new(&layout, format);
        let key_group = |key: &[u8]| layout.key_group(row_hash(key).unwrap()).unwrap();
        later.put(key_group(a), a, b"new a", 0);
        later.delete(key_group(c), c);
        first.append(later);
        first.commit(&column_family).unwrap();

        assert_eq!(stored(&column_family, &layout, a), Some(b"new a".to_vec()));
        assert_eq!(stored(&column_family, &layout, b), Some(b"b".to_vec()));
        assert_eq!(stored(&column_family, &layout, c), None);
        StateWrites::new(&layout, format).commit(&column_family).unwrap();
    }
}
