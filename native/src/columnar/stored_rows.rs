//! One value per key in a Flink `ValueState`, as the columnar kernels read and write it: what
//! `RowDataSerializer` writes (a big-endian length, then the row's bytes) or, for a seen flag, what
//! `BooleanSerializer` writes (one byte), behind `TtlSerializer`'s big-endian timestamp when the
//! state has a TTL (Flink's `OnCreateAndWrite`, `NeverReturnExpired`: an expired value reads as
//! none). The values of a batch's keys are read with one multi-get.

use rocksdb::DBPinnableSlice;

use super::key_groups::KeyGroupLayout;
use crate::error::{NativeError, Result};
use crate::store::StateColumnFamily;

const TIMESTAMP_BYTES: usize = 8;
const LENGTH_BYTES: usize = 4;
const SEEN: [u8; 1] = [1];

/// What a key's state value holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeptValue {
    /// A row, as `RowDataSerializer` writes it.
    Row,
    /// Flink's `Boolean` `true` (one byte, as `BooleanSerializer` writes it): keep-first
    /// deduplication on processing time only remembers that a key was seen.
    SeenFlag,
}

/// How a state lays out its values.
#[derive(Clone, Copy, Debug)]
pub struct ValueFormat {
    pub kept: KeptValue,
    /// The state's time-to-live, if it has one.
    pub ttl_millis: Option<i64>,
}

impl ValueFormat {
    /// Whether a value written at `written_at` has expired at `now`.
    pub fn expired(&self, written_at: i64, now: i64) -> bool {
        self.ttl_millis.is_some_and(|ttl| written_at.saturating_add(ttl) <= now)
    }

    /// Appends the state value of `row` (ignored for a seen flag) written at `now`.
    pub fn write_value(&self, buffer: &mut Vec<u8>, row: &[u8], now: i64) {
        if self.ttl_millis.is_some() {
            buffer.extend_from_slice(&now.to_be_bytes());
        }
        match self.kept {
            KeptValue::Row => {
                buffer.extend_from_slice(&(row.len() as u32).to_be_bytes());
                buffer.extend_from_slice(row);
            }
            KeptValue::SeenFlag => buffer.extend_from_slice(&SEEN),
        }
    }
}

/// A value read from state: the stored bytes and where its row is in them.
pub struct StoredValue<'a> {
    value: DBPinnableSlice<'a>,
    row_start: usize,
    /// When it was written, if the state has a TTL; else `i64::MIN`.
    pub written_at: i64,
}

impl StoredValue<'_> {
    /// The row's bytes; empty for a seen flag.
    pub fn row(&self) -> &[u8] {
        &self.value[self.row_start..]
    }
}

/// The stored values of `keys` (each a key group and the key's bytes), in order, with one
/// multi-get.
pub fn read_values<'a, 'k>(
    column_family: &'a StateColumnFamily,
    format: ValueFormat,
    layout: &KeyGroupLayout,
    keys: impl ExactSizeIterator<Item = (u32, &'k [u8])>,
) -> Result<Vec<Option<StoredValue<'a>>>> {
    if keys.len() == 0 {
        return Ok(Vec::new());
    }
    let mut buffer = Vec::new();
    let mut bounds = Vec::with_capacity(keys.len());
    for (key_group, key) in keys {
        let start = buffer.len();
        layout.write_state_key(&mut buffer, key_group, key);
        bounds.push((start, buffer.len()));
    }
    let state_keys: Vec<&[u8]> = bounds.iter().map(|&(start, end)| &buffer[start..end]).collect();
    column_family
        .multi_get_pinned(&state_keys)?
        .into_iter()
        .map(|value| value.map(|value| parse_value(column_family, format, value)).transpose())
        .collect()
}

fn parse_value<'a>(
    column_family: &StateColumnFamily,
    format: ValueFormat,
    value: DBPinnableSlice<'a>,
) -> Result<StoredValue<'a>> {
    let corrupt = |len: usize| {
        NativeError::CorruptState(format!(
            "a value of {len} bytes in state '{}' is not a {}serialized {}",
            column_family.name(),
            if format.ttl_millis.is_some() { "TTL-stamped " } else { "" },
            if format.kept == KeptValue::Row { "row" } else { "boolean" }
        ))
    };
    let (written_at, length_at) = match format.ttl_millis {
        Some(_) => {
            let ts = value.get(..TIMESTAMP_BYTES).ok_or_else(|| corrupt(value.len()))?;
            (i64::from_be_bytes(ts.try_into().expect("eight bytes")), TIMESTAMP_BYTES)
        }
        None => (i64::MIN, 0),
    };
    if format.kept == KeptValue::SeenFlag {
        // Flink's keep-first writes only `true`; any one-byte value means the key was seen.
        return match value.len() - length_at {
            1 => Ok(StoredValue { row_start: value.len(), value, written_at }),
            _ => Err(corrupt(value.len())),
        };
    }
    let row_start = length_at + LENGTH_BYTES;
    let length = value.get(length_at..row_start).ok_or_else(|| corrupt(value.len()))?;
    if u32::from_be_bytes(length.try_into().expect("four bytes")) as usize != value.len() - row_start {
        return Err(corrupt(value.len()));
    }
    Ok(StoredValue { value, row_start, written_at })
}
