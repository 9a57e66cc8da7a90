//! Deletes the candidates of sink keys that expired and are never touched again. A key's own batch
//! deletes it when it comes back, but a key that never comes back would stay on disk; and RocksDB's
//! compaction filter cannot judge index entries one by one (only the counter or the inline list
//! knows when the key was last written). So each batch first checks the next few keys of the column
//! family after where the previous batch stopped, wrapping around at the end, as Flink's heap
//! backend cleans up incrementally: one seek per key, from one key's entries to the next key's.

use super::inline_list;
use crate::columnar::candidate_entries::Counter;
use crate::error::{NativeError, Result};
use crate::store::{prefix_upper_bound, StateColumnFamily};

/// Keys checked per batch, as `StateTtlConfig`'s default incremental cleanup checks per access.
pub const KEYS_PER_BATCH: usize = 5;

const LENGTH_BYTES: usize = 4;
/// The void namespace's serialized byte after the key.
const NAMESPACE_BYTES: usize = 1;

/// Where the sweep goes on from, kept from batch to batch.
pub(super) struct ExpirySweep {
    next: Vec<u8>,
}

impl ExpirySweep {
    pub fn new() -> ExpirySweep {
        ExpirySweep { next: Vec::new() }
    }

    /// The state keys (`[key group][key][namespace]`) of up to [`KEYS_PER_BATCH`] keys whose
    /// entries expired: their last write is `ttl_millis` or more before `now`.
    pub fn expired_keys(
        &mut self,
        column_family: &StateColumnFamily,
        key_group_prefix_bytes: usize,
        ttl_millis: i64,
        now: i64,
    ) -> Result<Vec<Vec<u8>>> {
        let mut cursor = column_family.cursor()?;
        let mut expired = Vec::new();
        for _ in 0..KEYS_PER_BATCH {
            let Some((key, value)) = cursor.first_from(&self.next)? else {
                // The end of the column family: the next batch starts over.
                self.next.clear();
                break;
            };
            let base = base_of(&key, key_group_prefix_bytes)?;
            // A key's counter or inline list sorts before its other entries.
            let last_write = match key.get(base.len() + LENGTH_BYTES) {
                Some(0) => Counter::parse(&value)?.last_write,
                Some(3) => inline_list::last_write(&value)?,
                _ => i64::MAX,
            };
            if last_write.saturating_add(ttl_millis) <= now {
                expired.push(base.to_vec());
            }
            match prefix_upper_bound(base) {
                Some(next) => self.next = next,
                None => {
                    self.next.clear();
                    break;
                }
            }
        }
        Ok(expired)
    }
}

/// The state key a stored entry's key starts with: key group, length-prefixed key, namespace.
fn base_of(key: &[u8], key_group_prefix_bytes: usize) -> Result<&[u8]> {
    let length = key
        .get(key_group_prefix_bytes..key_group_prefix_bytes + LENGTH_BYTES)
        .map(|l| u32::from_be_bytes(l.try_into().expect("four bytes")) as usize);
    length
        .map(|len| key_group_prefix_bytes + LENGTH_BYTES + len + NAMESPACE_BYTES)
        .and_then(|end| key.get(..end))
        .ok_or_else(|| NativeError::CorruptState(format!("a candidate index key of {} bytes", key.len())))
}
