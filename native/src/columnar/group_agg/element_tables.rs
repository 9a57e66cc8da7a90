//! The element tables of a group aggregation: the `MapView<element, Long>`s that Flink's
//! aggregate functions keep in keyed state next to `accState` (`PerKeyStateDataViewStore`), and
//! that the native kernels read and write in Flink's layout, so a savepoint moves both ways
//! between the layer and Flink's operator.
//!
//! - The map is a `MapState` named `agg<i>$map` (MIN or MAX over retractions, call `i`) or
//!   `distinctAcc_<j>` (the `j`th DISTINCT argument): one entry per element, keyed
//!   `[key group][key][void namespace][element]`, valued `[null flag][TTL timestamp][count]`.
//! - A DISTINCT view also counts NULL arguments, in the value state `distinctAcc_<j>_null_state`:
//!   `[key group][key][void namespace]`, valued `[TTL timestamp][count]`.
//!
//! A batch reads every count its rows need with one multi-get per table ([`BatchCounts::prefetch`])
//! into an overlay that the rows then change, and writes the changes in the batch's write batch.
//! An element that has expired under TTL reads as absent, as `NeverReturnExpired` has it.

use crate::columnar::stored_rows::ValueFormat;
use crate::error::{NativeError, Result};
use crate::store::{StateColumnFamily, StoreWrite};
use crate::word_hash::WordHashMap;

const COUNT_BYTES: usize = 8;
const TIMESTAMP_BYTES: usize = 8;

/// One element table's state.
pub struct ElementTable {
    pub map: StateColumnFamily,
    /// The value state of the NULL element's count (a DISTINCT view's); none for a table that
    /// never holds NULL.
    pub nulls: Option<StateColumnFamily>,
}

/// An element: its serialized bytes, or none for NULL.
pub type Element = Option<Box<[u8]>>;

#[derive(Clone, Copy, Debug)]
struct Count {
    /// None for an element the table does not hold.
    value: Option<i64>,
    dirty: bool,
}

/// The element counts a batch reads and changes in one table, per distinct key of the batch.
pub struct BatchCounts<'t> {
    table: &'t ElementTable,
    format: ValueFormat,
    counts: WordHashMap<(u32, Element), Count>,
    /// The elements of each key in `counts`, in the order they were first seen.
    elements: WordHashMap<u32, Vec<Element>>,
    /// Per key: whether its counts are in the state as the batch found them; false for a key the
    /// batch found without accumulators (so without elements) or cleared.
    stored: Vec<bool>,
    /// Per key: whether the batch cleared it, so every element it had in the state goes.
    cleared: Vec<bool>,
}

impl<'t> BatchCounts<'t> {
    /// The counts of a batch whose keys with accumulators are those `stored` says.
    pub fn new(table: &'t ElementTable, format: ValueFormat, stored: Vec<bool>) -> BatchCounts<'t> {
        let keys = stored.len();
        BatchCounts {
            table,
            format,
            counts: WordHashMap::default(),
            elements: WordHashMap::default(),
            stored,
            cleared: vec![false; keys],
        }
    }

    /// Reads the counts of `wanted` (key, element) pairs of stored keys with one multi-get of the
    /// map (and one of the NULL counts); `prefixes` are the keys' state keys.
    pub fn prefetch(&mut self, wanted: Vec<(u32, Element)>, prefixes: &[Vec<u8>], now: i64) -> Result<()> {
        let mut map_keys = Vec::new();
        let mut null_keys = Vec::new();
        for (key, element) in wanted {
            if !self.stored[key as usize] || self.counts.contains_key(&(key, element.clone())) {
                continue;
            }
            self.remember(key, element.clone(), Count { value: None, dirty: false });
            match element {
                Some(bytes) => map_keys.push((key, [&prefixes[key as usize][..], &bytes[..]].concat(), bytes)),
                None => null_keys.push(key),
            }
        }
        let state_keys: Vec<&[u8]> = map_keys.iter().map(|(_, state_key, _)| &state_key[..]).collect();
        let values = self.table.map.multi_get_pinned(&state_keys)?;
        for ((key, _, element), value) in map_keys.into_iter().zip(values) {
            if let Some(value) = value {
                let count = self.parse(&value, true, now)?;
                self.counts.get_mut(&(key, Some(element))).expect("remembered").value = count;
            }
        }
        if let Some(nulls) = &self.table.nulls {
            let null_state_keys: Vec<&[u8]> = null_keys.iter().map(|&key| &prefixes[key as usize][..]).collect();
            for (&key, value) in null_keys.iter().zip(nulls.multi_get_pinned(&null_state_keys)?) {
                if let Some(value) = value {
                    let count = self.parse(&value, false, now)?;
                    self.counts.get_mut(&(key, None)).expect("remembered").value = count;
                }
            }
        }
        Ok(())
    }

    fn remember(&mut self, key: u32, element: Element, count: Count) {
        if self.counts.insert((key, element.clone()), count).is_none() {
            self.elements.entry(key).or_default().push(element);
        }
    }

    /// The count of `element` under `key`; none if the table does not hold it.
    pub fn get(&self, key: u32, element: &Element) -> Result<Option<i64>> {
        // A lookup without allocating the element's key would need a borrowed form of the tuple;
        // elements are small, and this clone is one per row and table.
        match self.counts.get(&(key, element.clone())) {
            Some(count) => Ok(count.value),
            None if self.stored[key as usize] => {
                Err(NativeError::Internal(format!("an element of key {key} was used without being read first")))
            }
            None => Ok(None),
        }
    }

    /// Sets the count of `element` under `key`; none removes the element.
    pub fn set(&mut self, key: u32, element: Element, value: Option<i64>) {
        self.remember(key, element, Count { value, dirty: true });
    }

    /// Removes every element of `key`, as Flink's `MapView.clear` does when a key's last row is
    /// retracted.
    pub fn clear(&mut self, key: u32) {
        let index = key as usize;
        self.cleared[index] |= self.stored[index];
        self.stored[index] = false;
        for element in self.elements.remove(&key).unwrap_or_default() {
            self.counts.remove(&(key, element));
        }
    }

    /// Every element `key` holds, with its count, as `MapView.entries` iterates them (in no
    /// particular order): those of the state as the batch found it, changed by the batch.
    pub fn entries(&self, key: u32, prefix: &[u8], now: i64) -> Result<Vec<(Element, i64)>> {
        let mut entries = Vec::new();
        if self.stored[key as usize] {
            let mut cursor = self.table.map.cursor()?;
            let mut failed = Ok(());
            cursor.entries_with_prefix(prefix, |state_key, value| {
                let element: Element = Some(state_key[prefix.len()..].into());
                if !self.counts.contains_key(&(key, element.clone())) {
                    match self.parse(value, true, now) {
                        Ok(Some(count)) => entries.push((element, count)),
                        Ok(None) => {}
                        Err(e) => failed = Err(e),
                    }
                }
            })?;
            failed?;
        }
        for element in self.elements.get(&key).into_iter().flatten() {
            if let Some(count) = self.counts[&(key, element.clone())].value {
                entries.push((element.clone(), count));
            }
        }
        Ok(entries)
    }

    /// Adds the batch's changes to `write`: every element of the keys it cleared goes, then the
    /// counts it changed are put (or deleted), stamped `now`.
    pub fn write(&self, write: &mut StoreWrite, prefixes: &[Vec<u8>], now: i64) -> Result<()> {
        for (key, _) in self.cleared.iter().enumerate().filter(|(_, cleared)| **cleared) {
            let prefix = &prefixes[key];
            let mut doomed = Vec::new();
            self.table.map.cursor()?.entries_with_prefix(prefix, |state_key, _| doomed.push(state_key.to_vec()))?;
            for state_key in doomed {
                write.delete(&self.table.map, &state_key)?;
            }
            if let Some(nulls) = &self.table.nulls {
                write.delete(nulls, prefix)?;
            }
        }
        let mut value = Vec::new();
        for ((key, element), count) in self.counts.iter().filter(|(_, count)| count.dirty) {
            let prefix = &prefixes[*key as usize];
            let (column_family, state_key) = match element {
                Some(bytes) => (&self.table.map, [&prefix[..], &bytes[..]].concat()),
                None => (self.null_state()?, prefix.clone()),
            };
            match count.value {
                Some(count) => {
                    value.clear();
                    if element.is_some() {
                        value.push(0);
                    }
                    if self.format.ttl_millis.is_some() {
                        value.extend_from_slice(&now.to_be_bytes());
                    }
                    value.extend_from_slice(&count.to_be_bytes());
                    write.put(column_family, &state_key, &value)?;
                }
                None => write.delete(column_family, &state_key)?,
            }
        }
        Ok(())
    }

    fn null_state(&self) -> Result<&StateColumnFamily> {
        self.table.nulls.as_ref().ok_or_else(|| NativeError::Internal("a NULL element in a table without NULLs".into()))
    }

    /// The count a stored value holds (a map value if `in_map`, with its null flag), or none if it
    /// has expired.
    fn parse(&self, value: &[u8], in_map: bool, now: i64) -> Result<Option<i64>> {
        let column_family = if in_map { &self.table.map } else { self.null_state()? };
        let corrupt = || {
            NativeError::CorruptState(format!(
                "a value of {} bytes in state '{}' is no {}count",
                value.len(),
                column_family.name(),
                if self.format.ttl_millis.is_some() { "TTL-stamped " } else { "" }
            ))
        };
        let mut at = 0;
        if in_map {
            // Flink's map values start with a null flag; a count is never null.
            if value.first() != Some(&0) {
                return Err(corrupt());
            }
            at = 1;
        }
        if self.format.ttl_millis.is_some() {
            let stamp = value.get(at..at + TIMESTAMP_BYTES).ok_or_else(corrupt)?;
            if self.format.expired(i64::from_be_bytes(stamp.try_into().expect("eight bytes")), now) {
                return Ok(None);
            }
            at += TIMESTAMP_BYTES;
        }
        let count = value.get(at..).filter(|count| count.len() == COUNT_BYTES).ok_or_else(corrupt)?;
        Ok(Some(i64::from_be_bytes(count.try_into().expect("eight bytes"))))
    }
}
