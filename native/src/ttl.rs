//! Background cleanup of expired TTL state: a RocksDB compaction filter that reads the
//! last-access timestamp where Flink's `TtlSerializer` writes it (eight big-endian bytes before
//! the user value) and drops expired values, map entries and list elements.
//!
//! A column family gets its filter factory when it is opened, before the job has told us
//! whether the state has TTL; the factory reads its configuration from a [`TtlFilterSlot`] that
//! the Java side fills in when the state is registered. Until then every entry is kept.

use std::ffi::CStr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, RwLock};

use rocksdb::compaction_filter::{CompactionFilter, Decision};
use rocksdb::compaction_filter_factory::{CompactionFilterContext, CompactionFilterFactory};

use crate::error::Result;

/// Bytes of the last-access timestamp at the start of a `TtlValue`.
pub const TIMESTAMP_BYTES: usize = 8;

/// Where the timestamps are in a stored value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TtlStateLayout {
    /// Value, reducing and aggregating state: one `TtlValue`.
    Value,
    /// Map state: a null-flag byte, then the `TtlValue` of the entry.
    Map,
    /// List state whose elements all serialize to the same length; `element_bytes` includes
    /// the delimiter that follows every element but the last.
    FixedElementList { element_bytes: usize },
    /// List state with elements of varying length, whose boundaries only the element
    /// serializer knows: a [`ListElementScanner`] finds them.
    VariableElementList,
}

/// The current time in the job's TTL time characteristic.
pub trait Clock: Send + Sync {
    fn now_millis(&self) -> Result<i64>;
}

/// Finds where the unexpired part of a list value starts.
pub trait ListElementScanner: Send + Sync {
    /// The offset of the first element that has not expired, or the list's length if all have.
    fn first_unexpired_offset(&self, list: &[u8], ttl_millis: i64, now_millis: i64) -> Result<usize>;
}

/// How one state's column family is filtered.
pub struct TtlFilterConfig {
    pub layout: TtlStateLayout,
    pub ttl_millis: i64,
    /// The clock is read again after this many entries; reading it can cross into the JVM.
    pub query_time_after_entries: u64,
    pub clock: Arc<dyn Clock>,
    /// Required by [`TtlStateLayout::VariableElementList`].
    pub list_scanner: Option<Arc<dyn ListElementScanner>>,
}

/// What the filter does with one value.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Keep,
    Remove,
    /// Keep the value from this offset on: the elements before it have expired.
    KeepFrom(usize),
}

/// Flink's `TtlUtils.expired`: the expiration time saturates instead of overflowing.
pub fn expired(last_access: i64, ttl_millis: i64, now_millis: i64) -> bool {
    last_access.saturating_add(ttl_millis) <= now_millis
}

fn timestamp_at(value: &[u8], offset: usize) -> Option<i64> {
    let bytes = value.get(offset..offset.checked_add(TIMESTAMP_BYTES)?)?;
    Some(i64::from_be_bytes(bytes.try_into().ok()?))
}

/// Decides what happens to `value` at time `now`. A value too short to hold a timestamp is
/// kept: dropping data the filter does not understand would lose it.
pub fn judge(config: &TtlFilterConfig, value: &[u8], now: i64) -> Result<Verdict> {
    let single = |offset| match timestamp_at(value, offset) {
        Some(ts) if expired(ts, config.ttl_millis, now) => Verdict::Remove,
        _ => Verdict::Keep,
    };
    let unexpired_from = match config.layout {
        TtlStateLayout::Value => return Ok(single(0)),
        TtlStateLayout::Map => return Ok(single(1)),
        TtlStateLayout::FixedElementList { element_bytes } => {
            let mut offset = 0;
            while offset < value.len() {
                match timestamp_at(value, offset) {
                    Some(ts) if expired(ts, config.ttl_millis, now) => offset += element_bytes.max(1),
                    Some(_) => break,
                    None => return Ok(Verdict::Keep),
                }
            }
            offset
        }
        TtlStateLayout::VariableElementList => match &config.list_scanner {
            Some(scanner) => scanner.first_unexpired_offset(value, config.ttl_millis, now)?,
            None => return Ok(Verdict::Keep),
        },
    };
    Ok(match unexpired_from {
        0 => Verdict::Keep,
        n if n >= value.len() => Verdict::Remove,
        n => Verdict::KeepFrom(n),
    })
}

/// The configuration of one column family's filter, filled in when the state is registered.
#[derive(Default)]
pub struct TtlFilterSlot {
    config: RwLock<Option<Arc<TtlFilterConfig>>>,
}

impl TtlFilterSlot {
    pub fn set(&self, config: Option<TtlFilterConfig>) {
        *self.config.write().unwrap_or_else(|e| e.into_inner()) = config.map(Arc::new);
    }

    fn get(&self) -> Option<Arc<TtlFilterConfig>> {
        self.config.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Creates a filter per compaction, with the slot's configuration at that moment.
pub struct TtlFilterFactory {
    slot: Arc<TtlFilterSlot>,
}

impl TtlFilterFactory {
    pub fn new(slot: Arc<TtlFilterSlot>) -> Self {
        TtlFilterFactory { slot }
    }
}

const FACTORY_NAME: &CStr = c"StreamFusionTtlFilterFactory";
const FILTER_NAME: &CStr = c"StreamFusionTtlFilter";

impl CompactionFilterFactory for TtlFilterFactory {
    type Filter = TtlCompactionFilter;

    fn create(&mut self, _context: CompactionFilterContext) -> TtlCompactionFilter {
        TtlCompactionFilter { config: self.slot.get(), now: None, since_clock: 0, changed: Vec::new() }
    }

    fn name(&self) -> &CStr {
        FACTORY_NAME
    }
}

/// The filter of one compaction run; RocksDB uses it from one thread.
pub struct TtlCompactionFilter {
    config: Option<Arc<TtlFilterConfig>>,
    now: Option<i64>,
    since_clock: u64,
    /// The value handed back by [`Decision::Change`]; RocksDB copies it before the next call.
    changed: Vec<u8>,
}

impl TtlCompactionFilter {
    fn verdict(&mut self, config: &TtlFilterConfig, value: &[u8]) -> Result<Verdict> {
        let now = match self.now {
            Some(now) if self.since_clock < config.query_time_after_entries.max(1) => now,
            _ => {
                let now = config.clock.now_millis()?;
                self.now = Some(now);
                self.since_clock = 0;
                now
            }
        };
        self.since_clock += 1;
        judge(config, value, now)
    }
}

impl CompactionFilter for TtlCompactionFilter {
    fn filter(&mut self, _level: u32, _key: &[u8], value: &[u8]) -> Decision {
        let Some(config) = self.config.clone() else { return Decision::Keep };
        // RocksDB calls this through C: a panic must not unwind there, and an error (a clock
        // or scanner that failed) must never drop data, so both keep the value.
        match catch_unwind(AssertUnwindSafe(|| self.verdict(&config, value))) {
            Ok(Ok(Verdict::Remove)) => Decision::Remove,
            Ok(Ok(Verdict::KeepFrom(offset))) => {
                self.changed.clear();
                self.changed.extend_from_slice(&value[offset..]);
                // SAFETY: RocksDB copies the new value before it calls the filter again or
                // drops it, and `changed` is neither touched nor freed until then.
                Decision::Change(unsafe { std::mem::transmute::<&[u8], &'static [u8]>(&self.changed[..]) })
            }
            _ => Decision::Keep,
        }
    }

    fn name(&self) -> &CStr {
        FILTER_NAME
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::atomic::{AtomicI64, Ordering};

    /// A clock the test moves by hand.
    #[derive(Default)]
    pub(crate) struct ManualClock(pub(crate) AtomicI64);

    impl Clock for ManualClock {
        fn now_millis(&self) -> Result<i64> {
            Ok(self.0.load(Ordering::SeqCst))
        }
    }

    /// A `TtlValue` as Flink's `TtlSerializer` writes it.
    pub(crate) fn ttl_value(last_access: i64, user: &[u8]) -> Vec<u8> {
        let mut out = last_access.to_be_bytes().to_vec();
        out.extend_from_slice(user);
        out
    }

    pub(crate) fn config(layout: TtlStateLayout, clock: Arc<dyn Clock>) -> TtlFilterConfig {
        TtlFilterConfig { layout, ttl_millis: 100, query_time_after_entries: 1, clock, list_scanner: None }
    }

    const CONTEXT: CompactionFilterContext =
        CompactionFilterContext { is_full_compaction: false, is_manual_compaction: true };

    /// Bounded randomized test of the TTL layouts, which read Java's bytes: 200,000 damaged
    /// values of every fixed layout get a verdict, never a panic, and a kept suffix starts
    /// inside the value.
    #[test]
    fn damaged_values_get_a_verdict_never_a_panic() {
        let clock: Arc<dyn Clock> = Arc::new(ManualClock::default());
        let element = ttl_value(5, b"abc");
        let layouts = [
            (TtlStateLayout::Value, ttl_value(5, b"user")),
            (TtlStateLayout::Map, [&[0u8][..], &ttl_value(5, b"user")].concat()),
            (
                TtlStateLayout::FixedElementList { element_bytes: element.len() + 1 },
                list(&[element.clone(), element.clone(), ttl_value(500, b"abc")]),
            ),
            (TtlStateLayout::FixedElementList { element_bytes: 0 }, element.clone()),
        ];
        let mut random = crate::test_support::Xorshift::new(0x7717);
        for round in 0..200_000 {
            let (layout, valid) = &layouts[round % layouts.len()];
            let value = crate::test_support::mutated(valid, &mut random);
            let now = [0, 50, 105, i64::MAX, i64::MIN][round % 5];
            match judge(&config(*layout, clock.clone()), &value, now).expect("fixed layouts never fail") {
                Verdict::KeepFrom(offset) => assert!(offset > 0 && offset < value.len()),
                Verdict::Keep | Verdict::Remove => {}
            }
        }
    }

    fn list(elements: &[Vec<u8>]) -> Vec<u8> {
        elements.join(&b',')
    }

    #[test]
    fn expiry_saturates_like_flink() {
        assert!(expired(0, 100, 100));
        assert!(!expired(0, 100, 99));
        assert!(!expired(i64::MAX - 10, 100, i64::MAX - 1));
    }

    #[test]
    fn values_and_map_entries_expire_by_their_timestamp() {
        let clock = Arc::new(ManualClock::default());
        let value = config(TtlStateLayout::Value, clock.clone());
        assert_eq!(judge(&value, &ttl_value(50, b"v"), 149).unwrap(), Verdict::Keep);
        assert_eq!(judge(&value, &ttl_value(50, b"v"), 150).unwrap(), Verdict::Remove);
        let map = config(TtlStateLayout::Map, clock);
        let mut entry = vec![0u8];
        entry.extend(ttl_value(50, b"v"));
        assert_eq!(judge(&map, &entry, 150).unwrap(), Verdict::Remove);
        // Too short to hold a timestamp: kept, never guessed at.
        assert_eq!(judge(&map, &[0, 1, 2], 10_000).unwrap(), Verdict::Keep);
    }

    #[test]
    fn fixed_lists_lose_their_expired_prefix() {
        let element = |ts: i64| ttl_value(ts, &7i64.to_be_bytes());
        let layout = TtlStateLayout::FixedElementList { element_bytes: 17 };
        let config = config(layout, Arc::new(ManualClock::default()));
        let value = list(&[element(0), element(10), element(200)]);
        assert_eq!(judge(&config, &value, 150).unwrap(), Verdict::KeepFrom(34));
        assert_eq!(&value[34..], &element(200)[..]);
        assert_eq!(judge(&config, &value, 50).unwrap(), Verdict::Keep);
        assert_eq!(judge(&config, &value, 400).unwrap(), Verdict::Remove);
    }

    struct FailingScanner;
    impl ListElementScanner for FailingScanner {
        fn first_unexpired_offset(&self, _: &[u8], _: i64, _: i64) -> Result<usize> {
            Err(crate::error::NativeError::Callback("scanner failed".into()))
        }
    }

    #[test]
    fn a_failing_scanner_keeps_the_value() {
        let mut config = config(TtlStateLayout::VariableElementList, Arc::new(ManualClock::default()));
        config.list_scanner = Some(Arc::new(FailingScanner));
        let slot = Arc::new(TtlFilterSlot::default());
        slot.set(Some(config));
        let mut filter = TtlFilterFactory::new(slot).create(CONTEXT);
        assert!(matches!(filter.filter(0, b"k", &ttl_value(0, b"x")), Decision::Keep));
    }

    #[test]
    fn compaction_physically_removes_expired_entries_and_trims_lists() {
        use crate::store::tests::test_config;
        use crate::store::{KeyedStore, StateColumnFamily};
        let dir = crate::test_support::TempDir::new();
        let store = KeyedStore::open(dir.path(), test_config()).unwrap();
        let values = StateColumnFamily::open(&store, "values").unwrap();
        let lists = StateColumnFamily::open(&store, "lists").unwrap();
        for i in 0..100u32 {
            values.put(&i.to_be_bytes(), &ttl_value(if i < 90 { 0 } else { 500 }, b"v")).unwrap();
        }
        let element = |ts: i64| ttl_value(ts, &[1, 2, 3, 4, 5, 6, 7, 8]);
        lists.put(b"list", &list(&[element(0), element(500)])).unwrap();
        store.flush().unwrap();

        let clock = Arc::new(ManualClock(AtomicI64::new(200)));
        // A state without TTL configuration keeps everything through compactions.
        values.compact().unwrap();
        assert_eq!(values.count_entries().unwrap(), 100);

        store.configure_ttl("values", Some(config(TtlStateLayout::Value, clock.clone())), Some(3600)).unwrap();
        let fixed = TtlStateLayout::FixedElementList { element_bytes: 17 };
        store.configure_ttl("lists", Some(config(fixed, clock.clone())), None).unwrap();
        values.compact().unwrap();
        lists.compact().unwrap();
        assert_eq!(values.count_entries().unwrap(), 10);
        assert!(values.get(&5u32.to_be_bytes()).unwrap().is_none());
        assert_eq!(&*lists.get(b"list").unwrap().unwrap(), &element(500)[..]);
        assert!(store.configure_ttl("missing", None, None).is_err());
    }

    #[test]
    fn the_clock_is_read_again_after_the_configured_number_of_entries() {
        let clock = Arc::new(ManualClock::default());
        let mut config = config(TtlStateLayout::Value, clock.clone());
        config.query_time_after_entries = 2;
        let slot = Arc::new(TtlFilterSlot::default());
        slot.set(Some(config));
        let mut filter = TtlFilterFactory::new(slot).create(CONTEXT);
        let old = ttl_value(0, b"x");
        assert!(matches!(filter.filter(0, b"k", &old), Decision::Keep)); // reads 0
        clock.0.store(1_000, Ordering::SeqCst);
        assert!(matches!(filter.filter(0, b"k", &old), Decision::Keep)); // still 0
        assert!(matches!(filter.filter(0, b"k", &old), Decision::Remove)); // reads 1000
    }
}
