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

mod decimal_divide;
pub mod functions;
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
use crate::store::StateColumnFamily;
use functions::{AggregateCall, Number, NumberType};
use value_rows::{read_numbers, write_numbers};

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

/// The calls' accumulator fields: where each call's fields start, and their types.
struct AccumulatorLayout {
    starts: Vec<usize>,
    types: Vec<NumberType>,
    value_types: Vec<NumberType>,
}

impl AccumulatorLayout {
    fn of(config: &GroupAggConfig) -> Result<AccumulatorLayout> {
        let mut starts = Vec::with_capacity(config.calls.len());
        let mut types = Vec::new();
        for call in &config.calls {
            for position in call.argument.map(|(position, _)| position).into_iter().chain(call.filter) {
                if position >= config.input_arity {
                    return Err(NativeError::InvalidArgument(format!(
                        "aggregate field {position} of rows of {} fields",
                        config.input_arity
                    )));
                }
            }
            starts.push(types.len());
            types.extend(call.accumulator_types()?);
        }
        if let Some(start) = config.merged_from {
            if start + types.len() != config.input_arity {
                return Err(NativeError::InvalidArgument(format!(
                    "{} accumulator fields from field {start} of rows of {} fields",
                    types.len(),
                    config.input_arity
                )));
            }
        }
        if config.value_arity > config.calls.len() {
            return Err(NativeError::InvalidArgument(format!(
                "{} values of {} calls",
                config.value_arity,
                config.calls.len()
            )));
        }
        if let Some(field) = config.count_star_field {
            if types.get(field) != Some(&NumberType::BigInt) {
                return Err(NativeError::InvalidArgument(format!("accumulator field {field} is no row count")));
            }
        }
        let value_types =
            config.calls[..config.value_arity].iter().map(AggregateCall::value_type).collect::<Result<_>>()?;
        Ok(AccumulatorLayout { starts, types, value_types })
    }

    fn fields<'a>(&self, call: usize, acc: &'a mut [Option<Number>]) -> (&'a mut [Option<Number>], &[NumberType]) {
        let end = self.end(call);
        (&mut acc[self.starts[call]..end], &self.types[self.starts[call]..end])
    }

    /// The fields of `call` in the accumulator row `acc`.
    fn range<'a>(&self, call: usize, acc: &'a [Option<Number>]) -> &'a [Option<Number>] {
        &acc[self.starts[call]..self.end(call)]
    }

    fn end(&self, call: usize) -> usize {
        self.starts.get(call + 1).copied().unwrap_or(self.types.len())
    }
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
    pub fn new(
        column_family: StateColumnFamily,
        config: GroupAggConfig,
        cache_bytes: usize,
        reservation: Option<MemoryReservation>,
    ) -> Result<GroupAggregator> {
        let accumulators = AccumulatorLayout::of(&config)?;
        Ok(GroupAggregator { column_family, config, accumulators, cache: WinnerCache::new(cache_bytes), reservation })
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
            }
            for (call, aggregate) in self.config.calls.iter().enumerate() {
                let (fields, types) = self.accumulators.fields(call, acc);
                match self.config.merged_from {
                    Some(_) => aggregate.merge(fields, types, self.accumulators.range(call, &merged)),
                    None => aggregate.update(fields, types, &row, retract)?,
                }
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
            let no_rows = self.config.count_star_field.is_some_and(|f| matches!(acc[f], None | Some(Number::Int(0))));
            let outcome = if no_rows {
                accs.present[key] = false;
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

        self.write_accumulators(keys, &batch_keys, &mut accs, now)?;
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
                        read_numbers(&cached.row, &self.accumulators.types, accs.of(index))?;
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
                read_numbers(value.row(), &self.accumulators.types, accs.of(index as usize)).map_err(|e| {
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

    /// One write batch of every changed key's accumulators, in key order, and the cache updated.
    fn write_accumulators(
        &mut self,
        keys: &BinaryArray,
        batch_keys: &BatchKeys,
        accs: &mut BatchAccumulators,
        now: i64,
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
                write_numbers(&mut row, &self.accumulators.types, accs.of(index));
                if !self.cache.put_dirty(key.hash, key_bytes, &row, now) {
                    uncached.put(key.key_group, key_bytes, &row, now);
                }
            } else {
                self.cache.remove(key.hash, key_bytes);
                uncached.delete(key.key_group, key_bytes);
            }
        }
        uncached.commit_after_evicted(&mut self.cache, &self.column_family)
    }

    /// Writes every accumulator row the cache holds unwritten, in one write batch: before a
    /// checkpoint, so that the snapshot has them.
    pub fn flush(&mut self) -> Result<()> {
        let format = self.format();
        write_dirty(&mut self.cache, &self.config.layout, format, &self.column_family)
    }
}

#[cfg(test)]
mod tests;
