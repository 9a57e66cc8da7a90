//! How often each key was read lately, approximately and in one byte per counter: the admission
//! test of a full [`WinnerCache`](super::winner_cache::WinnerCache) (TinyLFU, as Caffeine's
//! `FrequencySketch`). A count-min sketch: four counters per key, each at a position of its own
//! hash, counting to 15; the key's frequency is the least of them. Every `10 x entries` counted
//! reads, all counters are halved, so what was read long ago fades.

/// The most a counter holds.
const MAX_COUNT: u8 = 15;

/// One seed per counter of a key.
const SEEDS: [u64; 4] = [0xc3a5_c85c_97cb_3127, 0xb492_b66f_be98_f273, 0x9ae1_6a3b_2f90_404f, 0xcbf2_9ce4_8422_2325];

/// See the module documentation.
pub struct FrequencySketch {
    counters: Vec<u8>,
    /// Bits of a position in `counters`.
    bits: u32,
    additions: usize,
    reset_at: usize,
}

impl FrequencySketch {
    /// A sketch for about `entries` keys; with none it counts nothing.
    pub fn new(entries: usize) -> FrequencySketch {
        if entries == 0 {
            return FrequencySketch { counters: Vec::new(), bits: 0, additions: 0, reset_at: usize::MAX };
        }
        let len = (2 * entries).next_power_of_two();
        FrequencySketch { counters: vec![0; len], bits: len.trailing_zeros(), additions: 0, reset_at: 10 * entries }
    }

    /// The bytes the counters take.
    pub fn bytes(&self) -> usize {
        self.counters.len()
    }

    fn position(&self, hash: u64, counter: usize) -> usize {
        let mixed = (hash ^ SEEDS[counter]).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        // The high bits are the best mixed; a sketch of one counter uses none.
        mixed.checked_shr(64 - self.bits).unwrap_or(0) as usize
    }

    /// Counts one read of the key whose hash is `hash`.
    pub fn increment(&mut self, hash: u64) {
        if self.counters.is_empty() {
            return;
        }
        let mut added = false;
        for counter in 0..SEEDS.len() {
            let at = self.position(hash, counter);
            if self.counters[at] < MAX_COUNT {
                self.counters[at] += 1;
                added = true;
            }
        }
        if added {
            self.additions += 1;
            if self.additions >= self.reset_at {
                self.halve();
            }
        }
    }

    /// About how often the key whose hash is `hash` was read lately (at most 15).
    pub fn frequency(&self, hash: u64) -> u8 {
        if self.counters.is_empty() {
            return 0;
        }
        (0..SEEDS.len()).map(|counter| self.counters[self.position(hash, counter)]).min().unwrap_or(0)
    }

    fn halve(&mut self) {
        for count in &mut self.counters {
            *count >>= 1;
        }
        self.additions /= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columnar::batch_keys::spread;

    #[test]
    fn counts_reads_up_to_fifteen_and_tells_keys_apart() {
        let mut sketch = FrequencySketch::new(1000);
        for _ in 0..3 {
            sketch.increment(spread(1));
        }
        for _ in 0..40 {
            sketch.increment(spread(2));
        }
        assert_eq!(sketch.frequency(spread(1)), 3);
        assert_eq!(sketch.frequency(spread(2)), MAX_COUNT);
        let unread = (100..200).filter(|&k| sketch.frequency(spread(k)) == 0).count();
        assert!(unread >= 95, "only {unread} of 100 unread keys count 0");
    }

    #[test]
    fn counters_are_halved_after_ten_reads_per_entry() {
        let mut sketch = FrequencySketch::new(1000);
        assert_eq!(sketch.reset_at, 10_000);
        sketch.reset_at = 20;
        for _ in 0..8 {
            sketch.increment(spread(1));
        }
        for _ in 0..11 {
            sketch.increment(spread(2));
        }
        assert_eq!((sketch.frequency(spread(1)), sketch.frequency(spread(2))), (8, 11));
        sketch.increment(spread(2));
        assert_eq!((sketch.frequency(spread(1)), sketch.frequency(spread(2))), (4, 6), "halved at the 20th read");
    }

    #[test]
    fn a_sketch_for_no_keys_counts_nothing() {
        let mut sketch = FrequencySketch::new(0);
        sketch.increment(spread(1));
        assert_eq!((sketch.frequency(spread(1)), sketch.bytes()), (0, 0));
    }
}
