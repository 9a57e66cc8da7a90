//! Accumulator and value rows: `BinaryRowData` bytes of number fields only, read and written as
//! `BinaryRowWriter` lays them out (row kind INSERT, null bits, one eight-byte slot per field, a
//! NULL's slot zeroed; a DECIMAL too precise for the slot gets 16 bytes of the variable-length
//! part, NULL or not, its slot holding their offset and the value's length).

use super::functions::{unscaled_bytes, Number, NumberType};
use crate::columnar::binary_row::{header_bytes, BinaryRow};
use crate::error::Result;

const HEADER_BITS: usize = 8;

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
        let slot_at = start + header + 8 * pos;
        if value.is_none() {
            let bit = pos + HEADER_BITS;
            out[start + bit / 8] |= 1 << (bit % 8);
        }
        let slot = if field_type.is_variable() {
            let offset = out.len() - start;
            let bytes = match value {
                Some(Number::Decimal(v)) => unscaled_bytes(*v),
                _ => Vec::new(),
            };
            out.extend_from_slice(&bytes);
            out.resize(start + offset + 16, 0);
            ((offset as u64) << 32) | bytes.len() as u64
        } else {
            value.map_or(0, |v| field_type.slot(v))
        };
        out[slot_at..slot_at + 8].copy_from_slice(&slot.to_le_bytes());
    }
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
        let mut back = [None; 3];
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
        let mut back = [None; 4];
        read_numbers(&bytes, &types, &mut back).unwrap();
        assert_eq!(back, values);
        assert_eq!(unscaled_bytes(-128), vec![0x80], "BigInteger.valueOf(-128).toByteArray()");
        assert_eq!(unscaled_bytes(128), vec![0x00, 0x80]);
        assert_eq!(unscaled_bytes(0), vec![0x00]);
    }
}
