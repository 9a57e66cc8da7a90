//! The group aggregator: Flink's `GroupAggFunction` over whole batches, with the accumulators in
//! the state Flink's operator keeps (`accState`, a `ValueState<RowData>` in the void namespace,
//! one accumulator row per key; see [`stored_rows`](super::stored_rows) for its bytes).
//!
//! Per batch: the distinct keys, a cache lookup for each, one multi-get of those the cache lacks,
//! then every row in order as `GroupAggHelper.processElement` handles it, and one write batch.
//! The cache is write-back: a changed accumulator row goes into it as its only copy, and reaches
//! RocksDB when the cache evicts it (in the write batch of the batch that evicted it) or when the
//! operator [flushes](GroupAggregator::flush) before a checkpoint barrier; without a cache, every
//! changed row is in the write batch. A key whose rows were all retracted is deleted at once.
//! Each row's result says what Flink emits for it:
//!
//! - a retraction for a key without accumulators: nothing;
//! - the key's first row: INSERT of the new value;
//! - a later row: UPDATE_BEFORE of the old value (if the planner asks for it) and UPDATE_AFTER of
//!   the new one, or nothing if the value did not change and the state has no TTL;
//! - a row after which the row count is zero: DELETE of the old value (nothing for a first row),
//!   and the key's accumulators go.
//!
//! With [`per_key_runs`](GroupAggConfig::per_key_runs), as `MiniBatchGroupAggFunction.finishBundle`
//! does, the rules apply to each key's run of rows as a whole: the leading retractions of a key
//! without accumulators are skipped, the rest accumulated or retracted, and the result emitted at
//! the run's last row, comparing the values before and after the run. A run of retractions only,
//! for a key without accumulators, emits nothing, and the next key's run is aggregated: Flink
//! 2.2.1 returns from the whole bundle there instead (FLINK-35661), dropping the bundle's remaining
//! keys, which this does not reproduce.
//!
//! MIN and MAX over retractions, and DISTINCT calls, also keep element tables, Flink's `MapView`s
//! in their own keyed state ([`element_tables`]): a batch reads the elements its rows need with one
//! multi-get per table, and writes their changes, and the removal of every element of a key whose
//! last row was retracted, in the batch's write batch. Such an aggregation is never merged from a
//! local one.

mod accumulator_layout;
mod decimal_divide;
pub mod distinct;
pub mod element_tables;
pub mod elements;
pub mod extremes;
pub mod functions;
mod row_update;
mod value_rows;

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BinaryArray, BinaryBuilder, Int8Array, StructArray};
use arrow::datatypes::{DataType, Field, Fields};

use super::batch_keys::{key_and_row_columns, BatchKeys};
use super::binary_row::BinaryRow;
use super::key_groups::KeyGroupLayout;
use super::state_writes::{write_dirty, StateWrites};
use super::stored_rows::{read_values, KeptValue, ValueFormat};
use super::winner_cache::WinnerCache;
use crate::error::{NativeError, Result};
use crate::memory::MemoryReservation;
use crate::store::{StateColumnFamily, StoreWrite};
use accumulator_layout::AccumulatorLayout;
use distinct::DistinctView;
use element_tables::ElementTable;
use elements::ElementType;
use functions::{AggregateCall, Number};
use row_update::RowAt;
#[cfg(test)]
use value_rows::read_numbers;
use value_rows::{read_accumulators, write_accumulators, write_numbers};

/// A row that changes no output.
pub const NOTHING: i8 = 0;
/// A key's first row: INSERT of `current`.
pub const INSERT: i8 = 1;
/// A changed value: UPDATE_BEFORE of `previous` (if asked for), UPDATE_AFTER of `current`.
pub const UPDATE: i8 = 2;
/// The key's last row was retracted: DELETE of `previous`.
pub const DELETE: i8 = 3;

/// What a group aggregator computes and how its state is laid out.
pub struct GroupAggConfig {
    pub input_arity: usize,
    /// The aggregate calls in the planner's order; the accumulator row holds their fields in
    /// that order.
    pub calls: Vec<AggregateCall>,
    /// How many of the leading calls are in the output; a row count the planner added is not.
    pub value_arity: usize,
    /// The accumulator field that counts rows (`RecordCounter`), if the input retracts.
    pub count_star_field: Option<usize>,
    /// Where the accumulator fields start in input rows that are a local aggregation's
    /// accumulators (the key, then the accumulators, as Flink's two-phase aggregation sends them),
    /// which are merged; none for input rows that are accumulated or retracted.
    pub merged_from: Option<usize>,
    /// Whether the batch's rows come as one run per key (the rows of a key in one bundle of
    /// Flink's `MiniBatchGroupAggFunction`, in order), aggregated together and emitted once at the
    /// run's end; otherwise every row is emitted for, as by `GroupAggFunction`.
    pub per_key_runs: bool,
    pub ttl_millis: Option<i64>,
    pub generate_update_before: bool,
    pub layout: KeyGroupLayout,
}

fn result_fields() -> Fields {
    Fields::from(vec![
        Field::new("decision", DataType::Int8, false),
        Field::new("previous", DataType::Binary, true),
        Field::new("current", DataType::Binary, true),
    ])
}

/// The aggregation of one operator instance: its state's column family, its cache of
/// accumulator rows, and the reservation that pays for the cache and the operator's batches.
pub struct GroupAggregator {
    column_family: StateColumnFamily,
    config: GroupAggConfig,
    accumulators: AccumulatorLayout,
    /// The element tables the calls keep, in the order their `table` indices give.
    tables: Vec<ElementTable>,
    /// The element type of each call that is a MIN or MAX over retractions.
    extremes: Vec<Option<ElementType>>,
    views: Vec<DistinctView>,
    cache: WinnerCache,
    reservation: Option<MemoryReservation>,
}

/// The accumulators of a batch's distinct keys, side by side.
struct BatchAccumulators {
    width: usize,
    fields: Vec<Option<Number>>,
    /// Whether the key has accumulators (read, or created by a row of this batch).
    present: Vec<bool>,
    /// Whether a row of this batch changed them, so they are written (or deleted).
    touched: Vec<bool>,
}

impl BatchAccumulators {
    fn of(&mut self, key: usize) -> &mut [Option<Number>] {
        &mut self.fields[key * self.width..(key + 1) * self.width]
    }
}

impl GroupAggregator {
    /// An aggregator over the accumulators in `column_family` and the element `tables` its calls
    /// keep (every table by exactly one MIN or MAX over retractions, or by the DISTINCT calls of
    /// one argument, in the order of Flink's `distinctAcc_<j>`).
    pub fn new(
        column_family: StateColumnFamily,
        mut config: GroupAggConfig,
        tables: Vec<ElementTable>,
        cache_bytes: usize,
        reservation: Option<MemoryReservation>,
    ) -> Result<GroupAggregator> {
        let views = distinct::views_of(&mut config.calls, tables.len(), config.count_star_field.is_some())?;
        let accumulators = AccumulatorLayout::of(&config, views.len())?;
        let extremes = config
            .calls
            .iter()
            .map(|call| match (call.function.extreme(), call.argument) {
                (Some(_), Some((_, field))) => {
                    let element = ElementType { field, decimal: call.decimal };
                    element.check()?;
                    Ok(Some(element))
                }
                _ => Ok(None),
            })
            .collect::<Result<Vec<_>>>()?;
        let mut owners = vec![0; tables.len()];
        for call in config.calls.iter().filter(|call| call.function.extreme().is_some()) {
            match call.table.filter(|&t| t < tables.len()) {
                Some(table) => owners[table] += 1,
                None => {
                    return Err(NativeError::InvalidArgument(format!("{:?} keeps no element table", call.function)))
                }
            }
        }
        for view in &views {
            owners[view.table] += 1;
            if tables[view.table].nulls.is_none() {
                return Err(NativeError::InvalidArgument(format!("DISTINCT table {} has no NULL state", view.table)));
            }
        }
        if let Some(table) = owners.iter().position(|&owners| owners != 1) {
            return Err(NativeError::InvalidArgument(format!("element table {table} has {} owners", owners[table])));
        }
        Ok(GroupAggregator {
            column_family,
            config,
            accumulators,
            tables,
            extremes,
            views,
            cache: WinnerCache::new(cache_bytes),
            reservation,
        })
    }

    /// Cache hits and misses since the aggregator was opened.
    pub fn cache_stats(&self) -> (u64, u64) {
        (self.cache.hits(), self.cache.misses())
    }

    /// Bytes of the slot budget this aggregator holds.
    pub fn reserved_bytes(&self) -> usize {
        self.reservation.as_ref().map_or(0, MemoryReservation::bytes)
    }

    fn format(&self) -> ValueFormat {
        ValueFormat { kept: KeptValue::Row, ttl_millis: self.config.ttl_millis }
    }

    /// Aggregates a batch (see the module documentation) and returns one result entry per row:
    /// `decision`, `previous` and `current` (the values' `BinaryRowData` bytes, or null).
    pub fn aggregate(&mut self, batch: &StructArray, now: i64) -> Result<StructArray> {
        let (keys, rows) = key_and_row_columns(batch, "a group aggregate batch")?;
        let batch_keys = BatchKeys::of(keys, &self.config.layout)?;
        let mut accs = self.read_accumulators(keys, &batch_keys, now)?;
        let prefixes = self.state_prefixes(keys, &batch_keys);
        let mut counts = self.read_elements(rows, &batch_keys, &accs, &prefixes, now)?;

        let n = rows.len();
        let mut decision = Vec::with_capacity(n);
        let mut previous = BinaryBuilder::new();
        let mut current = BinaryBuilder::new();
        let mut before = vec![None; self.config.value_arity];
        let mut after = vec![None; self.config.value_arity];
        let mut row_bytes = Vec::new();
        let mut merged = vec![None; self.accumulators.types.len()];
        let runs = self.config.per_key_runs;
        let key_of_row = &batch_keys.key_of_row;
        let mut run_ended = vec![false; if runs { batch_keys.keys.len() } else { 0 }];
        let (mut first, mut started) = (false, false);
        for (i, &key) in key_of_row.iter().enumerate() {
            let key = key as usize;
            let row = BinaryRow::new(rows.value(i), self.config.input_arity)?;
            // RowKind bytes: INSERT 0 and UPDATE_AFTER 2 accumulate, UPDATE_BEFORE 1 and DELETE 3
            // retract. Merged accumulators are never retractions.
            let retract = self.config.merged_from.is_none() && matches!(row.row_kind(), 1 | 3);
            let starts_run = !runs || i == 0 || key_of_row[i - 1] as usize != key;
            let ends_run = !runs || i + 1 == n || key_of_row[i + 1] as usize != key;
            if starts_run {
                if runs && run_ended[key] {
                    return Err(NativeError::Internal(format!("the rows of key {key} are not one run")));
                }
                first = !accs.present[key];
                started = !first;
                if started {
                    self.values(accs.of(key), &mut before)?;
                }
            }
            run_ended.get_mut(key).into_iter().for_each(|ended| *ended |= ends_run);
            if !started {
                if retract {
                    decision.push(NOTHING);
                    previous.append_null();
                    current.append_null();
                    continue;
                }
                let acc = accs.of(key);
                for (call, aggregate) in self.config.calls.iter().enumerate() {
                    aggregate.initialize(self.accumulators.fields(call, acc).0);
                }
                started = true;
            }
            accs.touched[key] = true;
            let acc = accs.of(key);
            if let Some(start) = self.config.merged_from {
                for (field, value) in merged.iter_mut().enumerate() {
                    *value = self.accumulators.types[field].read(&row, start + field)?;
                }
                for call in 0..self.config.calls.len() {
                    let (fields, types) = self.accumulators.fields(call, acc);
                    self.config.calls[call].merge(fields, types, self.accumulators.range(call, &merged));
                }
            } else {
                let at = RowAt { row: &row, key: key as u32, prefix: prefixes.get(key).map_or(&[][..], |p| &p[..]) };
                self.update(acc, &at, retract, &mut counts, now)?;
            }
            if !ends_run {
                decision.push(NOTHING);
                previous.append_null();
                current.append_null();
                continue;
            }
            self.values(acc, &mut after)?;
            // A count that reaches zero inside a run does not end the accumulators there: they
            // carry on to the run's end, as in Flink's bundle.
            let no_rows =
                self.accumulators.count_star_slot.is_some_and(|f| matches!(acc[f], None | Some(Number::Int(0))));
            let outcome = if no_rows {
                accs.present[key] = false;
                counts.iter_mut().for_each(|table| table.clear(key as u32));
                if first {
                    NOTHING
                } else {
                    DELETE
                }
            } else {
                accs.present[key] = true;
                if first {
                    INSERT
                } else if self.config.ttl_millis.is_none() && before == after {
                    NOTHING
                } else {
                    UPDATE
                }
            };
            let emits_before = outcome == DELETE || (outcome == UPDATE && self.config.generate_update_before);
            self.append_value(&mut previous, emits_before.then_some(&before), &mut row_bytes);
            self.append_value(&mut current, matches!(outcome, INSERT | UPDATE).then_some(&after), &mut row_bytes);
            decision.push(outcome);
        }

        let mut write = StoreWrite::to_store_of(&self.column_family);
        for table in &counts {
            table.write(&mut write, &prefixes, now)?;
        }
        self.write_accumulators(keys, &batch_keys, &mut accs, now, write)?;
        let columns: Vec<ArrayRef> =
            vec![Arc::new(Int8Array::from(decision)), Arc::new(previous.finish()), Arc::new(current.finish())];
        Ok(StructArray::try_new(result_fields(), columns, None)?)
    }

    fn values(&self, acc: &mut [Option<Number>], out: &mut [Option<Number>]) -> Result<()> {
        for (call, value) in out.iter_mut().enumerate() {
            *value = self.config.calls[call].value(self.accumulators.fields(call, acc).0)?;
        }
        Ok(())
    }

    fn append_value(&self, builder: &mut BinaryBuilder, value: Option<&Vec<Option<Number>>>, buffer: &mut Vec<u8>) {
        match value {
            Some(value) => {
                buffer.clear();
                write_numbers(buffer, &self.accumulators.value_types, value);
                builder.append_value(&buffer[..]);
            }
            None => builder.append_null(),
        }
    }

    /// The live accumulators of every distinct key: from the cache, else from one multi-get.
    fn read_accumulators(&mut self, keys: &BinaryArray, batch_keys: &BatchKeys, now: i64) -> Result<BatchAccumulators> {
        let width = self.accumulators.types.len();
        let count = batch_keys.keys.len();
        let mut accs = BatchAccumulators {
            width,
            fields: vec![None; count * width],
            present: vec![false; count],
            touched: vec![false; count],
        };
        let format = self.format();
        let mut misses = Vec::new();
        for (index, key) in batch_keys.keys.iter().enumerate() {
            match self.cache.lookup(key.hash, batch_keys.key(keys, index as u32)) {
                Some(slot) => {
                    let cached = self.cache.get(slot);
                    if !format.expired(cached.written_at, now) {
                        read_accumulators(&cached.row, &self.accumulators.fields, accs.of(index))?;
                        accs.present[index] = true;
                    }
                }
                None => misses.push(index as u32),
            }
        }
        let stored = read_values(
            &self.column_family,
            format,
            &self.config.layout,
            misses.iter().map(|&k| (batch_keys.keys[k as usize].key_group, batch_keys.key(keys, k))),
        )?;
        for (&index, value) in misses.iter().zip(&stored) {
            if let Some(value) = value.as_ref().filter(|v| !format.expired(v.written_at, now)) {
                read_accumulators(value.row(), &self.accumulators.fields, accs.of(index as usize)).map_err(|e| {
                    NativeError::CorruptState(format!(
                        "an accumulator row in state '{}': {e}",
                        self.column_family.name()
                    ))
                })?;
                accs.present[index as usize] = true;
            }
        }
        Ok(accs)
    }

    /// Adds every changed key's accumulators to `write` (after what it holds), in key order,
    /// updates the cache, and applies the write.
    fn write_accumulators(
        &mut self,
        keys: &BinaryArray,
        batch_keys: &BatchKeys,
        accs: &mut BatchAccumulators,
        now: i64,
        write: StoreWrite,
    ) -> Result<()> {
        let mut row = Vec::new();
        let mut uncached = StateWrites::new(&self.config.layout, self.format());
        for index in 0..batch_keys.keys.len() {
            if !accs.touched[index] {
                continue;
            }
            let key = &batch_keys.keys[index];
            let key_bytes = batch_keys.key(keys, index as u32);
            if accs.present[index] {
                row.clear();
                write_accumulators(&mut row, &self.accumulators.fields, accs.of(index));
                if !self.cache.put_dirty(key.hash, key_bytes, &row, now) {
                    uncached.put(key.key_group, key_bytes, &row, now);
                }
            } else {
                self.cache.remove(key.hash, key_bytes);
                uncached.delete(key.key_group, key_bytes);
            }
        }
        uncached.commit_after_evicted(&mut self.cache, &self.column_family, write)
    }

    /// Writes every accumulator row the cache holds unwritten, in one write batch: before a
    /// checkpoint, so that the snapshot has them.
    pub fn flush(&mut self) -> Result<()> {
        let format = self.format();
        write_dirty(&mut self.cache, &self.config.layout, format, &self.column_family)
    }
}

#[cfg(test)]
mod element_table_tests;
#[cfg(test)]
mod tests;
