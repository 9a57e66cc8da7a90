//! Accumulator and value rows: `BinaryRowData` bytes of number fields only, read and written as
//! `BinaryRowWriter` lays them out (row kind INSERT, null bits, one eight-byte slot per field, a
//! NULL's slot zeroed).

use super::functions::{Number, NumberType};
use crate::columnar::binary_row::{header_bytes, BinaryRow};
use crate::error::Result;

const HEADER_BITS: usize = 8;

/// Reads the fields of `bytes`, a row of `types`, into `out`.
pub fn read_numbers(bytes: &[u8], types: &[NumberType], out: &mut [Option<Number>]) -> Result<()> {
    let row = BinaryRow::new(bytes, types.len())?;
    for (pos, (field_type, value)) in types.iter().zip(out.iter_mut()).enumerate() {
        *value = field_type.read(&row, pos);
    }
    Ok(())
}

/// Appends the row of `values`, typed `types`, to `out`.
pub fn write_numbers(out: &mut Vec<u8>, types: &[NumberType], values: &[Option<Number>]) {
    let start = out.len();
    let header = header_bytes(types.len());
    out.resize(start + header, 0);
    for (pos, (field_type, value)) in types.iter().zip(values).enumerate() {
        match value {
            Some(value) => out.extend_from_slice(&field_type.slot(*value).to_le_bytes()),
            None => {
                let bit = pos + HEADER_BITS;
                out[start + bit / 8] |= 1 << (bit % 8);
                out.extend_from_slice(&[0; 8]);
            }
        }
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
}
