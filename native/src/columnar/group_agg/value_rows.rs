//! Accumulator and value rows: `BinaryRowData` bytes, read and written as `BinaryRowWriter` lays
//! them out (row kind INSERT, null bits, one eight-byte slot per field, a NULL's slot zeroed; a
//! DECIMAL too precise for the slot gets 16 bytes of the variable-length part, NULL or not, its
//! slot holding their offset and the value's length).
//!
//! Value rows hold numbers only. Accumulator rows may also hold what imperative functions and
//! DISTINCT views keep ([`AccumulatorField`]): a MIN or MAX over retractions keeps a nested row
//! `(extreme, mapSize BIGINT, map RAW)`, and a `MapView` (a RAW value that Flink serializes with
//! `NullSerializer`, since the view lives in its own state) is zero bytes at the variable part's
//! end, as `writeSegmentsToVarLenPart` places them.

use super::functions::{unscaled_bytes, Number, NumberType};
use crate::columnar::binary_row::{header_bytes, BinaryRow};
use crate::error::{NativeError, Result};

const HEADER_BITS: usize = 8;
/// The most bytes a string keeps in its fixed slot, and the mark of such a slot's length byte.
const MAX_INLINE_BYTES: usize = 7;
const INLINE_MARK: u8 = 0x80;
/// The fields of the nested row a MIN or MAX over retractions keeps.
const EXTREME_ARITY: usize = 3;

/// A field of an accumulator row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccumulatorField {
    Number(NumberType),
    /// The nested row `(extreme, mapSize, map)` of a MIN or MAX over retractions, the extreme of
    /// this type.
    Extreme(NumberType),
    /// A `MapView` kept in its own state: a DISTINCT view.
    View,
}

impl AccumulatorField {
    /// The number slots the field holds, as the kernels see the accumulator: an extreme's
    /// extreme and `mapSize`, nothing for a view.
    pub fn slot_types(&self) -> Vec<NumberType> {
        match *self {
            AccumulatorField::Number(t) => vec![t],
            AccumulatorField::Extreme(t) => vec![t, NumberType::BigInt],
            AccumulatorField::View => Vec::new(),
        }
    }
}

/// Reads the accumulator row `bytes` of `fields` into its number slots `out`.
pub fn read_accumulators(bytes: &[u8], fields: &[AccumulatorField], out: &mut [Option<Number>]) -> Result<()> {
    let row = BinaryRow::new(bytes, fields.len())?;
    let mut slot = 0;
    for (pos, field) in fields.iter().enumerate() {
        match *field {
            AccumulatorField::Number(t) => out[slot] = t.read(&row, pos)?,
            AccumulatorField::Extreme(t) => {
                let nested = nested_row(&row, pos)?;
                read_numbers(nested, &[t, NumberType::BigInt], &mut out[slot..slot + 2])?;
            }
            AccumulatorField::View => {}
        }
        slot += field.slot_types().len();
    }
    Ok(())
}

/// The bytes of the nested row at `pos`: its slot holds their offset in the row and length.
fn nested_row<'a>(row: &BinaryRow<'a>, pos: usize) -> Result<&'a [u8]> {
    if row.is_null_at(pos) {
        return Err(NativeError::CorruptRow(format!("accumulator field {pos} is NULL")));
    }
    let slot = row.slot(pos);
    let (offset, length) = ((slot >> 32) as usize, slot as u32 as usize);
    offset
        .checked_add(length)
        .filter(|end| offset >= row.fixed_end() && *end <= row.bytes().len())
        .map(|end| &row.bytes()[offset..end])
        .ok_or_else(|| NativeError::CorruptRow(format!("accumulator field {pos} points outside its row")))
}

/// Appends the accumulator row of `fields` holding the number slots `slots` to `out`.
pub fn write_accumulators(out: &mut Vec<u8>, fields: &[AccumulatorField], slots: &[Option<Number>]) {
    let start = out.len();
    let header = header_bytes(fields.len());
    out.resize(start + header + 8 * fields.len(), 0);
    let mut at = 0;
    let mut nested = Vec::new();
    for (pos, field) in fields.iter().enumerate() {
        let slot_at = start + header + 8 * pos;
        let slot = match *field {
            AccumulatorField::Number(t) => {
                write_field(out, start, header, pos, t, &slots[at]);
                at += 1;
                continue;
            }
            AccumulatorField::Extreme(t) => {
                nested.clear();
                write_extreme(&mut nested, t, &slots[at], &slots[at + 1]);
                let offset = out.len() - start;
                out.extend_from_slice(&nested);
                ((offset as u64) << 32) | nested.len() as u64
            }
            AccumulatorField::View => ((out.len() - start) as u64) << 32,
        };
        out[slot_at..slot_at + 8].copy_from_slice(&slot.to_le_bytes());
        at += field.slot_types().len();
    }
}

/// The nested row of an extreme as `RowDataSerializer.toBinaryRow` writes it: a NULL extreme is
/// only its null bit, and the RAW map is zero bytes at the end.
fn write_extreme(out: &mut Vec<u8>, extreme_type: NumberType, extreme: &Option<Number>, map_size: &Option<Number>) {
    let header = header_bytes(EXTREME_ARITY);
    out.resize(header + 8 * EXTREME_ARITY, 0);
    match extreme {
        Some(_) => write_field(out, 0, header, 0, extreme_type, extreme),
        None => out[HEADER_BITS / 8] |= 1,
    }
    write_field(out, 0, header, 1, NumberType::BigInt, map_size);
    let raw = ((out.len() as u64) << 32).to_le_bytes();
    out[header + 16..header + 24].copy_from_slice(&raw);
}

/// Reads the fields of `bytes`, a row of `types`, into `out`.
pub fn read_numbers(bytes: &[u8], types: &[NumberType], out: &mut [Option<Number>]) -> Result<()> {
    let row = BinaryRow::new(bytes, types.len())?;
    for (pos, (field_type, value)) in types.iter().zip(out.iter_mut()).enumerate() {
        *value = field_type.read(&row, pos)?;
    }
    Ok(())
}

/// Appends the row of `values`, typed `types`, to `out`.
pub fn write_numbers(out: &mut Vec<u8>, types: &[NumberType], values: &[Option<Number>]) {
    let start = out.len();
    let header = header_bytes(types.len());
    out.resize(start + header + 8 * types.len(), 0);
    for (pos, (field_type, value)) in types.iter().zip(values).enumerate() {
        write_field(out, start, header, pos, *field_type, value);
    }
}

/// Writes field `pos` of the row that starts at `start` in `out`, whose fixed part (a header of
/// `header` bytes, then the slots) is there: a string of up to seven bytes in its slot, a longer
/// one at the end of the variable part (padded to a word), as `BinaryRowWriter.writeString` does.
fn write_field(
    out: &mut Vec<u8>,
    start: usize,
    header: usize,
    pos: usize,
    field_type: NumberType,
    value: &Option<Number>,
) {
    let slot_at = start + header + 8 * pos;
    if value.is_none() {
        let bit = pos + HEADER_BITS;
        out[start + bit / 8] |= 1 << (bit % 8);
    }
    let slot = match (field_type, value) {
        (NumberType::Bytes, Some(Number::Bytes(bytes))) if bytes.len() <= MAX_INLINE_BYTES => {
            let mut slot = [0u8; 8];
            slot[..bytes.len()].copy_from_slice(bytes);
            slot[7] = INLINE_MARK | bytes.len() as u8;
            u64::from_le_bytes(slot)
        }
        (NumberType::Bytes, Some(Number::Bytes(bytes))) => {
            let offset = out.len() - start;
            out.extend_from_slice(bytes);
            out.resize(start + offset + bytes.len().div_ceil(8) * 8, 0);
            ((offset as u64) << 32) | bytes.len() as u64
        }
        (field_type, value) if field_type.is_variable() => {
            let offset = out.len() - start;
            let bytes = match value {
                Some(Number::Decimal(v)) => unscaled_bytes(*v),
                _ => Vec::new(),
            };
            out.extend_from_slice(&bytes);
            out.resize(start + offset + 16, 0);
            ((offset as u64) << 32) | bytes.len() as u64
        }
        (field_type, value) => value.as_ref().map_or(0, |v| field_type.slot(v)),
    };
    out[slot_at..slot_at + 8].copy_from_slice(&slot.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columnar::binary_row::tests::RowBuilder;

    #[test]
    fn rows_are_written_as_flink_writes_them_and_read_back() {
        let types = [NumberType::BigInt, NumberType::Int, NumberType::Double];
        let values = [Some(Number::Int(-3)), None, Some(Number::Float(2.5))];
        let mut bytes = Vec::new();
        write_numbers(&mut bytes, &types, &values);
        assert_eq!(bytes, RowBuilder::new(3).long(0, -3).null(1).double(2, 2.5).build());
        let mut back = vec![None; 3];
        read_numbers(&bytes, &types, &mut back).unwrap();
        assert_eq!(back, values);
    }

    #[test]
    fn strings_inline_and_in_the_variable_part_are_written_as_flink_writes_them() {
        let types = [NumberType::Bytes, NumberType::BigInt, NumberType::Bytes, NumberType::Bytes];
        let long = "a string longer than seven bytes é";
        let values = [
            Some(Number::Bytes(b"short".as_slice().into())),
            Some(Number::Int(7)),
            Some(Number::Bytes(long.as_bytes().into())),
            None,
        ];
        let mut bytes = Vec::new();
        write_numbers(&mut bytes, &types, &values);
        let expected = RowBuilder::new(4).bytes(0, b"short").long(1, 7).bytes(2, long.as_bytes()).null(3).build();
        assert_eq!(bytes, expected);
        let mut back = vec![None; 4];
        read_numbers(&bytes, &types, &mut back).unwrap();
        assert_eq!(back, values);
    }

    #[test]
    fn decimals_in_the_slot_and_in_the_variable_part_round_trip() {
        let compact = NumberType::Decimal { precision: 10, scale: 2 };
        let wide = NumberType::Decimal { precision: 38, scale: 2 };
        let types = [compact, wide, wide, wide];
        let big = 10i128.pow(37) + 5;
        let values = [Some(Number::Decimal(-1234)), Some(Number::Decimal(big)), None, Some(Number::Decimal(-128))];
        let mut bytes = Vec::new();
        write_numbers(&mut bytes, &types, &values);
        assert_eq!(bytes.len(), header_bytes(4) + 4 * 8 + 3 * 16, "16 bytes for each wide decimal");
        let mut back = vec![None; 4];
        read_numbers(&bytes, &types, &mut back).unwrap();
        assert_eq!(back, values);
        assert_eq!(unscaled_bytes(-128), vec![0x80], "BigInteger.valueOf(-128).toByteArray()");
        assert_eq!(unscaled_bytes(128), vec![0x00, 0x80]);
        assert_eq!(unscaled_bytes(0), vec![0x00]);
    }
}
