//! Flink's key-group assignment of `BinaryRowData` keys, and the canonical state key of a key in
//! the void namespace, computed from the key's bytes exactly as the JVM side computes them:
//!
//! - `BinaryRowData.hashCode()` is `MurmurHashUtils.hashBytesByWords` (Murmur3 over
//!   little-endian 4-byte words, seed 42);
//! - `KeyGroupRangeAssignment.assignToKeyGroup` is `MathUtils.murmurHash(hash) % maxParallelism`;
//! - the canonical key is `[key group][key][namespace]`: the key group in 1 or 2 big-endian
//!   bytes, the key as `RowDataSerializer` writes it (a big-endian length, then the bytes), and
//!   `VoidNamespace` as its serializer writes it (one zero byte).

use crate::error::{NativeError, Result};

const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;
const SEED: u32 = 42;

fn mix_k1(k1: u32) -> u32 {
    k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

fn mix_h1(h1: u32, k1: u32) -> u32 {
    (h1 ^ k1).rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64)
}

fn fmix(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// `BinaryRowData.hashCode()` of a row's bytes, whose length is a multiple of four (every
/// `BinaryRowData` is a multiple of eight).
pub fn row_hash(bytes: &[u8]) -> Result<i32> {
    if !bytes.len().is_multiple_of(4) {
        return Err(NativeError::CorruptRow(format!("a row of {} bytes is not word-aligned", bytes.len())));
    }
    let mut h1 = SEED;
    for word in bytes.chunks_exact(4) {
        h1 = mix_h1(h1, mix_k1(u32::from_le_bytes(word.try_into().expect("four bytes"))));
    }
    Ok(fmix(h1 ^ bytes.len() as u32) as i32)
}

/// `MathUtils.murmurHash`: a non-negative spread of a Java hash code.
pub fn murmur_hash(code: i32) -> i32 {
    let mut code = code as u32;
    code = code.wrapping_mul(0xcc9e_2d51).rotate_left(15).wrapping_mul(0x1b87_3593);
    code = code.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    code ^= 4;
    let code = fmix(code) as i32;
    if code >= 0 {
        code
    } else if code != i32::MIN {
        -code
    } else {
        0
    }
}

/// Where keys of one keyed backend go: its key-group prefix width, the job's maximum
/// parallelism, and the key groups this backend owns.
#[derive(Clone, Copy, Debug)]
pub struct KeyGroupLayout {
    pub prefix_bytes: usize,
    pub max_parallelism: u32,
    pub first_key_group: u32,
    pub last_key_group: u32,
}

impl KeyGroupLayout {
    pub fn new(prefix_bytes: usize, max_parallelism: u32, first: u32, last: u32) -> Result<KeyGroupLayout> {
        if !(1..=2).contains(&prefix_bytes) || max_parallelism == 0 || first > last || last >= max_parallelism {
            return Err(NativeError::InvalidArgument(format!(
                "key groups {first}..={last} of {max_parallelism} with a {prefix_bytes}-byte prefix"
            )));
        }
        Ok(KeyGroupLayout { prefix_bytes, max_parallelism, first_key_group: first, last_key_group: last })
    }

    /// The key group of a key with `BinaryRowData` hash `hash`; an error if this backend does
    /// not own it (the key was routed to the wrong subtask).
    pub fn key_group(&self, hash: i32) -> Result<u32> {
        let key_group = murmur_hash(hash) as u32 % self.max_parallelism;
        if key_group < self.first_key_group || key_group > self.last_key_group {
            return Err(NativeError::Internal(format!(
                "a key of key group {key_group} reached the backend of key groups {}..={}",
                self.first_key_group, self.last_key_group
            )));
        }
        Ok(key_group)
    }

    /// Appends the canonical state key of `key` (row bytes) in the void namespace to `out`.
    pub fn write_state_key(&self, out: &mut Vec<u8>, key_group: u32, key: &[u8]) {
        if self.prefix_bytes == 2 {
            out.extend_from_slice(&(key_group as u16).to_be_bytes());
        } else {
            out.push(key_group as u8);
        }
        out.extend_from_slice(&(key.len() as u32).to_be_bytes());
        out.extend_from_slice(key);
        out.push(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur_hash_matches_flinks_math_utils() {
        // MathUtils.murmurHash of these codes, computed with Flink 2.2.1 on the JVM.
        assert_eq!(murmur_hash(0), 593_689_054);
        assert_eq!(murmur_hash(1), 68_075_478);
        assert_eq!(murmur_hash(-1), 1_982_413_648);
        assert_eq!(murmur_hash(42), 1_134_849_565);
    }

    #[test]
    fn row_hash_matches_binary_row_data_hash_code() {
        // BinaryRowWriter's bytes of (7L, "hello world!") and their BinaryRowData.hashCode(),
        // computed with Flink 2.2.1 on the JVM.
        let row = crate::columnar::binary_row::tests::RowBuilder::new(2).long(0, 7).bytes(1, b"hello world!").build();
        let mut expected = vec![0u8; 40];
        expected[8] = 7;
        expected[16] = 12;
        expected[20] = 24;
        expected[24..36].copy_from_slice(b"hello world!");
        assert_eq!(row, expected);
        assert_eq!(row_hash(&row).unwrap(), 102_377_008);
    }

    #[test]
    fn rows_of_unaligned_length_are_refused() {
        assert!(row_hash(&[0; 6]).is_err());
    }

    #[test]
    fn state_keys_carry_the_prefix_length_and_void_namespace() {
        let layout = KeyGroupLayout::new(1, 128, 0, 127).unwrap();
        let mut out = Vec::new();
        layout.write_state_key(&mut out, 5, &[9; 16]);
        assert_eq!(&out[..5], &[5, 0, 0, 0, 16]);
        assert_eq!(out.len(), 1 + 4 + 16 + 1);
        assert_eq!(*out.last().unwrap(), 0);
        let wide = KeyGroupLayout::new(2, 32768, 0, 32767).unwrap();
        out.clear();
        wide.write_state_key(&mut out, 300, &[]);
        assert_eq!(out, vec![1, 44, 0, 0, 0, 0, 0]);
        assert!(layout.key_group(i32::MAX).is_ok());
        let narrow = KeyGroupLayout::new(1, 128, 3, 3).unwrap();
        assert!((0..100).any(|h| narrow.key_group(h).is_err()), "foreign key groups are refused");
    }
}
