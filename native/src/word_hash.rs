//! A fast, non-cryptographic hash over 8-byte words (FxHash's mixing), for the hash maps a task
//! thread probes per record or per row, and for the stable hashes the candidate index stores.
//!
//! The standard library's SipHash resists hash flooding at a price a record-rate map pays on
//! every probe (the write-back buffer takes one per state write; docs/architecture.md, "What a
//! plain hash bought", has the figures). Keys here
//! are a job's own state keys, never hostile input to a shared service, and Flink's heap backend
//! hashes them with Java's `hashCode` just as plainly.

use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x9e37_79b9_7f4a_7c15;
const MULTIPLIER: u64 = 0x517c_c1b7_2722_0a95;

/// FxHash's mixing over little-endian 8-byte words. Its result never changes between versions:
/// [`WordHasher::finish32`] names stored entries.
#[derive(Clone, Copy)]
pub struct WordHasher(u64);

/// Builds [`WordHasher`]s for `HashMap`s.
pub type WordHashBuilder = BuildHasherDefault<WordHasher>;

/// The standard `HashMap` over [`WordHasher`]; make one with `WordHashMap::default()`.
pub type WordHashMap<K, V> = std::collections::HashMap<K, V, WordHashBuilder>;

impl Default for WordHasher {
    fn default() -> WordHasher {
        WordHasher(SEED)
    }
}

impl WordHasher {
    pub fn word(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(MULTIPLIER);
    }

    /// Mixes in the length and then the bytes, so that a run of bytes and its prefix differ.
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.word(bytes.len() as u64);
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.word(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.word(u64::from_le_bytes(last));
        }
    }

    /// The state folded to 32 bits; the multiplication leaves its best bits at the top, and the
    /// fold brings them down.
    pub fn finish32(&self) -> u32 {
        self.finish() as u32
    }
}

impl Hasher for WordHasher {
    /// The high half folded into the low: a hash table picks its bucket from the low bits, which
    /// the last multiplication computed from the low bits of the last word alone, and big-endian
    /// keys (Flink's serializers) keep their varying bytes in a word's high bits.
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }

    fn write(&mut self, bytes: &[u8]) {
        self.bytes(bytes);
    }

    fn write_u8(&mut self, i: u8) {
        self.word(i as u64);
    }

    fn write_u16(&mut self, i: u16) {
        self.word(i as u64);
    }

    fn write_u32(&mut self, i: u32) {
        self.word(i as u64);
    }

    fn write_u64(&mut self, i: u64) {
        self.word(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.word(i as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::hash::BuildHasher;

    #[test]
    fn stored_hashes_never_change() {
        // Computed apart from this code; the candidate index files entries under these hashes.
        assert_eq!(hash_bytes(b"hello world!"), 1_274_428_795);
        assert_eq!(hash_bytes(b""), 3_933_628_482);
    }

    fn hash_bytes(bytes: &[u8]) -> u32 {
        let mut hasher = WordHasher::default();
        hasher.bytes(bytes);
        hasher.finish32()
    }

    #[test]
    fn big_endian_keys_spread_over_low_bits() {
        // Key group prefix and a big-endian long, as a keyed state's RocksDB key starts: only
        // the word's high bytes vary, and a table of 4,096 buckets must still spread them.
        let build = WordHashBuilder::default();
        let buckets: HashSet<u64> = (0u64..4096)
            .map(|k| {
                let mut key = vec![0u8, 7];
                key.extend_from_slice(&k.to_be_bytes());
                build.hash_one(&key) & 4095
            })
            .collect();
        assert!(buckets.len() > 2500, "only {} of 4096 buckets used", buckets.len());
    }
}
