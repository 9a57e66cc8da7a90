//! The ORDER BY comparison of Flink's generated sort-key comparators
//! (`GenerateUtils.generateRowCompare`), over `BinaryRowData` fields:
//!
//! - a null compares as greater than any value if the field's nulls come last, else as smaller,
//!   whatever the direction; two nulls are equal;
//! - numbers compare by primitive `<` and `>`, so NaN equals everything and -0.0 equals 0.0;
//! - strings and binary strings compare by unsigned bytes, then by length;
//! - decimals and timestamps compare by value;
//! - a descending field reverses the value comparison (not the null placement).

use std::cmp::Ordering;

use super::binary_row::BinaryRow;
use crate::error::{NativeError, Result};

/// How a field is stored, as `BinaryFieldType` on the Java side; the codes are its ordinals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    Boolean,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Float,
    Double,
    CompactDecimal,
    Decimal,
    CompactTimestamp,
    Timestamp,
    Bytes,
    /// A row-time attribute as Flink's row-time deduplication reads it (`RowData.getLong`): the
    /// fixed slot's eight bytes, whatever the null bit says. Flink's writers zero the slot of a
    /// NULL, so a NULL compares as 0 and has no null placement.
    RowtimeMillis,
}

impl FieldType {
    /// The type with `BinaryFieldType` ordinal `code`.
    pub fn from_code(code: i32) -> Result<FieldType> {
        const TYPES: [FieldType; 13] = [
            FieldType::Boolean,
            FieldType::TinyInt,
            FieldType::SmallInt,
            FieldType::Int,
            FieldType::BigInt,
            FieldType::Float,
            FieldType::Double,
            FieldType::CompactDecimal,
            FieldType::Decimal,
            FieldType::CompactTimestamp,
            FieldType::Timestamp,
            FieldType::Bytes,
            FieldType::RowtimeMillis,
        ];
        usize::try_from(code)
            .ok()
            .and_then(|i| TYPES.get(i).copied())
            .ok_or_else(|| NativeError::Internal(format!("unknown field type code {code}")))
    }
}

/// One ORDER BY field.
#[derive(Clone, Copy, Debug)]
pub struct SortField {
    pub position: usize,
    pub field_type: FieldType,
    pub ascending: bool,
    pub nulls_last: bool,
}

/// An ORDER BY over rows of one arity.
#[derive(Clone, Debug)]
pub struct SortKey {
    fields: Vec<SortField>,
}

fn primitive<T: PartialOrd>(a: T, b: T) -> Ordering {
    if a > b {
        Ordering::Greater
    } else if a < b {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

/// Two's-complement big-endian integers of any lengths, by value.
pub(crate) fn compare_big_endian(a: &[u8], b: &[u8]) -> Ordering {
    let negative = |v: &[u8]| v.first().is_some_and(|byte| *byte & 0x80 != 0);
    match (negative(a), negative(b)) {
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    let fill = if negative(a) { 0xff } else { 0x00 };
    let width = a.len().max(b.len());
    let byte = |v: &[u8], i: usize| if i < width - v.len() { fill } else { v[i - (width - v.len())] };
    (0..width).map(|i| byte(a, i).cmp(&byte(b, i))).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
}

impl SortKey {
    /// A key of no fields ranks every row equal.
    pub fn new(fields: Vec<SortField>, arity: usize) -> Result<SortKey> {
        if fields.iter().any(|f| f.position >= arity) {
            return Err(NativeError::InvalidArgument(format!(
                "sort fields {fields:?} do not fit rows of {arity} fields"
            )));
        }
        Ok(SortKey { fields })
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Negative when `a` sorts first, as Flink's comparator's sign.
    pub fn compare(&self, a: &BinaryRow, b: &BinaryRow) -> Result<Ordering> {
        for field in &self.fields {
            let pos = field.position;
            let order = match (a.is_null_at(pos), b.is_null_at(pos)) {
                _ if field.field_type == FieldType::RowtimeMillis => a.get_i64(pos).cmp(&b.get_i64(pos)),
                (true, true) => continue,
                (true, false) => return Ok(if field.nulls_last { Ordering::Greater } else { Ordering::Less }),
                (false, true) => return Ok(if field.nulls_last { Ordering::Less } else { Ordering::Greater }),
                (false, false) => compare_values(field.field_type, pos, a, b)?,
            };
            if order.is_ne() {
                return Ok(if field.ascending { order } else { order.reverse() });
            }
        }
        Ok(Ordering::Equal)
    }
}

fn compare_values(field_type: FieldType, pos: usize, a: &BinaryRow, b: &BinaryRow) -> Result<Ordering> {
    Ok(match field_type {
        FieldType::Boolean => a.get_bool(pos).cmp(&b.get_bool(pos)),
        FieldType::TinyInt => a.get_i8(pos).cmp(&b.get_i8(pos)),
        FieldType::SmallInt => a.get_i16(pos).cmp(&b.get_i16(pos)),
        FieldType::Int => a.get_i32(pos).cmp(&b.get_i32(pos)),
        FieldType::BigInt | FieldType::CompactDecimal | FieldType::CompactTimestamp | FieldType::RowtimeMillis => {
            a.get_i64(pos).cmp(&b.get_i64(pos))
        }
        FieldType::Float => primitive(a.get_f32(pos), b.get_f32(pos)),
        FieldType::Double => primitive(a.get_f64(pos), b.get_f64(pos)),
        FieldType::Decimal => compare_big_endian(a.get_decimal_bytes(pos)?, b.get_decimal_bytes(pos)?),
        FieldType::Timestamp => a.get_timestamp(pos)?.cmp(&b.get_timestamp(pos)?),
        FieldType::Bytes => a.get_bytes(pos)?.cmp(b.get_bytes(pos)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columnar::binary_row::tests::RowBuilder;

    fn key(field_type: FieldType, ascending: bool, nulls_last: bool) -> SortKey {
        SortKey::new(vec![SortField { position: 0, field_type, ascending, nulls_last }], 1).unwrap()
    }

    fn cmp(key: &SortKey, a: &[u8], b: &[u8]) -> Ordering {
        key.compare(&BinaryRow::new(a, 1).unwrap(), &BinaryRow::new(b, 1).unwrap()).unwrap()
    }

    #[test]
    fn doubles_compare_like_javas_primitive_operators() {
        let asc = key(FieldType::Double, true, false);
        let row = |v: f64| RowBuilder::new(1).double(0, v).build();
        assert_eq!(cmp(&asc, &row(1.0), &row(2.0)), Ordering::Less);
        assert_eq!(cmp(&asc, &row(f64::NAN), &row(2.0)), Ordering::Equal, "NaN ties with everything");
        assert_eq!(cmp(&asc, &row(-0.0), &row(0.0)), Ordering::Equal, "-0.0 ties with 0.0");
        let desc = key(FieldType::Double, false, false);
        assert_eq!(cmp(&desc, &row(1.0), &row(2.0)), Ordering::Greater);
    }

    #[test]
    fn null_placement_does_not_follow_the_direction() {
        let null = RowBuilder::new(1).null(0).build();
        let one = RowBuilder::new(1).long(0, 1).build();
        for ascending in [true, false] {
            assert_eq!(cmp(&key(FieldType::BigInt, ascending, true), &null, &one), Ordering::Greater);
            assert_eq!(cmp(&key(FieldType::BigInt, ascending, false), &null, &one), Ordering::Less);
            assert_eq!(cmp(&key(FieldType::BigInt, ascending, true), &null, &null), Ordering::Equal);
        }
    }

    #[test]
    fn a_rowtime_reads_its_slot_so_a_null_is_zero() {
        let null = RowBuilder::new(1).null(0).build();
        let row = |v: i64| RowBuilder::new(1).long(0, v).build();
        for nulls_last in [true, false] {
            let asc = key(FieldType::RowtimeMillis, true, nulls_last);
            assert_eq!(cmp(&asc, &null, &row(0)), Ordering::Equal);
            assert_eq!(cmp(&asc, &null, &row(-5)), Ordering::Greater);
            assert_eq!(cmp(&asc, &null, &row(5)), Ordering::Less);
        }
        assert_eq!(cmp(&key(FieldType::RowtimeMillis, false, true), &row(7), &row(5)), Ordering::Less);
    }

    #[test]
    fn strings_compare_by_unsigned_bytes_then_length() {
        let asc = key(FieldType::Bytes, true, false);
        let row = |v: &str| RowBuilder::new(1).bytes(0, v.as_bytes()).build();
        assert_eq!(cmp(&asc, &row("abc"), &row("abd")), Ordering::Less);
        assert_eq!(cmp(&asc, &row("ab"), &row("abc")), Ordering::Less);
        assert_eq!(cmp(&asc, &row("z"), &row("é")), Ordering::Less, "0x7a before 0xc3");
        assert_eq!(cmp(&asc, &row("a string of some length"), &row("a string of some length")), Ordering::Equal);
    }

    #[test]
    fn big_decimals_compare_by_value_across_byte_lengths() {
        assert_eq!(compare_big_endian(&[0x01, 0x00], &[0x7f]), Ordering::Greater);
        assert_eq!(compare_big_endian(&[0xff], &[0x00]), Ordering::Less);
        assert_eq!(compare_big_endian(&[0xff, 0x00], &[0xff]), Ordering::Less, "-256 < -1");
        assert_eq!(compare_big_endian(&[0x00, 0x05], &[0x05]), Ordering::Equal);
    }

    #[test]
    fn later_fields_break_ties() {
        let key = SortKey::new(
            vec![
                SortField { position: 0, field_type: FieldType::Int, ascending: true, nulls_last: false },
                SortField { position: 1, field_type: FieldType::BigInt, ascending: false, nulls_last: false },
            ],
            2,
        )
        .unwrap();
        let a = RowBuilder::new(2).int(0, 1).long(1, 5).build();
        let b = RowBuilder::new(2).int(0, 1).long(1, 9).build();
        let order = key.compare(&BinaryRow::new(&a, 2).unwrap(), &BinaryRow::new(&b, 2).unwrap()).unwrap();
        assert_eq!(order, Ordering::Greater, "descending second field");
    }
}
