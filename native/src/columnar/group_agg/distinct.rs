//! DISTINCT aggregate calls, as Flink's `DistinctAggCodeGen` generates them: the calls over one
//! argument share a view of the distinct argument values (NULL included) in an element table, and
//! each call's own function (its "inner" aggregate: a COUNT, a SUM, ...) sees a value only when
//! the view says it is new, or, over retractions, when its last row goes.
//!
//! - Insert-only input (`LongValueWithoutRetractionGenerator`): an element's count is a bit set,
//!   bit `j` for the view's `j`th call; a call whose FILTER passes and whose bit is clear sets it
//!   and accumulates. The element is written only if a bit was set.
//! - Over retractions, with one call on the view (`LongValueWithRetractionGenerator`): the count
//!   of rows with the value; the call accumulates when it becomes 1 and retracts when it becomes
//!   0, and the element is removed at 0 and written otherwise (negative counts stay).
//!
//! When every call of the view has a FILTER and none passes, the row does not touch the view.
//! (Several calls on one view over retractions keep an array of counts; those keep Flink's
//! operator.)

use super::element_tables::{BatchCounts, Element};
use super::elements::ElementType;
use super::functions::AggregateCall;
use crate::columnar::binary_row::BinaryRow;
use crate::error::{NativeError, Result};

/// One DISTINCT argument's view and the calls that share it.
#[derive(Clone, Debug)]
pub struct DistinctView {
    /// The element table the view keeps.
    pub table: usize,
    /// The argument's position in the input rows.
    pub argument: usize,
    pub element_type: ElementType,
    /// The calls on the view, in the planner's order (call `j` owns bit `j`), each with the
    /// position of its FILTER field.
    pub members: Vec<(usize, Option<usize>)>,
    /// Whether the input retracts, so the view counts rows instead of setting bits.
    pub retracting: bool,
}

/// What a row does to the inner aggregates of a view's calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InnerStep {
    Accumulate,
    Retract,
}

impl DistinctView {
    /// The most calls one view holds: the bits of a count.
    pub const MAX_CALLS: usize = 64;

    /// Checks the view against the planner's rules for the generators above.
    pub fn check(&self) -> Result<()> {
        self.element_type.check()?;
        let calls = self.members.len();
        if calls == 0 || calls > Self::MAX_CALLS || (self.retracting && calls > 1) {
            return Err(NativeError::InvalidArgument(format!(
                "a DISTINCT view of {calls} calls{}",
                if self.retracting { " over retractions" } else { "" }
            )));
        }
        Ok(())
    }

    /// The element `row` brings, or `Ok(None)` when every call is filtered out, so the view is
    /// left alone.
    pub fn element(&self, row: &BinaryRow) -> Result<Option<Element>> {
        let filtered = self.members.iter().all(|(_, filter)| filter.is_some());
        if filtered && !self.members.iter().any(|&(_, filter)| passes(row, filter)) {
            return Ok(None);
        }
        if row.is_null_at(self.argument) {
            return Ok(Some(None));
        }
        let mut bytes = Vec::new();
        self.element_type.write(row, self.argument, &mut bytes)?;
        Ok(Some(Some(bytes.into_boxed_slice())))
    }

    /// Applies `row` (a retraction if `retract`) to `element`'s count under `key`, and calls
    /// `inner` for each call (by index into the aggregation's calls) whose inner aggregate takes
    /// the row.
    pub fn apply(
        &self,
        counts: &mut BatchCounts,
        key: u32,
        element: Element,
        row: &BinaryRow,
        retract: bool,
        mut inner: impl FnMut(usize, InnerStep) -> Result<()>,
    ) -> Result<()> {
        let value = counts.get(key, &element)?.unwrap_or(0);
        if !self.retracting {
            if retract {
                return Err(NativeError::InvalidArgument(
                    "a DISTINCT view of insert-only input got a retraction".into(),
                ));
            }
            let mut bits = value;
            for (bit, &(call, filter)) in self.members.iter().enumerate() {
                if passes(row, filter) && bits & (1 << bit) == 0 {
                    bits |= 1 << bit;
                    inner(call, InnerStep::Accumulate)?;
                }
            }
            if bits != value {
                counts.set(key, element, Some(bits));
            }
            return Ok(());
        }
        let (call, filter) = self.members[0];
        let mut count = value;
        if passes(row, filter) {
            count += if retract { -1 } else { 1 };
            match (retract, count) {
                (false, 1) => inner(call, InnerStep::Accumulate)?,
                (true, 0) => inner(call, InnerStep::Retract)?,
                _ => {}
            }
        }
        counts.set(key, element, (count != 0).then_some(count));
        Ok(())
    }
}

/// Whether a call's FILTER passes: no FILTER, or its field TRUE (a FILTER field is never NULL).
fn passes(row: &BinaryRow, filter: Option<usize>) -> bool {
    filter.is_none_or(|f| row.get_bool(f))
}

/// The DISTINCT views of `calls` over `tables` element tables: each call that keeps a table and
/// is no MIN or MAX over retractions is a DISTINCT call of that table's view. Its FILTER moves to
/// the view (the view applies it), and the calls of one view must read one argument.
pub fn views_of(calls: &mut [AggregateCall], tables: usize, retracting: bool) -> Result<Vec<DistinctView>> {
    let mut views: Vec<DistinctView> = Vec::new();
    for (index, call) in calls.iter_mut().enumerate() {
        let Some(table) = call.table.filter(|_| call.function.extreme().is_none()) else { continue };
        let (argument, field) = call
            .argument
            .ok_or_else(|| NativeError::InvalidArgument(format!("DISTINCT call {index} has no argument")))?;
        if table >= tables {
            return Err(NativeError::InvalidArgument(format!("call {index} keeps table {table} of {tables}")));
        }
        let member = (index, call.filter.take());
        match views.iter_mut().find(|view| view.table == table) {
            Some(view) if view.argument == argument => view.members.push(member),
            Some(_) => {
                return Err(NativeError::InvalidArgument(format!(
                    "the DISTINCT calls of table {table} read different arguments"
                )))
            }
            None => views.push(DistinctView {
                table,
                argument,
                element_type: ElementType { field, decimal: call.decimal },
                members: vec![member],
                retracting,
            }),
        }
    }
    views.sort_by_key(|view| view.table);
    views.iter().try_for_each(DistinctView::check)?;
    Ok(views)
}
