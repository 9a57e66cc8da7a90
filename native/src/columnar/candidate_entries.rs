//! The stored entries of a candidate index, as `StreamFusionCandidateIndexState` lays them out in
//! an ordinary `MapState<byte[], byte[]>`: after a key's state-key bytes (`base`), the user key as
//! Flink's byte-array serializer writes it (a 4-byte length, then the bytes), and a map value of
//! Flink's not-null flag and the byte-array serializer's length and bytes.
//!
//! - `[0x00]`: the counter: next sequence, count, sequence of the latest candidate (-1 if none),
//!   time of the last write, four big-endian longs;
//! - `[0x01][sequence]`: a candidate's serialized bytes, in append order;
//! - `[0x02][hash]`: the candidates filed under one hash, ascending by sequence, each as
//!   `[sequence: 8][length: 4][bytes]`;
//! - `[0x03]`: instead of all of the above, a key's few candidates in one entry (the upsert
//!   materializer's inline list): time of the last write, the count, then each candidate's
//!   serialized bytes in order.

use crate::error::{NativeError, Result};

const COUNTER: u8 = 0;
const CANDIDATE: u8 = 1;
const BY_HASH: u8 = 2;
const INLINE: u8 = 3;

/// Flink's not-null flag and the byte-array length before a map value's payload.
pub const MAP_VALUE_HEADER: usize = 5;
const RECORD_HEADER: usize = 12;
const COUNTER_BYTES: usize = 32;
/// Counters written before the access time was kept: three longs, never expiring.
const OLD_COUNTER_BYTES: usize = 24;

fn user_key(out: &mut Vec<u8>, base: &[u8], kind: u8, rest: &[u8]) {
    out.extend_from_slice(base);
    out.extend_from_slice(&(1 + rest.len() as u32).to_be_bytes());
    out.push(kind);
    out.extend_from_slice(rest);
}

/// Appends the key of `base`'s counter to `out`.
pub fn counter_key(out: &mut Vec<u8>, base: &[u8]) {
    user_key(out, base, COUNTER, &[]);
}

/// Appends the key of `base`'s candidate `sequence` to `out`.
pub fn candidate_key(out: &mut Vec<u8>, base: &[u8], sequence: i64) {
    user_key(out, base, CANDIDATE, &sequence.to_be_bytes());
}

/// Appends the key of `base`'s hash entry `hash` to `out`.
pub fn hash_key(out: &mut Vec<u8>, base: &[u8], hash: u32) {
    user_key(out, base, BY_HASH, &hash.to_be_bytes());
}

/// Appends the key of `base`'s inline list (a key's few candidates in one entry) to `out`.
pub fn inline_key(out: &mut Vec<u8>, base: &[u8]) {
    user_key(out, base, INLINE, &[]);
}

/// The sequence of a candidate entry's key.
pub fn sequence_of_candidate_key(key: &[u8]) -> Result<i64> {
    key.len()
        .checked_sub(8)
        .map(|at| i64::from_be_bytes(key[at..].try_into().expect("eight bytes")))
        .ok_or_else(|| NativeError::CorruptState(format!("a candidate key of {} bytes", key.len())))
}

/// `payload` as a map value.
pub fn map_value(out: &mut Vec<u8>, payload_parts: &[&[u8]]) {
    let len: usize = payload_parts.iter().map(|p| p.len()).sum();
    out.push(0);
    out.extend_from_slice(&(len as u32).to_be_bytes());
    for part in payload_parts {
        out.extend_from_slice(part);
    }
}

/// The payload of a stored map value, checked against its header.
pub fn payload_of<'a>(value: &'a [u8], what: &str) -> Result<&'a [u8]> {
    let announced = value.get(1..MAP_VALUE_HEADER).map(|l| u32::from_be_bytes(l.try_into().expect("four bytes")));
    match announced {
        Some(len) if value[0] == 0 && len as usize == value.len() - MAP_VALUE_HEADER => Ok(&value[MAP_VALUE_HEADER..]),
        _ => Err(NativeError::CorruptState(format!(
            "a candidate index {what} of {} bytes with a damaged header",
            value.len()
        ))),
    }
}

/// One key's counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counter {
    pub next_sequence: i64,
    pub count: i64,
    pub latest_sequence: i64,
    pub last_write: i64,
}

impl Counter {
    /// The counter of a key without candidates.
    pub const EMPTY: Counter = Counter { next_sequence: 0, count: 0, latest_sequence: -1, last_write: 0 };

    pub fn parse(value: &[u8]) -> Result<Counter> {
        let payload = payload_of(value, "counter")?;
        if payload.len() != COUNTER_BYTES && payload.len() != OLD_COUNTER_BYTES {
            return Err(NativeError::CorruptState(format!("a candidate index counter of {} bytes", value.len())));
        }
        let long =
            |i: usize| payload.get(i * 8..i * 8 + 8).map(|b| i64::from_be_bytes(b.try_into().expect("eight bytes")));
        Ok(Counter {
            next_sequence: long(0).expect("checked length"),
            count: long(1).expect("checked length"),
            latest_sequence: long(2).expect("checked length"),
            last_write: long(3).unwrap_or(i64::MAX),
        })
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        let longs = [self.next_sequence, self.count, self.latest_sequence, self.last_write].map(i64::to_be_bytes);
        map_value(out, &[&longs[0], &longs[1], &longs[2], &longs[3]]);
    }
}

/// The records of a stored hash entry, `(sequence, candidate bytes)`, in stored order.
pub fn parse_hash_entry(value: &[u8]) -> Result<Vec<(i64, &[u8])>> {
    let payload = payload_of(value, "hash entry")?;
    let mut records = Vec::new();
    let mut at = 0;
    while at < payload.len() {
        let cut_off = || NativeError::CorruptState(format!("a candidate index hash entry cut off at byte {at}"));
        let header = payload.get(at..at + RECORD_HEADER).ok_or_else(cut_off)?;
        let sequence = i64::from_be_bytes(header[..8].try_into().expect("eight bytes"));
        let len = u32::from_be_bytes(header[8..].try_into().expect("four bytes")) as usize;
        let bytes = payload.get(at + RECORD_HEADER..at + RECORD_HEADER + len).ok_or_else(cut_off)?;
        records.push((sequence, bytes));
        at += RECORD_HEADER + len;
    }
    Ok(records)
}

/// Appends the map value of a hash entry holding `records` to `out`.
pub fn encode_hash_entry<'a>(out: &mut Vec<u8>, records: impl Iterator<Item = (i64, &'a [u8])> + Clone) {
    let len: usize = records.clone().map(|(_, bytes)| RECORD_HEADER + bytes.len()).sum();
    out.push(0);
    out.extend_from_slice(&(len as u32).to_be_bytes());
    for (sequence, bytes) in records {
        out.extend_from_slice(&sequence.to_be_bytes());
        out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
        out.extend_from_slice(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_round_trip_and_old_ones_never_expire() {
        let counter = Counter { next_sequence: 5, count: 2, latest_sequence: 4, last_write: 99 };
        let mut value = Vec::new();
        counter.encode(&mut value);
        assert_eq!(value.len(), MAP_VALUE_HEADER + COUNTER_BYTES);
        assert_eq!(Counter::parse(&value).unwrap(), counter);
        let mut old = Vec::new();
        map_value(&mut old, &[&5i64.to_be_bytes(), &2i64.to_be_bytes(), &4i64.to_be_bytes()]);
        assert_eq!(Counter::parse(&old).unwrap().last_write, i64::MAX);
        assert!(Counter::parse(&value[..value.len() - 1]).is_err());
    }

    #[test]
    fn hash_entries_round_trip_and_damage_is_an_error() {
        let mut value = Vec::new();
        let records = [(3i64, &b"abc"[..]), (9, &b""[..])];
        encode_hash_entry(&mut value, records.iter().copied());
        assert_eq!(parse_hash_entry(&value).unwrap(), records.to_vec());
        let mut damaged = value.clone();
        damaged[MAP_VALUE_HEADER + 8 + 3] = 200;
        assert!(parse_hash_entry(&damaged).is_err());
        assert!(parse_hash_entry(&value[..3]).is_err());
    }

    #[test]
    fn keys_carry_the_byte_array_length_and_kind() {
        let mut key = Vec::new();
        candidate_key(&mut key, &[7, 7], 258);
        assert_eq!(key, vec![7, 7, 0, 0, 0, 9, 1, 0, 0, 0, 0, 0, 0, 1, 2]);
        assert_eq!(sequence_of_candidate_key(&key).unwrap(), 258);
        key.clear();
        counter_key(&mut key, &[7]);
        assert_eq!(key, vec![7, 0, 0, 0, 1, 0]);
    }
}
