//! The elements of an aggregate's `MapView` (MIN/MAX over retractions count their values in one,
//! a DISTINCT keeps its distinct arguments in one) as Flink's state holds them: the map key is the
//! value serialized by its internal serializer (`ExternalSerializer` of the internal type), so the
//! bytes here are those a `DataOutputView` gets from `IntSerializer`, `DoubleSerializer`,
//! `StringDataSerializer`, `DecimalDataSerializer` and the like; all big-endian.
//!
//! FLOAT and DOUBLE keys are `floatToIntBits` and `doubleToLongBits`, which fold every NaN into
//! one, so two NaNs are one element and -0.0 and 0.0 are two, as `Double.equals` has it.

use std::cmp::Ordering;

use super::functions::{Number, NumberType};
use crate::columnar::binary_row::BinaryRow;
use crate::columnar::sort_key::FieldType;
use crate::error::{NativeError, Result};

const CANONICAL_FLOAT_NAN: u32 = 0x7fc0_0000;
const CANONICAL_DOUBLE_NAN: u64 = 0x7ff8_0000_0000_0000;
/// The largest precision `DecimalData` keeps compact, as one long.
const MAX_COMPACT_PRECISION: u8 = 18;

/// How the elements of one view are read from the input rows and serialized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementType {
    pub field: FieldType,
    /// A DECIMAL's precision and scale.
    pub decimal: Option<(u8, u8)>,
}

impl ElementType {
    /// Appends the serialized element of field `pos` of `row`, which is not NULL.
    pub fn write(&self, row: &BinaryRow, pos: usize, out: &mut Vec<u8>) -> Result<()> {
        match self.field {
            FieldType::Boolean => out.push(row.get_bool(pos) as u8),
            FieldType::TinyInt => out.push(row.get_i8(pos) as u8),
            FieldType::SmallInt => out.extend_from_slice(&row.get_i16(pos).to_be_bytes()),
            FieldType::Int => out.extend_from_slice(&row.get_i32(pos).to_be_bytes()),
            FieldType::BigInt | FieldType::CompactDecimal | FieldType::CompactTimestamp => {
                out.extend_from_slice(&row.get_i64(pos).to_be_bytes())
            }
            FieldType::Float => out.extend_from_slice(&float_bits(row.get_f32(pos)).to_be_bytes()),
            FieldType::Double => out.extend_from_slice(&double_bits(row.get_f64(pos)).to_be_bytes()),
            FieldType::Decimal | FieldType::Bytes => {
                let bytes =
                    if self.field == FieldType::Bytes { row.get_bytes(pos)? } else { row.get_decimal_bytes(pos)? };
                out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
                out.extend_from_slice(bytes);
            }
            FieldType::Timestamp => {
                let (millis, nanos) = row.get_timestamp(pos)?;
                out.extend_from_slice(&millis.to_be_bytes());
                out.extend_from_slice(&nanos.to_be_bytes());
            }
            FieldType::RowtimeMillis => {
                return Err(NativeError::InvalidArgument("a row-time attribute is no aggregate argument".into()))
            }
        }
        Ok(())
    }

    /// The number type of the elements, for the views whose elements are numbers (MIN and MAX).
    pub fn number_type(&self) -> Option<NumberType> {
        NumberType::of(self.field, self.decimal)
    }

    /// The number a serialized element holds; fails for bytes that are not one element.
    pub fn read_number(&self, bytes: &[u8]) -> Result<Number> {
        let corrupt = || NativeError::CorruptState(format!("{} bytes are no {:?} element", bytes.len(), self.field));
        let fixed = |n: usize| -> Result<&[u8]> { (bytes.len() == n).then_some(bytes).ok_or_else(corrupt) };
        Ok(match self.field {
            FieldType::TinyInt => Number::Int(fixed(1)?[0] as i8 as i64),
            FieldType::SmallInt => Number::Int(i16::from_be_bytes(fixed(2)?.try_into().expect("2")) as i64),
            FieldType::Int => Number::Int(i32::from_be_bytes(fixed(4)?.try_into().expect("4")) as i64),
            FieldType::BigInt | FieldType::CompactTimestamp => {
                Number::Int(i64::from_be_bytes(fixed(8)?.try_into().expect("8")))
            }
            FieldType::Float => {
                Number::Float(f32::from_bits(u32::from_be_bytes(fixed(4)?.try_into().expect("4"))) as f64)
            }
            FieldType::Double => Number::Float(f64::from_bits(u64::from_be_bytes(fixed(8)?.try_into().expect("8")))),
            FieldType::CompactDecimal => Number::Decimal(i64::from_be_bytes(fixed(8)?.try_into().expect("8")) as i128),
            FieldType::Decimal => {
                let length = bytes.get(..4).ok_or_else(corrupt)?;
                let unscaled = &bytes[4..];
                if u32::from_be_bytes(length.try_into().expect("4")) as usize != unscaled.len()
                    || unscaled.is_empty()
                    || unscaled.len() > 16
                {
                    return Err(corrupt());
                }
                let fill = if unscaled[0] & 0x80 != 0 { 0xff } else { 0 };
                let mut full = [fill; 16];
                full[16 - unscaled.len()..].copy_from_slice(unscaled);
                Number::Decimal(i128::from_be_bytes(full))
            }
            FieldType::Bytes => {
                let length = bytes.get(..4).ok_or_else(corrupt)?;
                if u32::from_be_bytes(length.try_into().expect("4")) as usize != bytes.len() - 4 {
                    return Err(corrupt());
                }
                Number::Bytes(bytes[4..].into())
            }
            _ => return Err(NativeError::Internal(format!("{:?} elements are no numbers", self.field))),
        })
    }

    /// The serialized element of the number `value`, as [`write`](Self::write) serializes it.
    pub fn write_number(&self, value: &Number, out: &mut Vec<u8>) {
        match (self.field, value) {
            (FieldType::TinyInt, Number::Int(v)) => out.push(*v as i8 as u8),
            (FieldType::SmallInt, Number::Int(v)) => out.extend_from_slice(&(*v as i16).to_be_bytes()),
            (FieldType::Int, Number::Int(v)) => out.extend_from_slice(&(*v as i32).to_be_bytes()),
            (FieldType::BigInt | FieldType::CompactTimestamp, Number::Int(v)) => {
                out.extend_from_slice(&v.to_be_bytes())
            }
            (FieldType::Float, Number::Float(v)) => out.extend_from_slice(&float_bits(*v as f32).to_be_bytes()),
            (FieldType::Double, Number::Float(v)) => out.extend_from_slice(&double_bits(*v).to_be_bytes()),
            (FieldType::CompactDecimal, Number::Decimal(v)) => out.extend_from_slice(&(*v as i64).to_be_bytes()),
            (FieldType::Decimal, Number::Decimal(v)) => {
                let bytes = super::functions::unscaled_bytes(*v);
                out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
                out.extend_from_slice(&bytes);
            }
            (FieldType::Bytes, Number::Bytes(v)) => {
                out.extend_from_slice(&(v.len() as u32).to_be_bytes());
                out.extend_from_slice(v);
            }
            (field, value) => unreachable!("{value:?} is no {field:?} element"),
        }
    }

    /// Checks that a view over this type can hold its elements: a DECIMAL has its precision, and
    /// a decimal is compact exactly when its precision allows it.
    pub fn check(&self) -> Result<()> {
        let compact = match self.field {
            FieldType::CompactDecimal => true,
            FieldType::Decimal => false,
            FieldType::RowtimeMillis => {
                return Err(NativeError::InvalidArgument("a row-time attribute is no aggregate argument".into()))
            }
            _ => return Ok(()),
        };
        match self.decimal {
            Some((precision, _)) if (precision <= MAX_COMPACT_PRECISION) == compact => Ok(()),
            other => Err(NativeError::InvalidArgument(format!("a {:?} element of precision {other:?}", self.field))),
        }
    }
}

fn float_bits(v: f32) -> u32 {
    if v.is_nan() {
        CANONICAL_FLOAT_NAN
    } else {
        v.to_bits()
    }
}

fn double_bits(v: f64) -> u64 {
    if v.is_nan() {
        CANONICAL_DOUBLE_NAN
    } else {
        v.to_bits()
    }
}

/// Java's `compareTo` of the boxed numbers (`Double.compare` for floating point: -0.0 before 0.0,
/// every NaN equal and after everything; `BinaryStringData.compareTo` for strings: unsigned bytes,
/// then length), which MIN and MAX over retractions order by.
pub fn java_compare(a: &Number, b: &Number) -> Ordering {
    match (a, b) {
        (Number::Int(a), Number::Int(b)) => a.cmp(b),
        (Number::Decimal(a), Number::Decimal(b)) => a.cmp(b),
        (Number::Bytes(a), Number::Bytes(b)) => a.cmp(b),
        (Number::Float(a), Number::Float(b)) => {
            let canonical = |v: f64| if v.is_nan() { f64::NAN.abs() } else { v };
            canonical(*a).total_cmp(&canonical(*b))
        }
        _ => unreachable!("numbers of two kinds compared"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columnar::binary_row::tests::RowBuilder;

    fn element(field: FieldType, row: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        ElementType { field, decimal: None }.write(&BinaryRow::new(row, 1).unwrap(), 0, &mut out).unwrap();
        out
    }

    #[test]
    fn elements_are_the_internal_serializers_bytes() {
        assert_eq!(element(FieldType::Int, &RowBuilder::new(1).int(0, -2).build()), (-2i32).to_be_bytes());
        assert_eq!(element(FieldType::BigInt, &RowBuilder::new(1).long(0, 7).build()), 7i64.to_be_bytes());
        assert_eq!(
            element(FieldType::Bytes, &RowBuilder::new(1).bytes(0, "héllo wörld".as_bytes()).build()),
            [&13u32.to_be_bytes()[..], "héllo wörld".as_bytes()].concat(),
            "StringDataSerializer: the UTF-8 length, then the bytes"
        );
        let nan = element(FieldType::Double, &RowBuilder::new(1).double(0, -f64::NAN).build());
        assert_eq!(nan, CANONICAL_DOUBLE_NAN.to_be_bytes(), "doubleToLongBits folds NaNs");
        let negative_zero = element(FieldType::Double, &RowBuilder::new(1).double(0, -0.0).build());
        assert_ne!(negative_zero, element(FieldType::Double, &RowBuilder::new(1).double(0, 0.0).build()));
    }

    #[test]
    fn number_elements_read_back() {
        for (field, decimal, value) in [
            (FieldType::TinyInt, None, Number::Int(-5)),
            (FieldType::SmallInt, None, Number::Int(-300)),
            (FieldType::Int, None, Number::Int(i32::MIN as i64)),
            (FieldType::BigInt, None, Number::Int(i64::MAX)),
            (FieldType::Float, None, Number::Float(1.5)),
            (FieldType::Double, None, Number::Float(-0.0)),
            (FieldType::CompactDecimal, Some((10, 2)), Number::Decimal(-1234)),
            (FieldType::Decimal, Some((38, 0)), Number::Decimal(-(10i128.pow(37)))),
            (FieldType::CompactTimestamp, None, Number::Int(-86_400_000)),
            (FieldType::Bytes, None, Number::Bytes("héllo".as_bytes().into())),
        ] {
            let element_type = ElementType { field, decimal };
            let mut bytes = Vec::new();
            element_type.write_number(&value, &mut bytes);
            let back = element_type.read_number(&bytes).unwrap();
            assert_eq!(java_compare(&back, &value), Ordering::Equal, "{field:?}");
        }
        assert!(ElementType { field: FieldType::Int, decimal: None }.read_number(&[1, 2]).is_err());
    }

    #[test]
    fn java_compare_orders_floats_totally() {
        let f = Number::Float;
        assert_eq!(java_compare(&f(-0.0), &f(0.0)), Ordering::Less);
        assert_eq!(java_compare(&f(f64::NAN), &f(f64::INFINITY)), Ordering::Greater);
        assert_eq!(java_compare(&f(-f64::NAN), &f(f64::NAN)), Ordering::Equal);
        assert_eq!(java_compare(&Number::Int(-1), &Number::Int(1)), Ordering::Less);
        let s = |v: &[u8]| Number::Bytes(v.into());
        assert_eq!(java_compare(&s(b"ab"), &s(b"abc")), Ordering::Less, "a prefix first");
        assert_eq!(java_compare(&s(b"\xc3\xa9"), &s(b"z")), Ordering::Greater, "unsigned bytes");
    }
}
