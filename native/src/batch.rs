//! The entry-batch encoding used to move many key/value entries across JNI in one call.
//!
//! An entry is `[u32 state index][u32 key length][key][u32 value length][value]`, all integers
//! big-endian, entries back to back. A value length of [`ABSENT`], with no value bytes,
//! makes the entry a delete of its key; only batches written to the store carry deletes. The
//! Java twins are `EntryBatchWriter` and `EntryBatchReader`; change them together and bump
//! [`crate::abi::ABI_VERSION`].

use crate::error::{NativeError, Result};

/// One decoded entry, borrowing from the encoded bytes.
#[derive(Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    pub state_index: u32,
    pub key: &'a [u8],
    /// `None` for a delete.
    pub value: Option<&'a [u8]>,
}

/// Appends one entry to `out`.
pub fn encode_entry(out: &mut Vec<u8>, state_index: u32, key: &[u8], value: &[u8]) {
    out.reserve(12 + key.len() + value.len());
    out.extend_from_slice(&state_index.to_be_bytes());
    out.extend_from_slice(&(key.len() as u32).to_be_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(&(value.len() as u32).to_be_bytes());
    out.extend_from_slice(value);
}

/// Appends a delete of `key` to `out`.
pub fn encode_delete(out: &mut Vec<u8>, state_index: u32, key: &[u8]) {
    out.reserve(12 + key.len());
    out.extend_from_slice(&state_index.to_be_bytes());
    out.extend_from_slice(&(key.len() as u32).to_be_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(&ABSENT.to_be_bytes());
}

/// Iterates the entries of an encoded batch, failing on the first malformed one.
pub fn decode(bytes: &[u8]) -> Decoder<'_> {
    Decoder { rest: bytes }
}

pub struct Decoder<'a> {
    rest: &'a [u8],
}

impl<'a> Decoder<'a> {
    fn take_bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if self.rest.len() < n {
            return Err(NativeError::CorruptBatch(format!(
                "{what} needs {n} bytes but only {} remain",
                self.rest.len()
            )));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn take_u32(&mut self, what: &str) -> Result<u32> {
        let b = self.take_bytes(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

impl<'a> Iterator for Decoder<'a> {
    type Item = Result<Entry<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let mut entry = || -> Result<Entry<'a>> {
            let state_index = self.take_u32("state index")?;
            let key_len = self.take_u32("key length")? as usize;
            let key = self.take_bytes(key_len, "key")?;
            let value = match self.take_u32("value length")? {
                ABSENT => None,
                value_len => Some(self.take_bytes(value_len as usize, "value")?),
            };
            Ok(Entry { state_index, key, value })
        };
        let result = entry();
        if result.is_err() {
            self.rest = &[];
        }
        Some(result)
    }
}

/// Iterates a key list: `[u32 length][key]` repeated, as sent for multi-gets and deletes.
pub fn decode_keys(bytes: &[u8]) -> KeyDecoder<'_> {
    KeyDecoder { inner: Decoder { rest: bytes } }
}

pub struct KeyDecoder<'a> {
    inner: Decoder<'a>,
}

impl<'a> Iterator for KeyDecoder<'a> {
    type Item = Result<&'a [u8]>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.inner.rest.is_empty() {
            return None;
        }
        let inner = &mut self.inner;
        let result = inner.take_u32("key length").and_then(|len| inner.take_bytes(len as usize, "key"));
        if result.is_err() {
            self.inner.rest = &[];
        }
        Some(result)
    }
}

/// A value length that stands for no value: absent in a value list, a delete in an entry batch.
pub const ABSENT: u32 = u32::MAX;

/// Appends one optional value to a value list: `[u32 length or ABSENT][value]`.
pub fn encode_optional_value(out: &mut Vec<u8>, value: Option<&[u8]>) {
    match value {
        Some(value) => {
            out.extend_from_slice(&(value.len() as u32).to_be_bytes());
            out.extend_from_slice(value);
        }
        None => out.extend_from_slice(&ABSENT.to_be_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bounded randomized test of the decoders of Java's bytes: 200,000 damaged batches and key
    /// lists decode to entries or a `CorruptBatch` error, never a panic, and every entry lies
    /// within the input.
    #[test]
    fn damaged_batches_and_key_lists_are_errors_never_panics() {
        let mut valid = Vec::new();
        encode_entry(&mut valid, 3, b"key-1", b"value-1");
        encode_delete(&mut valid, 0, b"k2");
        encode_entry(&mut valid, 1, b"", b"");
        let mut keys = Vec::new();
        for key in [&b"a"[..], b"bcd", b""] {
            keys.extend_from_slice(&(key.len() as u32).to_be_bytes());
            keys.extend_from_slice(key);
        }
        let mut random = crate::test_support::Xorshift::new(0x5f45_6c57);
        for _ in 0..100_000 {
            let batch = crate::test_support::mutated(&valid, &mut random);
            for entry in decode(&batch) {
                match entry {
                    Ok(entry) => {
                        assert!(entry.key.len() + entry.value.map_or(0, <[u8]>::len) <= batch.len())
                    }
                    Err(NativeError::CorruptBatch(_)) => {}
                    Err(other) => panic!("unexpected error {other:?}"),
                }
            }
            let list = crate::test_support::mutated(&keys, &mut random);
            for key in decode_keys(&list) {
                match key {
                    Ok(key) => assert!(key.len() <= list.len()),
                    Err(NativeError::CorruptBatch(_)) => {}
                    Err(other) => panic!("unexpected error {other:?}"),
                }
            }
        }
    }

    #[test]
    fn round_trips_entries_including_empty_ones() {
        let mut buf = Vec::new();
        encode_entry(&mut buf, 3, b"key", b"value");
        encode_entry(&mut buf, 0, b"", b"");
        let entries: Vec<_> = decode(&buf).collect::<Result<_>>().unwrap();
        assert_eq!(
            entries,
            vec![
                Entry { state_index: 3, key: b"key", value: Some(b"value") },
                Entry { state_index: 0, key: b"", value: Some(b"") },
            ]
        );
    }

    #[test]
    fn deletes_round_trip_between_puts() {
        let mut buf = Vec::new();
        encode_entry(&mut buf, 0, b"a", b"1");
        encode_delete(&mut buf, 1, b"b");
        encode_entry(&mut buf, 0, b"c", b"");
        let entries: Vec<_> = decode(&buf).collect::<Result<_>>().unwrap();
        assert_eq!(entries[1], Entry { state_index: 1, key: b"b", value: None });
        assert_eq!(entries[2], Entry { state_index: 0, key: b"c", value: Some(b"") });
    }

    #[test]
    fn key_lists_decode_and_reject_truncation() {
        let mut buf = Vec::new();
        for key in [&b"a"[..], b"", b"bcd"] {
            buf.extend_from_slice(&(key.len() as u32).to_be_bytes());
            buf.extend_from_slice(key);
        }
        let keys: Vec<_> = decode_keys(&buf).collect::<Result<_>>().unwrap();
        assert_eq!(keys, vec![&b"a"[..], b"", b"bcd"]);
        buf.pop();
        assert!(decode_keys(&buf).any(|k| k.is_err()));
    }

    #[test]
    fn optional_values_mark_absence() {
        let mut out = Vec::new();
        encode_optional_value(&mut out, Some(b"xy"));
        encode_optional_value(&mut out, None);
        assert_eq!(out, vec![0, 0, 0, 2, b'x', b'y', 0xff, 0xff, 0xff, 0xff]);
    }

    #[test]
    fn truncated_batch_is_an_error_not_a_panic() {
        let mut buf = Vec::new();
        encode_entry(&mut buf, 1, b"key", b"value");
        buf.truncate(buf.len() - 2);
        let results: Vec<_> = decode(&buf).collect();
        assert_eq!(results.len(), 1);
        let err = results.into_iter().next().unwrap().unwrap_err();
        assert!(err.to_string().contains("value needs 5 bytes"), "{err}");
    }
}
