//! When two rows are "the same candidate" for Flink's sink upsert materializer, and a stable hash
//! that agrees with it.
//!
//! Without an upsert key Flink compares whole rows with its generated record equaliser, which,
//! for two `BinaryRowData`s, compares their bytes after setting both to one row kind: so the rows
//! are equal when their bytes are equal from the second byte on. With an upsert key it compares
//! the key's fields of the two rows (a `ProjectedRowData`, so field by field): both null, or both
//! set and equal by Java's primitive `==` for numbers (NaN is equal to nothing, -0.0 equals 0.0)
//! and by value for strings, binary strings, decimals and timestamps.
//!
//! The hash is stored (it names the index entry a candidate is filed under), so it never
//! changes: FxHash's mixing over the identity's little-endian 8-byte words, folded to 32 bits.

use super::binary_row::BinaryRow;
use super::sort_key::{compare_big_endian, FieldType};
use crate::error::{NativeError, Result};
use crate::word_hash::WordHasher;

/// What identifies a candidate row.
#[derive(Clone, Debug)]
pub enum RowIdentity {
    /// The whole row but its row kind.
    WholeRow,
    /// The upsert key: these fields of rows of `arity` fields.
    Fields { arity: usize, fields: Vec<(usize, FieldType)> },
}

const NULL_MARK: u64 = 0x6e75_6c6c;

/// A big-endian two's-complement integer without redundant sign bytes, so equal values hash alike.
fn minimal_big_endian(mut v: &[u8]) -> &[u8] {
    while v.len() > 1 && ((v[0] == 0 && v[1] & 0x80 == 0) || (v[0] == 0xff && v[1] & 0x80 != 0)) {
        v = &v[1..];
    }
    v
}

impl RowIdentity {
    fn whole_row_tail(row: &[u8]) -> Result<&[u8]> {
        row.get(1..).ok_or_else(|| NativeError::CorruptRow("an empty row".into()))
    }

    /// The identity's hash: equal identities hash alike.
    pub fn hash(&self, row: &[u8]) -> Result<u32> {
        let mut hasher = WordHasher::default();
        match self {
            RowIdentity::WholeRow => hasher.bytes(Self::whole_row_tail(row)?),
            RowIdentity::Fields { arity, fields } => {
                let row = BinaryRow::new(row, *arity)?;
                for &(pos, field_type) in fields {
                    if row.is_null_at(pos) {
                        hasher.word(NULL_MARK);
                        continue;
                    }
                    match field_type {
                        FieldType::Boolean => hasher.word(row.get_bool(pos) as u64),
                        FieldType::TinyInt => hasher.word(row.get_i8(pos) as u64),
                        FieldType::SmallInt => hasher.word(row.get_i16(pos) as u64),
                        FieldType::Int => hasher.word(row.get_i32(pos) as u64),
                        FieldType::BigInt
                        | FieldType::CompactDecimal
                        | FieldType::CompactTimestamp
                        | FieldType::RowtimeMillis => hasher.word(row.get_i64(pos) as u64),
                        // -0.0 == 0.0 in Java, so both hash as 0.0.
                        FieldType::Float => hasher.word((row.get_f32(pos) + 0.0).to_bits() as u64),
                        FieldType::Double => hasher.word((row.get_f64(pos) + 0.0).to_bits()),
                        FieldType::Decimal => hasher.bytes(minimal_big_endian(row.get_decimal_bytes(pos)?)),
                        FieldType::Timestamp => {
                            let (millis, nanos) = row.get_timestamp(pos)?;
                            hasher.word(millis as u64);
                            hasher.word(nanos as u64);
                        }
                        FieldType::Bytes => hasher.bytes(row.get_bytes(pos)?),
                    }
                }
            }
        }
        Ok(hasher.finish32())
    }

    /// Whether `a` and `b` are the same candidate, as Flink's materializer decides it.
    pub fn equals(&self, a: &[u8], b: &[u8]) -> Result<bool> {
        match self {
            RowIdentity::WholeRow => Ok(Self::whole_row_tail(a)? == Self::whole_row_tail(b)?),
            RowIdentity::Fields { arity, fields } => {
                let (a, b) = (BinaryRow::new(a, *arity)?, BinaryRow::new(b, *arity)?);
                for &(pos, field_type) in fields {
                    if !field_equals(&a, &b, pos, field_type)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
        }
    }
}

fn field_equals(a: &BinaryRow, b: &BinaryRow, pos: usize, field_type: FieldType) -> Result<bool> {
    match (a.is_null_at(pos), b.is_null_at(pos)) {
        (true, true) => return Ok(true),
        (true, false) | (false, true) => return Ok(false),
        (false, false) => {}
    }
    Ok(match field_type {
        FieldType::Boolean => a.get_bool(pos) == b.get_bool(pos),
        FieldType::TinyInt => a.get_i8(pos) == b.get_i8(pos),
        FieldType::SmallInt => a.get_i16(pos) == b.get_i16(pos),
        FieldType::Int => a.get_i32(pos) == b.get_i32(pos),
        FieldType::BigInt | FieldType::CompactDecimal | FieldType::CompactTimestamp | FieldType::RowtimeMillis => {
            a.get_i64(pos) == b.get_i64(pos)
        }
        FieldType::Float => a.get_f32(pos) == b.get_f32(pos),
        FieldType::Double => a.get_f64(pos) == b.get_f64(pos),
        FieldType::Decimal => compare_big_endian(a.get_decimal_bytes(pos)?, b.get_decimal_bytes(pos)?).is_eq(),
        FieldType::Timestamp => a.get_timestamp(pos)? == b.get_timestamp(pos)?,
        FieldType::Bytes => a.get_bytes(pos)? == b.get_bytes(pos)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columnar::binary_row::tests::RowBuilder;

    #[test]
    fn whole_rows_are_equal_whatever_their_row_kind() {
        let mut a = RowBuilder::new(2).long(0, 1).bytes(1, b"a longer string").build();
        let b = a.clone();
        a[0] = 2;
        let identity = RowIdentity::WholeRow;
        assert!(identity.equals(&a, &b).unwrap());
        assert_eq!(identity.hash(&a).unwrap(), identity.hash(&b).unwrap());
        let c = RowBuilder::new(2).long(0, 2).bytes(1, b"a longer string").build();
        assert!(!identity.equals(&a, &c).unwrap());
    }

    #[test]
    fn upsert_key_fields_compare_as_javas_primitive_equality() {
        let identity = RowIdentity::Fields { arity: 2, fields: vec![(0, FieldType::Double)] };
        let zero = RowBuilder::new(2).double(0, 0.0).long(1, 1).build();
        let negative_zero = RowBuilder::new(2).double(0, -0.0).long(1, 2).build();
        let nan = RowBuilder::new(2).double(0, f64::NAN).long(1, 1).build();
        assert!(identity.equals(&zero, &negative_zero).unwrap(), "other fields do not matter");
        assert_eq!(identity.hash(&zero).unwrap(), identity.hash(&negative_zero).unwrap());
        assert!(!identity.equals(&nan, &nan).unwrap(), "NaN == NaN is false in Java");
        let null = RowBuilder::new(2).null(0).long(1, 1).build();
        assert!(identity.equals(&null, &null).unwrap());
        assert!(!identity.equals(&null, &zero).unwrap());
    }

    #[test]
    fn strings_compare_by_bytes_inline_or_not() {
        let identity = RowIdentity::Fields { arity: 1, fields: vec![(0, FieldType::Bytes)] };
        let short = RowBuilder::new(1).bytes(0, b"abc").build();
        let same = RowBuilder::new(1).bytes(0, b"abc").build();
        let long = RowBuilder::new(1).bytes(0, b"abcdefghij").build();
        assert!(identity.equals(&short, &same).unwrap());
        assert_eq!(identity.hash(&short).unwrap(), identity.hash(&same).unwrap());
        assert!(!identity.equals(&short, &long).unwrap());
    }

    #[test]
    fn the_stored_hash_never_changes() {
        // The hash names stored entries: a change would orphan every restored candidate.
        let row = RowBuilder::new(2).long(0, 7).bytes(1, b"hello world!").build();
        assert_eq!(RowIdentity::WholeRow.hash(&row).unwrap(), RowIdentity::WholeRow.hash(&row.clone()).unwrap());
        let fields = RowIdentity::Fields { arity: 2, fields: vec![(0, FieldType::BigInt)] };
        assert_eq!(fields.hash(&row).unwrap(), EXPECTED_BIGINT_7_HASH);
    }

    const EXPECTED_BIGINT_7_HASH: u32 = 277_946_592;

    #[test]
    fn redundant_sign_bytes_do_not_change_a_decimal_hash() {
        assert_eq!(minimal_big_endian(&[0, 0, 5]), &[5]);
        assert_eq!(minimal_big_endian(&[0xff, 0xff, 0x80]), &[0x80]);
        assert_eq!(minimal_big_endian(&[0, 0x80]), &[0, 0x80]);
    }
}
