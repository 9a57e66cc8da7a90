//! A measurement, not a check: the cost of a point read of keyed state that is not in the
//! decoded-value cache, without a JVM or JMH around it. It loads keys shaped like JMH
//! `ValueStateBenchmark`'s (a key-group byte, a `Long` key, a `VoidNamespace` byte; a `Long`
//! value) into a store configured as the backend configures it, then reads them at random.
//! Run it with `cargo test --release --lib point_read_throughput -- --ignored --nocapture`.

use std::sync::Arc;
use std::time::Instant;

use crate::memory::SlotMemory;
use crate::store::{KeyedStore, StateColumnFamily, StoreConfig};
use crate::test_support::{TempDir, Xorshift};

const KEYS: u64 = 1_000_000;
const READS_PER_ROUND: usize = 1_000_000;
const ROUNDS: usize = 5;

fn state_key(key: u64) -> [u8; 10] {
    let mut bytes = [0u8; 10];
    bytes[0] = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 57) as u8;
    bytes[1..9].copy_from_slice(&key.to_be_bytes());
    bytes
}

#[test]
#[ignore]
fn point_read_throughput() {
    let dir = TempDir::new();
    // A slot of a JMH run: 512 MiB of managed memory, half of it write buffers.
    let memory = Arc::new(SlotMemory::new(512 << 20, 0.5, 16 << 20).unwrap());
    let store = KeyedStore::open(dir.path(), StoreConfig { memory, write_back_bytes: 4 << 20 }).unwrap();
    let column = StateColumnFamily::open(&store, "value").unwrap();
    for key in 0..KEYS {
        column.put(&state_key(key), &key.to_be_bytes()).unwrap();
    }
    // Give the compactions the load started time to end, as JMH's warm-up does.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let in_memtable = column.int_property("rocksdb.num-entries-active-mem-table").unwrap().unwrap_or(0);
    println!("{in_memtable} of {KEYS} keys in the active memtable, the rest in SST files or held writes");
    let mut random = Xorshift::new(42);
    let mut found = 0usize;
    let mut rounds = Vec::new();
    for round in 0..ROUNDS {
        let start = Instant::now();
        for _ in 0..READS_PER_ROUND {
            let key = random.below(KEYS as usize) as u64;
            found += usize::from(column.get(&state_key(key)).unwrap().is_some());
        }
        let nanos = start.elapsed().as_nanos() as f64 / READS_PER_ROUND as f64;
        println!("round {round}: {nanos:.0} ns per read");
        rounds.push(nanos);
    }
    rounds.sort_by(f64::total_cmp);
    println!("median: {:.0} ns per read", rounds[ROUNDS / 2]);
    assert_eq!(found, READS_PER_ROUND * ROUNDS);
}
