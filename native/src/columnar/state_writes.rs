//! The writes of a kernel with a write-back cache, gathered and applied as one write batch: the
//! rows the cache evicted or flushes, the rows it had no room for, and deletes. They are applied in
//! state-key order, where the memtable's skip list reuses its insert position from one key to the
//! next; the sort is stable, so of two writes of one key the later one is applied.

use super::key_groups::{row_hash, KeyGroupLayout};
use super::stored_rows::ValueFormat;
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

    /// Adds the writes of `later` after this one's.
    pub fn append(&mut self, later: StateWrites) {
        let shift = self.buffer.len();
        self.buffer.extend_from_slice(&later.buffer);
        self.entries.extend(later.entries.iter().map(|&(key, value, end)| (key + shift, value + shift, end + shift)));
    }

    /// Applies every put and delete to `column_family` in one write batch.
    pub fn commit(mut self, column_family: &StateColumnFamily) -> Result<()> {
        if self.entries.is_empty() {
            return Ok(());
        }
        let buffer = &self.buffer;
        self.entries.sort_by(|a, b| buffer[a.0..a.1].cmp(&buffer[b.0..b.1]));
        let mut write = StoreWrite::to_store_of(column_family);
        for &(key, value, end) in &self.entries {
            if value == end {
                write.delete(column_family, &buffer[key..value])?;
            } else {
                write.put(column_family, &buffer[key..value], &buffer[value..end])?;
            }
        }
        write.commit()
    }
}
