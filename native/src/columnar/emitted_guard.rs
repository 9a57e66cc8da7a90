//! The emitted flags of Flink's `RowTimeDeduplicateKeepFirstRowFunction`
//! (`already-emitted-state-boolean`, a `ValueState<Boolean>` with the operator's TTL). A key's
//! earliest row waits in the ranker's state until its event-time timer fires; then the row is
//! emitted, taken out of the state, and the key is flagged. Every later row of a flagged key is
//! dropped until the flag expires, because an emitted row can be neither retracted nor replaced.

use super::key_groups::KeyGroupLayout;
use super::stored_rows::{read_values, KeptValue, ValueFormat};
use crate::error::Result;
use crate::store::{StateColumnFamily, StoreWrite};

/// The flags of one operator instance, in their own column family.
pub struct EmittedGuard {
    column_family: StateColumnFamily,
    format: ValueFormat,
}

impl EmittedGuard {
    /// Flags kept in `column_family` as Flink's `BooleanSerializer` writes them, behind
    /// `TtlSerializer`'s timestamp when the state has a TTL of `ttl_millis`.
    pub fn new(column_family: StateColumnFamily, ttl_millis: Option<i64>) -> EmittedGuard {
        EmittedGuard { column_family, format: ValueFormat { kept: KeptValue::SeenFlag, ttl_millis } }
    }

    /// Whether each key (its key group and bytes) is flagged and its flag unexpired at `now`,
    /// with one multi-get.
    pub fn flagged<'k>(
        &self,
        layout: &KeyGroupLayout,
        keys: impl ExactSizeIterator<Item = (u32, &'k [u8])>,
        now: i64,
    ) -> Result<Vec<bool>> {
        Ok(read_values(&self.column_family, self.format, layout, keys)?
            .iter()
            .map(|flag| flag.as_ref().is_some_and(|flag| !self.format.expired(flag.written_at, now)))
            .collect())
    }

    /// Flags the key of `state_key` at `now`, as part of `write`.
    pub fn flag(&self, write: &mut StoreWrite, state_key: &[u8], now: i64) -> Result<()> {
        let mut value = Vec::with_capacity(9);
        self.format.write_value(&mut value, &[], now);
        write.put(&self.column_family, state_key, &value)
    }
}
