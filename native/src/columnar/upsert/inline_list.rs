//! A key's candidates kept in one entry while they are few: Flink's list algorithm runs on them in
//! memory, and the key costs one point read and one write per batch however many of its rows the
//! batch has. A list that outgrows [`super::UpsertConfig::inline_limit_bytes`] moves into the
//! indexed entries at the end of its batch.

use arrow::array::BinaryArray;

use super::{
    stored_row, CandidateRow, DELETE, INSERT, KIND_INSERT, KIND_UPDATE_AFTER, LATEST, NOTHING, NOT_FOUND, UPDATE_AFTER,
};
use crate::columnar::candidate_entries::payload_of;
use crate::columnar::row_identity::RowIdentity;
use crate::error::{NativeError, Result};

const HEADER_BYTES: usize = 12;
const LENGTH_BYTES: usize = 4;

/// When the list stored in an inline entry was last written, read from its header alone.
pub(super) fn last_write(value: &[u8]) -> Result<i64> {
    let payload = payload_of(value, "inline list")?;
    payload
        .get(..8)
        .map(|b| i64::from_be_bytes(b.try_into().expect("eight bytes")))
        .ok_or_else(|| NativeError::CorruptState(format!("an inline candidate list of {} bytes", value.len())))
}

/// One key's candidates, oldest first, and when they were last written.
pub(super) struct InlineList<'a> {
    pub rows: Vec<CandidateRow<'a>>,
    pub last_write: i64,
}

impl<'a> InlineList<'a> {
    pub fn empty() -> InlineList<'a> {
        InlineList { rows: Vec::new(), last_write: 0 }
    }

    /// The list stored in an inline entry, borrowing its rows from `value`.
    pub fn parse(value: &'a [u8]) -> Result<InlineList<'a>> {
        let payload = payload_of(value, "inline list")?;
        let corrupt =
            || NativeError::CorruptState(format!("an inline candidate list of {} bytes is cut off", value.len()));
        let header = payload.get(..HEADER_BYTES).ok_or_else(corrupt)?;
        let last_write = i64::from_be_bytes(header[..8].try_into().expect("eight bytes"));
        let count = u32::from_be_bytes(header[8..].try_into().expect("four bytes")) as usize;
        let mut rows = Vec::with_capacity(count.min(payload.len() / LENGTH_BYTES));
        let mut at = HEADER_BYTES;
        for _ in 0..count {
            let len = payload.get(at..at + LENGTH_BYTES).ok_or_else(corrupt)?;
            let len = u32::from_be_bytes(len.try_into().expect("four bytes")) as usize;
            let row = payload
                .get(at + LENGTH_BYTES..at + LENGTH_BYTES + len)
                .filter(|r| !r.is_empty())
                .ok_or_else(corrupt)?;
            rows.push(CandidateRow::Stored(row));
            at += LENGTH_BYTES + len;
        }
        if at != payload.len() {
            return Err(corrupt());
        }
        Ok(InlineList { rows, last_write })
    }

    /// The bytes of the payload [`Self::encode`] writes.
    pub fn encoded_len(&self, batch: &BinaryArray) -> usize {
        HEADER_BYTES + self.rows.iter().map(|r| LENGTH_BYTES + r.bytes(batch).len()).sum::<usize>()
    }

    /// The bytes of the map value [`Self::encode`] appends: a flag byte, the payload's length,
    /// the payload.
    pub fn encoded_value_len(&self, batch: &BinaryArray) -> usize {
        1 + LENGTH_BYTES + self.encoded_len(batch)
    }

    /// Appends the list's map value to `out`.
    pub fn encode(&self, out: &mut Vec<u8>, batch: &BinaryArray) {
        out.push(0);
        out.extend_from_slice(&(self.encoded_len(batch) as u32).to_be_bytes());
        out.extend_from_slice(&self.last_write.to_be_bytes());
        out.extend_from_slice(&(self.rows.len() as u32).to_be_bytes());
        for candidate in &self.rows {
            let (kind, row) = stored_row(candidate, batch);
            out.extend_from_slice(&(row.len() as u32).to_be_bytes());
            out.push(kind);
            out.extend_from_slice(&row[1..]);
        }
    }

    fn first_match(&self, identity: &RowIdentity, batch: &BinaryArray, i: u32) -> Result<Option<usize>> {
        let row = batch.value(i as usize);
        for (at, candidate) in self.rows.iter().enumerate() {
            if identity.equals(row, candidate.bytes(batch))? {
                return Ok(Some(at));
            }
        }
        Ok(None)
    }

    /// Flink's `addRow`: replaces the first row with the same upsert key, or appends.
    pub fn add(&mut self, identity: &RowIdentity, batch: &BinaryArray, i: u32, now: i64) -> Result<i8> {
        let outcome = if self.rows.is_empty() { INSERT } else { UPDATE_AFTER };
        let kind = if outcome == INSERT { KIND_INSERT } else { KIND_UPDATE_AFTER };
        let candidate = CandidateRow::Batch { row: i, kind };
        let replaced = match identity {
            RowIdentity::WholeRow => None,
            RowIdentity::Fields { .. } => self.first_match(identity, batch, i)?,
        };
        match replaced {
            Some(at) => self.rows[at] = candidate,
            None => self.rows.push(candidate),
        }
        self.last_write = now;
        Ok(outcome)
    }

    /// Flink's `retractRow`: removes the first row that is the same candidate.
    pub fn retract(
        &mut self,
        identity: &RowIdentity,
        batch: &BinaryArray,
        i: u32,
        now: i64,
    ) -> Result<(i8, Option<CandidateRow<'a>>)> {
        let Some(at) = self.first_match(identity, batch, i)? else {
            return Ok((NOT_FOUND, None));
        };
        let last = self.rows.len() - 1;
        self.rows.remove(at);
        self.last_write = now;
        Ok(match self.rows.last() {
            None => (DELETE, None),
            Some(latest) if at == last => (LATEST, Some(latest.clone())),
            Some(_) => (NOTHING, None),
        })
    }
}
