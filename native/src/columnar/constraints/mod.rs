//! A sink's constraint enforcement over a batch of rows, as Flink's `ConstraintEnforcer` applies
//! it to every row kind: the NOT NULL columns, then the CHAR/VARCHAR lengths, then the
//! BINARY/VARBINARY lengths, each constraint over its fields in order, the first violation
//! deciding. A row passes unchanged, comes out rewritten (trimmed or padded), is dropped, or
//! stops the batch: under `ERROR` the rows before the violating one are emitted and Java throws
//! Flink's exception for it.
//!
//! Flink's length constraints read a field's string or bytes without asking whether it is NULL,
//! and `BinaryRowData` reads a NULL as empty, so under `TRIM_PAD` a NULL `CHAR(n)` becomes `n`
//! spaces and a NULL `BINARY(n)` `n` zero bytes, and under `ERROR` both are violations of length
//! 0. This module keeps that.

pub mod code_points;
pub mod row_rewrite;
#[cfg(test)]
mod tests;

use std::ops::Range;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BinaryBuilder, Int32Array, Int8Array, StructArray};
use arrow::datatypes::{DataType, Field, Fields};

use crate::columnar::batch_keys::key_and_row_columns;
use crate::columnar::binary_row::BinaryRow;
use crate::error::{NativeError, Result};
use row_rewrite::Rewriter;

/// The row passes unchanged.
pub const EMIT: i8 = 0;
/// The row passes with trimmed or padded fields: its new bytes are in the result.
pub const REWRITTEN: i8 = 1;
/// A NOT NULL column is NULL and the mode is `DROP`.
pub const DROPPED: i8 = 2;
/// A NOT NULL column is NULL and the mode is `ERROR`; the last row of the result.
pub const NULL_VIOLATION: i8 = 3;
/// A CHAR/VARCHAR length is wrong and the mode is `ERROR`; the last row of the result.
pub const CHAR_VIOLATION: i8 = 4;
/// A BINARY/VARBINARY length is wrong and the mode is `ERROR`; the last row of the result.
pub const BINARY_VIOLATION: i8 = 5;

/// `table.exec.sink.not-null-enforcer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotNullMode {
    Error,
    Drop,
}

/// `table.exec.sink.type-length-enforcer`, where it creates constraints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthMode {
    TrimPad,
    Error,
}

/// A length-constrained field: `CHAR(length)`/`BINARY(length)` when `pad`, else
/// `VARCHAR(length)`/`VARBINARY(length)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LengthField {
    pub position: usize,
    pub length: usize,
    pub pad: bool,
}

/// What one sink enforces, as Flink's `ConstraintEnforcerExecutor` built it for the sink.
#[derive(Clone, Debug)]
pub struct ConstraintSpec {
    pub arity: usize,
    pub not_null: Vec<usize>,
    pub not_null_mode: NotNullMode,
    pub char_fields: Vec<LengthField>,
    pub binary_fields: Vec<LengthField>,
    pub length_mode: LengthMode,
    /// The fields, in position order, whose slot may point into the variable-length part: every
    /// string, binary, wide decimal, wide timestamp and nested value.
    pub variable_fields: Vec<usize>,
}

impl ConstraintSpec {
    fn check(&self) -> Result<()> {
        let outside = self
            .not_null
            .iter()
            .chain(self.variable_fields.iter())
            .chain(self.char_fields.iter().chain(&self.binary_fields).map(|f| &f.position))
            .find(|&&p| p >= self.arity);
        if let Some(position) = outside {
            return Err(NativeError::InvalidArgument(format!(
                "constraint on field {position} of rows of {} fields",
                self.arity
            )));
        }
        if !self.variable_fields.is_sorted_by(|a, b| a < b) {
            return Err(NativeError::InvalidArgument("variable-length fields out of order".into()));
        }
        let not_variable = self
            .char_fields
            .iter()
            .chain(&self.binary_fields)
            .find(|f| self.variable_fields.binary_search(&f.position).is_err());
        if let Some(field) = not_variable {
            return Err(NativeError::InvalidArgument(format!(
                "length constraint on field {}, which holds no string or bytes",
                field.position
            )));
        }
        Ok(())
    }
}

/// The enforcer of one operator instance.
pub struct SinkConstraints {
    spec: ConstraintSpec,
    rewriter: Rewriter,
    /// The replaced fields of the current row: position and range in `values`.
    replacements: Vec<(usize, Range<usize>)>,
    values: Vec<u8>,
}

/// How one row came out.
enum Outcome {
    Emit,
    Rewritten,
    Dropped,
    /// The violated constraint's code, the field's index in that constraint, the actual length.
    Violation(i8, usize, usize),
}

fn result_fields() -> Fields {
    Fields::from(vec![
        Field::new("outcome", DataType::Int8, false),
        Field::new("row", DataType::Binary, true),
        Field::new("field", DataType::Int32, false),
        Field::new("length", DataType::Int32, false),
    ])
}

impl SinkConstraints {
    pub fn new(spec: ConstraintSpec) -> Result<SinkConstraints> {
        spec.check()?;
        Ok(SinkConstraints { spec, rewriter: Rewriter::default(), replacements: Vec::new(), values: Vec::new() })
    }

    /// Enforces the constraints on every row of `batch` (`key` and `row` binary columns; the key
    /// is not read) up to the first violation. The result has one entry per row it covers:
    /// `outcome` (the constants above), `row` (the new bytes of a rewritten row, else null), and
    /// for a violation `field` (its index among the violated constraint's fields) and `length`.
    pub fn enforce(&mut self, batch: &StructArray) -> Result<StructArray> {
        let (_, rows) = key_and_row_columns(batch, "a constraint batch")?;
        let mut outcomes = Vec::with_capacity(rows.len());
        let mut rewritten = BinaryBuilder::with_capacity(rows.len(), rows.value_data().len());
        let (mut violated_field, mut violated_length) = (0, 0);
        let mut bytes = Vec::new();
        for i in 0..rows.len() {
            let row = BinaryRow::new(rows.value(i), self.spec.arity)?;
            let outcome = self.row_outcome(&row)?;
            match outcome {
                Outcome::Rewritten => {
                    bytes.clear();
                    self.rewriter.rewrite(
                        &row,
                        &self.spec.variable_fields,
                        &self.replacements,
                        &self.values,
                        &mut bytes,
                    )?;
                    rewritten.append_value(&bytes);
                    outcomes.push(REWRITTEN);
                }
                Outcome::Emit | Outcome::Dropped => {
                    rewritten.append_null();
                    outcomes.push(if matches!(outcome, Outcome::Emit) { EMIT } else { DROPPED });
                }
                Outcome::Violation(code, field, length) => {
                    rewritten.append_null();
                    outcomes.push(code);
                    (violated_field, violated_length) = (field, length);
                    break;
                }
            }
        }
        let n = outcomes.len();
        let mut field = vec![0i32; n];
        let mut length = vec![0i32; n];
        if n > 0 && outcomes[n - 1] >= NULL_VIOLATION {
            field[n - 1] = violated_field as i32;
            length[n - 1] = i32::try_from(violated_length).unwrap_or(i32::MAX);
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int8Array::from(outcomes)),
            Arc::new(rewritten.finish()),
            Arc::new(Int32Array::from(field)),
            Arc::new(Int32Array::from(length)),
        ];
        Ok(StructArray::try_new(result_fields(), columns, None)?)
    }

    /// Applies the constraints to `row` in Flink's order; the replaced fields of a rewritten row
    /// are left in `self.replacements`, in position order.
    fn row_outcome(&mut self, row: &BinaryRow) -> Result<Outcome> {
        for (i, &position) in self.spec.not_null.iter().enumerate() {
            if row.is_null_at(position) {
                return Ok(match self.spec.not_null_mode {
                    NotNullMode::Drop => Outcome::Dropped,
                    NotNullMode::Error => Outcome::Violation(NULL_VIOLATION, i, 0),
                });
            }
        }
        self.replacements.clear();
        self.values.clear();
        let mode = self.spec.length_mode;
        for (i, field) in self.spec.char_fields.iter().enumerate() {
            let value = row.get_bytes(field.position)?;
            let chars = code_points::count(value);
            if chars > field.length || (field.pad && chars < field.length) {
                if mode == LengthMode::Error {
                    return Ok(Outcome::Violation(CHAR_VIOLATION, i, chars));
                }
                let start = self.values.len();
                self.values.extend_from_slice(code_points::prefix(value, field.length));
                self.values.resize(self.values.len() + field.length.saturating_sub(chars), b' ');
                self.replacements.push((field.position, start..self.values.len()));
            }
        }
        for (i, field) in self.spec.binary_fields.iter().enumerate() {
            let value = row.get_bytes(field.position)?;
            if value.len() > field.length || (field.pad && value.len() < field.length) {
                if mode == LengthMode::Error {
                    return Ok(Outcome::Violation(BINARY_VIOLATION, i, value.len()));
                }
                let start = self.values.len();
                self.values.extend_from_slice(&value[..value.len().min(field.length)]);
                self.values.resize(start + field.length, 0);
                self.replacements.push((field.position, start..self.values.len()));
            }
        }
        if self.replacements.is_empty() {
            return Ok(Outcome::Emit);
        }
        self.replacements.sort_by_key(|(p, _)| *p);
        Ok(Outcome::Rewritten)
    }
}
