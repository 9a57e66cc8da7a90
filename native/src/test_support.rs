//! Helpers for the unit tests. A dev-dependency would change the feature set of crates that
//! the library shares with it, so `cargo test` and the library build would compile those
//! crates (and arrow above them) twice; these few lines avoid that.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh directory under the system's temporary directory, deleted when dropped.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    pub fn new() -> TempDir {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let name =
            format!("streamfusion-test-{}-{}-{}", std::process::id(), nanos, NEXT.fetch_add(1, Ordering::Relaxed));
        let path = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&path).expect("create a temporary test directory");
        TempDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// A small deterministic generator (xorshift64*) for bounded randomized tests: the same seed
/// gives the same cases, so a failure reproduces, and no dev-dependency is needed.
pub struct Xorshift(u64);

impl Xorshift {
    pub fn new(seed: u64) -> Xorshift {
        Xorshift(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..bound`; `bound` must be above 0.
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }
}

/// `valid` damaged the ways a disk, a cut copy or a writer bug damages bytes: flipped bits,
/// overwritten bytes, a 32-bit field set to an extreme length, a cut, or inserted bytes. One to
/// four damages per call.
pub fn mutated(valid: &[u8], random: &mut Xorshift) -> Vec<u8> {
    let mut bytes = valid.to_vec();
    for _ in 0..=random.below(4) {
        let at = if bytes.is_empty() { 0 } else { random.below(bytes.len()) };
        match random.below(5) {
            0 if !bytes.is_empty() => bytes[at] ^= 1 << random.below(8),
            1 if !bytes.is_empty() => bytes[at] = random.next_u64() as u8,
            2 if bytes.len() >= 4 => {
                let extremes = [0u32, 1, 0x7fff_ffff, 0xffff_fffe, u32::MAX, bytes.len() as u32];
                let field = extremes[random.below(extremes.len())].to_be_bytes();
                let at = at.min(bytes.len() - 4);
                bytes[at..at + 4].copy_from_slice(&field);
            }
            3 => bytes.truncate(at),
            _ => bytes.insert(at, random.next_u64() as u8),
        }
    }
    bytes
}
