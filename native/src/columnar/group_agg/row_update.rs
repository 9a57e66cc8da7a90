//! How one row changes its key's accumulators: every call, the MIN and MAX over retractions
//! through their element tables, then the DISTINCT views; and the element counts a batch reads
//! for that, in one multi-get per table, before its rows run.

use arrow::array::BinaryArray;

use super::distinct::InnerStep;
use super::element_tables::{BatchCounts, Element};
use super::extremes::ExtremeTable;
use super::functions::{AggregateCall, Number, NumberType};
use super::{BatchAccumulators, GroupAggregator};
use crate::columnar::batch_keys::BatchKeys;
use crate::columnar::binary_row::BinaryRow;
use crate::error::{NativeError, Result};

impl GroupAggregator {
    /// Accumulates (or retracts) the row `at` into the accumulator slots `acc` of its key: every
    /// call, the MIN and MAX over retractions through their element tables, then the DISTINCT
    /// views, which pass the row on to their calls where it is new (or gone).
    pub(super) fn update(
        &self,
        acc: &mut [Option<Number>],
        at: &RowAt,
        retract: bool,
        counts: &mut [BatchCounts],
        now: i64,
    ) -> Result<()> {
        for (call, aggregate) in self.config.calls.iter().enumerate() {
            let (fields, types) = self.accumulators.fields(call, acc);
            match (aggregate.function.extreme(), aggregate.table) {
                (Some(extreme), Some(table)) => {
                    if let Some(value) = extreme_argument(aggregate, at.row)? {
                        let mut elements = ExtremeTable {
                            counts: &mut counts[table],
                            element_type: self.extremes[call].expect("checked when opened"),
                            key: at.key,
                            prefix: at.prefix,
                            now,
                        };
                        if retract {
                            elements.retract(extreme, fields, value)?;
                        } else {
                            elements.accumulate(extreme, fields, value)?;
                        }
                    }
                }
                // A DISTINCT call: its view below decides whether it sees the row.
                (None, Some(_)) => {}
                _ => aggregate.update(fields, types, at.row, retract)?,
            }
        }
        for view in &self.views {
            if let Some(element) = view.element(at.row)? {
                view.apply(&mut counts[view.table], at.key, element, at.row, retract, |call, step| {
                    let (fields, types) = self.accumulators.fields(call, acc);
                    self.config.calls[call].update(fields, types, at.row, step == InnerStep::Retract)
                })?;
            }
        }
        Ok(())
    }

    /// The state key prefix of every distinct key of the batch (`[key group][key][namespace]`),
    /// under which its elements are; none without element tables.
    pub(super) fn state_prefixes(&self, keys: &BinaryArray, batch_keys: &BatchKeys) -> Vec<Vec<u8>> {
        if self.tables.is_empty() {
            return Vec::new();
        }
        (0..batch_keys.keys.len())
            .map(|index| {
                let mut prefix = Vec::new();
                let key_group = batch_keys.keys[index].key_group;
                self.config.layout.write_state_key(&mut prefix, key_group, batch_keys.key(keys, index as u32));
                prefix
            })
            .collect()
    }

    /// The counts of every element the batch's rows touch, for the keys with accumulators: one
    /// multi-get per element table.
    pub(super) fn read_elements<'t>(
        &'t self,
        rows: &BinaryArray,
        batch_keys: &BatchKeys,
        accs: &BatchAccumulators,
        prefixes: &[Vec<u8>],
        now: i64,
    ) -> Result<Vec<BatchCounts<'t>>> {
        let mut wanted: Vec<Vec<(u32, Element)>> = vec![Vec::new(); self.tables.len()];
        if self.config.merged_from.is_none() && !self.tables.is_empty() {
            for (i, &key) in batch_keys.key_of_row.iter().enumerate() {
                if !accs.present[key as usize] {
                    continue;
                }
                let row = BinaryRow::new(rows.value(i), self.config.input_arity)?;
                for (call, aggregate) in self.config.calls.iter().enumerate() {
                    if let (Some(element_type), Some(table)) = (self.extremes[call], aggregate.table) {
                        if let Some(value) = extreme_argument(aggregate, &row)? {
                            let mut bytes = Vec::new();
                            element_type.write_number(&value, &mut bytes);
                            wanted[table].push((key, Some(bytes.into_boxed_slice())));
                        }
                    }
                }
                for view in &self.views {
                    if let Some(element) = view.element(&row)? {
                        wanted[view.table].push((key, element));
                    }
                }
            }
        }
        self.tables
            .iter()
            .zip(wanted)
            .map(|(table, wanted)| {
                let mut counts = BatchCounts::new(table, self.format(), accs.present.clone());
                counts.prefetch(wanted, prefixes, now)?;
                Ok(counts)
            })
            .collect()
    }
}

/// A row of the batch, its key's index among the batch's keys, and that key's state prefix.
pub(super) struct RowAt<'r> {
    pub row: &'r BinaryRow<'r>,
    pub key: u32,
    pub prefix: &'r [u8],
}

/// The number a MIN or MAX over retractions takes from `row`: none if its FILTER fails or the
/// argument is NULL, which leave it alone.
fn extreme_argument(call: &AggregateCall, row: &BinaryRow) -> Result<Option<Number>> {
    if call.filter.is_some_and(|f| !row.get_bool(f)) {
        return Ok(None);
    }
    match call.argument {
        Some((position, field)) if !row.is_null_at(position) => match NumberType::of(field, call.decimal) {
            Some(number) => number.read(row, position),
            None => Err(NativeError::InvalidArgument(format!("{:?} over {field:?}", call.function))),
        },
        _ => Ok(None),
    }
}
