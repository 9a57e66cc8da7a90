//! MIN and MAX over retractions, as Flink's `MinWithRetractAggFunction` and
//! `MaxWithRetractAggFunction` compute them: the accumulator keeps the extreme and `mapSize`, the
//! number of distinct values with a positive count, and an element table counts every value
//! (a count may go negative when a retraction comes before its row).
//!
//! Values order by Java's `compareTo` ([`java_compare`]): -0.0 before 0.0, NaN after everything.
//! When the extreme's count reaches zero, the new extreme is the greatest (least) element left in
//! the table, whatever its count, as Flink's `updateMax` iterates `map.keys()`.

use std::cmp::Ordering;

use super::element_tables::{BatchCounts, Element};
use super::elements::{java_compare, ElementType};
use super::functions::Number;
use crate::error::Result;

/// Which extreme a call keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extreme {
    Min,
    Max,
}

impl Extreme {
    /// Whether `candidate` replaces `kept` (`kept.compareTo(candidate) < 0` for MAX).
    fn beats(self, candidate: &Number, kept: &Number) -> bool {
        let order = java_compare(kept, candidate);
        match self {
            Extreme::Max => order == Ordering::Less,
            Extreme::Min => order == Ordering::Greater,
        }
    }

    /// The call's value: the extreme while some value has a positive count, else NULL.
    pub fn value(acc: &[Option<Number>]) -> Option<Number> {
        if map_size(acc) > 0 {
            acc[0].clone()
        } else {
            None
        }
    }
}

fn map_size(acc: &[Option<Number>]) -> i64 {
    match acc[1] {
        Some(Number::Int(size)) => size,
        _ => 0,
    }
}

/// The element table of one call, and where the batch is in it.
pub struct ExtremeTable<'c, 't> {
    pub counts: &'c mut BatchCounts<'t>,
    pub element_type: ElementType,
    pub key: u32,
    /// The key's state prefix, for iterating its elements.
    pub prefix: &'c [u8],
    pub now: i64,
}

impl ExtremeTable<'_, '_> {
    fn element(&self, value: &Number) -> Element {
        let mut bytes = Vec::new();
        self.element_type.write_number(value, &mut bytes);
        Some(bytes.into_boxed_slice())
    }

    /// `accumulate(acc, value)`: `acc` is `[extreme, mapSize]`.
    pub fn accumulate(&mut self, extreme: Extreme, acc: &mut [Option<Number>], value: Number) -> Result<()> {
        let size = map_size(acc);
        let element = self.element(&value);
        if size == 0 || acc[0].as_ref().is_none_or(|kept| extreme.beats(&value, kept)) {
            acc[0] = Some(value);
        }
        let count = self.counts.get(self.key, &element)?.unwrap_or(0) + 1;
        self.counts.set(self.key, element, (count != 0).then_some(count));
        if count == 1 {
            acc[1] = Some(Number::Int(size + 1));
        }
        Ok(())
    }

    /// `retract(acc, value)`.
    pub fn retract(&mut self, extreme: Extreme, acc: &mut [Option<Number>], value: Number) -> Result<()> {
        let element = self.element(&value);
        let count = self.counts.get(self.key, &element)?.unwrap_or(0) - 1;
        if count != 0 {
            // A negative count stays, and does not count in mapSize.
            self.counts.set(self.key, element, Some(count));
            return Ok(());
        }
        self.counts.set(self.key, element, None);
        let size = map_size(acc) - 1;
        acc[1] = Some(Number::Int(size));
        if size == 0 {
            acc[0] = None;
        } else if acc[0].as_ref().is_some_and(|kept| java_compare(kept, &value) == Ordering::Equal) {
            self.update_extreme(extreme, acc)?;
        }
        Ok(())
    }

    /// `updateMax`: the extreme of every element left, or none and a `mapSize` of 0.
    fn update_extreme(&mut self, extreme: Extreme, acc: &mut [Option<Number>]) -> Result<()> {
        let mut found: Option<Number> = None;
        for (element, _) in self.counts.entries(self.key, self.prefix, self.now)? {
            let value = self.element_type.read_number(element.as_deref().unwrap_or_default())?;
            if found.as_ref().is_none_or(|kept| extreme.beats(&value, kept)) {
                found = Some(value);
            }
        }
        let none = found.is_none();
        acc[0] = found;
        if none {
            acc[1] = Some(Number::Int(0));
        }
        Ok(())
    }
}
