//! The arithmetic of Flink's declarative aggregate functions (`Count1AggFunction`,
//! `CountAggFunction`, `SumAggFunction`, `SumWithRetractAggFunction`, `Sum0AggFunction`,
//! `AvgAggFunction`, `MaxAggFunction`, `MinAggFunction`) as the planner generates it for numbers:
//!
//! - integer sums wrap at the width of their type, as Java's `(byte) (a + b)` does;
//! - FLOAT adds in single precision, DOUBLE in double precision;
//! - AVG keeps a BIGINT (integers) or DOUBLE (FLOAT, DOUBLE) sum and a count, and divides as Java
//!   does: integer division truncates, and the quotient is narrowed to the argument's type;
//! - MAX and MIN replace their value only by a strictly greater (smaller) one, with Java's `>`
//!   and `<`: a NaN never replaces and is never replaced once kept, and -0.0 and 0.0 do not
//!   replace each other;
//! - a NULL argument changes nothing; a FILTER that is not TRUE skips the row;
//! - a DECIMAL(p, s) sums as DECIMAL(38, s) (`aggDecimalPlus`): a sum that needs more than 38
//!   digits is NULL, and the next value starts the sum again (`$SUM0` and AVG stay NULL); AVG
//!   divides into DECIMAL(38, max(6, s)) as [`decimal_divide`](super::decimal_divide) does.

use super::decimal_divide;
use super::extremes::Extreme;
use super::value_rows::AccumulatorField;
use crate::columnar::binary_row::BinaryRow;
use crate::columnar::sort_key::FieldType;
use crate::error::{NativeError, Result};

/// A value as the generated code holds it: integers of every width as `i64`, already wrapped to
/// their width, FLOAT and DOUBLE as `f64`, and the bytes of a string (which only MIN and MAX
/// keep). Equality is Java's `==` on primitives and byte equality on strings, which is what
/// Flink's generated equaliser compares aggregate values with.
#[derive(Clone, Debug, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
    /// A DECIMAL's unscaled value; its type gives the scale.
    Decimal(i128),
    /// A CHAR or VARCHAR value's UTF-8 bytes.
    Bytes(Box<[u8]>),
}

/// The precision of DECIMAL sums (`LogicalTypeMerging.findSumAggType`).
pub const SUM_DECIMAL_PRECISION: u8 = 38;
/// The largest precision `BinaryRowData` keeps in the fixed slot (`DecimalData.isCompact`).
const MAX_COMPACT_PRECISION: u8 = 18;

/// A number type an aggregate reads, keeps or emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberType {
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Float,
    Double,
    Decimal {
        precision: u8,
        scale: u8,
    },
    /// CHAR and VARCHAR, for MIN and MAX: ordered by their unsigned bytes, then by length, as
    /// `BinaryStringData.compareTo` orders them.
    Bytes,
}

impl NumberType {
    /// The number type stored as `field`, if it is one; a DECIMAL's precision and scale are
    /// `decimal`'s.
    pub fn of(field: FieldType, decimal: Option<(u8, u8)>) -> Option<NumberType> {
        match field {
            FieldType::CompactDecimal | FieldType::Decimal => {
                decimal.map(|(precision, scale)| NumberType::Decimal { precision, scale })
            }
            FieldType::TinyInt => Some(NumberType::TinyInt),
            FieldType::SmallInt => Some(NumberType::SmallInt),
            // DATE and TIME are INT fields, and a TIMESTAMP of precision up to 3 is its epoch
            // milliseconds in the fixed slot, ordered as a long: MIN and MAX of them are MIN and
            // MAX of those numbers.
            FieldType::Int => Some(NumberType::Int),
            FieldType::BigInt | FieldType::CompactTimestamp => Some(NumberType::BigInt),
            FieldType::Float => Some(NumberType::Float),
            FieldType::Double => Some(NumberType::Double),
            FieldType::Bytes => Some(NumberType::Bytes),
            _ => None,
        }
    }

    fn is_floating(self) -> bool {
        matches!(self, NumberType::Float | NumberType::Double)
    }

    fn zero(self) -> Number {
        match self {
            NumberType::Float | NumberType::Double => Number::Float(0.0),
            NumberType::Decimal { .. } => Number::Decimal(0),
            _ => Number::Int(0),
        }
    }

    /// Whether a value of this type lives in the variable-length part of a row (a DECIMAL too
    /// precise for the fixed slot).
    pub fn is_variable(self) -> bool {
        matches!(self, NumberType::Decimal { precision, .. } if precision > MAX_COMPACT_PRECISION)
    }

    /// The type of a SUM of this type.
    fn sum_type(self) -> NumberType {
        match self {
            NumberType::Decimal { scale, .. } => NumberType::Decimal { precision: SUM_DECIMAL_PRECISION, scale },
            other => other,
        }
    }

    /// The field at `pos` of `row`, or none if it is NULL.
    pub fn read(self, row: &BinaryRow, pos: usize) -> Result<Option<Number>> {
        if row.is_null_at(pos) {
            return Ok(None);
        }
        Ok(Some(match self {
            NumberType::TinyInt => Number::Int(row.get_i8(pos) as i64),
            NumberType::SmallInt => Number::Int(row.get_i16(pos) as i64),
            NumberType::Int => Number::Int(row.get_i32(pos) as i64),
            NumberType::BigInt => Number::Int(row.get_i64(pos)),
            NumberType::Float => Number::Float(row.get_f32(pos) as f64),
            NumberType::Double => Number::Float(row.get_f64(pos)),
            NumberType::Decimal { .. } if !self.is_variable() => Number::Decimal(row.get_i64(pos) as i128),
            NumberType::Decimal { .. } => Number::Decimal(unscaled(row.get_decimal_bytes(pos)?, pos)?),
            NumberType::Bytes => Number::Bytes(row.get_bytes(pos)?.into()),
        }))
    }

    /// The fixed slot of `value`, as `BinaryRowWriter` writes it: the value in its low bytes.
    pub fn slot(self, value: &Number) -> u64 {
        match (self, value) {
            (NumberType::TinyInt, Number::Int(v)) => *v as u8 as u64,
            (NumberType::SmallInt, Number::Int(v)) => *v as u16 as u64,
            (NumberType::Int, Number::Int(v)) => *v as u32 as u64,
            (NumberType::BigInt, Number::Int(v)) => *v as u64,
            (NumberType::Float, Number::Float(v)) => (*v as f32).to_bits() as u64,
            (NumberType::Double, Number::Float(v)) => v.to_bits(),
            (NumberType::Decimal { .. }, Number::Decimal(v)) if !self.is_variable() => *v as i64 as u64,
            (t, v) => unreachable!("{v:?} is not a {t:?} in the fixed slot"),
        }
    }

    /// Narrows an integer to this type's width, as a Java cast does.
    fn wrap(self, v: i64) -> i64 {
        match self {
            NumberType::TinyInt => v as i8 as i64,
            NumberType::SmallInt => v as i16 as i64,
            NumberType::Int => v as i32 as i64,
            _ => v,
        }
    }

    /// `a + b` computed in this type; none for a DECIMAL that needs more digits than it has.
    fn plus(self, a: Number, b: Number) -> Option<Number> {
        match (a, b) {
            (Number::Int(a), Number::Int(b)) => Some(Number::Int(self.wrap(a.wrapping_add(b)))),
            (Number::Float(a), Number::Float(b)) if self == NumberType::Float => {
                Some(Number::Float((a as f32 + b as f32) as f64))
            }
            (Number::Float(a), Number::Float(b)) => Some(Number::Float(a + b)),
            (Number::Decimal(a), Number::Decimal(b)) => {
                let NumberType::Decimal { precision, .. } = self else { unreachable!("a decimal sum of {self:?}") };
                a.checked_add(b).filter(|sum| sum.unsigned_abs() < 10u128.pow(precision as u32)).map(Number::Decimal)
            }
            _ => unreachable!("a sum of numbers of two kinds"),
        }
    }

    /// `a - b` computed in this type, as [`plus`](Self::plus).
    fn minus(self, a: Number, b: Number) -> Option<Number> {
        let negated = match b {
            Number::Int(b) => Number::Int(b.wrapping_neg()),
            Number::Float(b) => Number::Float(-b),
            Number::Decimal(b) => Number::Decimal(-b),
            Number::Bytes(_) => unreachable!("a string subtracted"),
        };
        self.plus(a, negated)
    }
}

/// The functions the kernel computes; the codes are the ordinals of Java's `AggregateFunction`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    /// `COUNT(*)`, and the row count the planner adds to an aggregation of retractions.
    CountStar,
    Count,
    /// SUM of insert-only input.
    Sum,
    /// SUM of input with retractions: a sum and a count of non-NULL arguments.
    SumWithRetract,
    /// `$SUM0`, a SUM that starts at 0 (the planner's rewrite of COUNT in two-level aggregation).
    Sum0,
    Avg,
    Max,
    Min,
    /// MAX of input with retractions: the extreme and a count of its values in an element table
    /// ([`extremes`](super::extremes)).
    MaxWithRetract,
    /// MIN of input with retractions, as `MaxWithRetract`.
    MinWithRetract,
}

impl Function {
    /// The names of the codes, in order, as the ABI descriptor lists them.
    pub const NAMES: [&'static str; 10] = [
        "count-star",
        "count",
        "sum",
        "sum-with-retract",
        "sum0",
        "avg",
        "max",
        "min",
        "max-with-retract",
        "min-with-retract",
    ];

    pub fn from_code(code: i32) -> Result<Function> {
        const FUNCTIONS: [Function; 10] = [
            Function::CountStar,
            Function::Count,
            Function::Sum,
            Function::SumWithRetract,
            Function::Sum0,
            Function::Avg,
            Function::Max,
            Function::Min,
            Function::MaxWithRetract,
            Function::MinWithRetract,
        ];
        usize::try_from(code)
            .ok()
            .and_then(|i| FUNCTIONS.get(i).copied())
            .ok_or_else(|| NativeError::InvalidArgument(format!("no aggregate function has code {code}")))
    }

    fn retracts(self) -> bool {
        !matches!(self, Function::Sum | Function::Max | Function::Min)
    }

    /// The extreme a MIN or MAX over retractions keeps; none for the other functions.
    pub fn extreme(self) -> Option<Extreme> {
        match self {
            Function::MaxWithRetract => Some(Extreme::Max),
            Function::MinWithRetract => Some(Extreme::Min),
            _ => None,
        }
    }
}

/// A DECIMAL's unscaled value from `BigInteger.toByteArray`'s bytes (big-endian two's complement).
fn unscaled(bytes: &[u8], pos: usize) -> Result<i128> {
    if bytes.is_empty() || bytes.len() > 16 {
        return Err(NativeError::CorruptRow(format!("field {pos} holds a decimal of {} bytes", bytes.len())));
    }
    let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut full = [fill; 16];
    full[16 - bytes.len()..].copy_from_slice(bytes);
    Ok(i128::from_be_bytes(full))
}

/// The bytes `BigInteger.toByteArray` gives for `value`: the fewest big-endian two's-complement
/// bytes that keep its sign.
pub fn unscaled_bytes(value: i128) -> Vec<u8> {
    let bytes = value.to_be_bytes();
    let fill = if value < 0 { 0xff } else { 0 };
    let mut start = 0;
    while start < 15 && bytes[start] == fill && (bytes[start + 1] & 0x80 != 0) == (value < 0) {
        start += 1;
    }
    bytes[start..].to_vec()
}

/// One aggregate call of a GROUP BY: its function, argument and FILTER field.
#[derive(Clone, Copy, Debug)]
pub struct AggregateCall {
    pub function: Function,
    /// The argument's position in the input rows and its type; none for `COUNT(*)`.
    pub argument: Option<(usize, FieldType)>,
    /// The position of the BOOLEAN field that FILTERs the call, if it has one.
    pub filter: Option<usize>,
    /// A DECIMAL argument's precision and scale.
    pub decimal: Option<(u8, u8)>,
    /// The element table the call keeps: a MIN or MAX over retractions counts its values in it,
    /// a DISTINCT call shares it with the other DISTINCT calls of its argument.
    pub table: Option<usize>,
}

impl AggregateCall {
    /// The argument's number type; fails for a function of numbers over anything else.
    fn number_type(&self) -> Result<NumberType> {
        let (_, field) = self.argument.ok_or_else(|| {
            NativeError::InvalidArgument(format!("aggregate function {:?} needs an argument", self.function))
        })?;
        NumberType::of(field, self.decimal).ok_or_else(|| {
            NativeError::InvalidArgument(format!("aggregate function {:?} over {field:?} fields", self.function))
        })
    }

    /// The accumulator fields the call keeps, in order.
    pub fn accumulator_fields(&self) -> Result<Vec<AccumulatorField>> {
        let number = AccumulatorField::Number;
        Ok(match self.function {
            Function::CountStar | Function::Count => vec![number(NumberType::BigInt)],
            Function::Sum | Function::Sum0 => vec![number(self.number_type()?.sum_type())],
            Function::Max | Function::Min => vec![number(self.number_type()?)],
            Function::SumWithRetract => vec![number(self.number_type()?.sum_type()), number(NumberType::BigInt)],
            Function::Avg => vec![number(self.avg_sum_type()?), number(NumberType::BigInt)],
            Function::MaxWithRetract | Function::MinWithRetract => vec![AccumulatorField::Extreme(self.number_type()?)],
        })
    }

    /// The types of the number slots the call's accumulator fields hold, in order (an extreme's
    /// nested row holds two: the extreme and its `mapSize`).
    pub fn accumulator_types(&self) -> Result<Vec<NumberType>> {
        Ok(self.accumulator_fields()?.iter().flat_map(AccumulatorField::slot_types).collect())
    }

    /// The type of an AVG's sum: BIGINT for integers, DOUBLE for FLOAT and DOUBLE, DECIMAL(38, s)
    /// for a DECIMAL(p, s).
    fn avg_sum_type(&self) -> Result<NumberType> {
        Ok(match self.number_type()? {
            t @ NumberType::Decimal { .. } => t.sum_type(),
            t if t.is_floating() => NumberType::Double,
            _ => NumberType::BigInt,
        })
    }

    /// The type of the call's value.
    pub fn value_type(&self) -> Result<NumberType> {
        match self.function {
            Function::CountStar | Function::Count => Ok(NumberType::BigInt),
            Function::Sum | Function::SumWithRetract | Function::Sum0 => Ok(self.number_type()?.sum_type()),
            Function::Avg => Ok(match self.number_type()? {
                NumberType::Decimal { scale, .. } => {
                    NumberType::Decimal { precision: SUM_DECIMAL_PRECISION, scale: decimal_divide::avg_scale(scale) }
                }
                other => other,
            }),
            _ => self.number_type(),
        }
    }

    /// Writes the call's initial accumulator into `acc`.
    pub fn initialize(&self, acc: &mut [Option<Number>]) {
        let zero = Some(Number::Int(0));
        match self.function {
            Function::CountStar | Function::Count => acc[0] = zero,
            Function::Sum | Function::Max | Function::Min => acc[0] = None,
            Function::MaxWithRetract | Function::MinWithRetract => {
                acc[0] = None;
                acc[1] = zero;
            }
            Function::SumWithRetract => {
                acc[0] = None;
                acc[1] = zero;
            }
            Function::Sum0 => acc[0] = Some(self.number_type().expect("a checked call").sum_type().zero()),
            Function::Avg => {
                acc[0] = Some(self.avg_sum_type().expect("a checked call").zero());
                acc[1] = zero;
            }
        }
    }

    /// Accumulates (or, with `retract`, retracts) `row` into the call's accumulator `acc`, with
    /// the accumulator field types `types`.
    pub fn update(
        &self,
        acc: &mut [Option<Number>],
        types: &[NumberType],
        row: &BinaryRow,
        retract: bool,
    ) -> Result<()> {
        if self.function.extreme().is_some() {
            return Err(NativeError::Internal(format!("{:?} updates through its element table", self.function)));
        }
        if retract && !self.function.retracts() {
            return Err(NativeError::InvalidArgument(format!(
                "aggregate function {:?} got a retraction, but its input was planned as insert-only",
                self.function
            )));
        }
        // A FILTER field is `... IS TRUE`, never NULL; a NULL slot reads as false, as in Java.
        if self.filter.is_some_and(|f| !row.get_bool(f)) {
            return Ok(());
        }
        let step = if retract { -1 } else { 1 };
        let argument = match self.argument {
            None => None,
            Some((position, _)) if row.is_null_at(position) => return Ok(()),
            // A COUNT only asks whether its argument is NULL.
            Some(_) if self.function == Function::Count => None,
            Some((position, field)) => match NumberType::of(field, self.decimal) {
                Some(number) => number.read(row, position)?,
                None => None,
            },
        };
        let count = |slot: &mut Option<Number>| {
            if let Some(Number::Int(n)) = slot {
                *n = n.wrapping_add(step);
            }
        };
        match self.function {
            Function::CountStar | Function::Count => count(&mut acc[0]),
            Function::Sum => acc[0] = sum_in(types[0], acc[0].take(), argument.expect("a number"), false),
            Function::SumWithRetract => {
                acc[0] = sum_in(types[0], acc[0].take(), argument.expect("a number"), retract);
                count(&mut acc[1]);
            }
            Function::Sum0 | Function::Avg => {
                let x = argument.expect("a number");
                acc[0] =
                    acc[0].take().and_then(|sum| if retract { types[0].minus(sum, x) } else { types[0].plus(sum, x) });
                if self.function == Function::Avg {
                    count(&mut acc[1]);
                }
            }
            Function::MaxWithRetract | Function::MinWithRetract => unreachable!("refused above"),
            Function::Max | Function::Min => {
                let x = argument.expect("a number");
                let replaces = match &acc[0] {
                    None => true,
                    Some(kept) => {
                        if self.function == Function::Max {
                            greater(&x, kept)
                        } else {
                            greater(kept, &x)
                        }
                    }
                };
                if replaces {
                    acc[0] = Some(x);
                }
            }
        }
        Ok(())
    }

    /// Merges `other`, another accumulator of this call (a local aggregation's), into `acc`, as
    /// the functions' merge expressions do: counts add, a sum takes the other's where it has none
    /// and adds otherwise (`$SUM0` and AVG sums add, NULL if either is), MIN and MAX keep the
    /// smaller or greater by Java's `<` and `>`.
    pub fn merge(&self, acc: &mut [Option<Number>], types: &[NumberType], other: &[Option<Number>]) {
        let add = |t: NumberType, a: Option<Number>, b: &Option<Number>| match (a, b) {
            (Some(a), Some(b)) => t.plus(a, b.clone()),
            _ => None,
        };
        match self.function {
            Function::CountStar | Function::Count => acc[0] = add(types[0], acc[0].take(), &other[0]),
            Function::Sum | Function::SumWithRetract => {
                acc[0] = match (acc[0].take(), &other[0]) {
                    (ours, None) => ours,
                    (None, theirs) => theirs.clone(),
                    (Some(ours), Some(theirs)) => types[0].plus(ours, theirs.clone()),
                };
                if self.function == Function::SumWithRetract {
                    acc[1] = add(types[1], acc[1].take(), &other[1]);
                }
            }
            Function::Sum0 => acc[0] = add(types[0], acc[0].take(), &other[0]),
            Function::Avg => {
                acc[0] = add(types[0], acc[0].take(), &other[0]);
                acc[1] = add(types[1], acc[1].take(), &other[1]);
            }
            Function::MaxWithRetract | Function::MinWithRetract => {
                unreachable!("an aggregation with element tables merges no accumulators")
            }
            Function::Max | Function::Min => {
                if let Some(theirs) = &other[0] {
                    let replaces = match &acc[0] {
                        None => true,
                        Some(ours) if self.function == Function::Max => greater(theirs, ours),
                        Some(ours) => greater(ours, theirs),
                    };
                    if replaces {
                        acc[0] = Some(theirs.clone());
                    }
                }
            }
        }
    }

    /// The call's value for the accumulator `acc`.
    pub fn value(&self, acc: &[Option<Number>]) -> Result<Option<Number>> {
        let no_rows = acc.get(1).is_some_and(|count| *count == Some(Number::Int(0)));
        Ok(match self.function {
            Function::MaxWithRetract | Function::MinWithRetract => Extreme::value(acc),
            Function::SumWithRetract if no_rows => None,
            Function::Avg if no_rows => None,
            Function::Avg => match (acc[0].clone(), acc[1].clone()) {
                (Some(Number::Int(sum)), Some(Number::Int(count))) => {
                    Some(Number::Int(self.value_type()?.wrap(sum.wrapping_div(count))))
                }
                (Some(Number::Float(sum)), Some(Number::Int(count))) => {
                    let quotient = sum / count as f64;
                    Some(Number::Float(if self.value_type()? == NumberType::Float {
                        quotient as f32 as f64
                    } else {
                        quotient
                    }))
                }
                (Some(Number::Decimal(sum)), Some(Number::Int(count))) => {
                    let (NumberType::Decimal { scale, .. }, NumberType::Decimal { scale: to, .. }) =
                        (self.avg_sum_type()?, self.value_type()?)
                    else {
                        unreachable!("a decimal average of {self:?}")
                    };
                    decimal_divide::divide(sum, scale, count, to).map(Number::Decimal)
                }
                _ => None,
            },
            _ => acc[0].clone(),
        })
    }
}

/// A SUM's next value: the argument if there was no sum yet (negated for a retraction), else the
/// sum plus (minus) it.
fn sum_in(sum_type: NumberType, sum: Option<Number>, x: Number, retract: bool) -> Option<Number> {
    match (sum, retract) {
        (None, false) => Some(x),
        (None, true) => sum_type.minus(sum_type.zero(), x),
        (Some(sum), false) => sum_type.plus(sum, x),
        (Some(sum), true) => sum_type.minus(sum, x),
    }
}

/// Java's `a > b` on two numbers of one type; for strings `BinaryStringData.compareTo`'s order
/// (unsigned bytes, then length), which is a byte slice's.
fn greater(a: &Number, b: &Number) -> bool {
    match (a, b) {
        (Number::Int(a), Number::Int(b)) => a > b,
        (Number::Float(a), Number::Float(b)) => a > b,
        (Number::Decimal(a), Number::Decimal(b)) => a > b,
        (Number::Bytes(a), Number::Bytes(b)) => a > b,
        _ => unreachable!("numbers of two kinds compared"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columnar::binary_row::tests::RowBuilder;

    fn call(function: Function, field: FieldType) -> AggregateCall {
        AggregateCall { function, argument: Some((0, field)), filter: None, decimal: None, table: None }
    }

    fn run(call: &AggregateCall, inputs: &[(Vec<u8>, bool)]) -> Option<Number> {
        let types = call.accumulator_types().unwrap();
        let mut acc = vec![None; types.len()];
        call.initialize(&mut acc);
        for (bytes, retract) in inputs {
            call.update(&mut acc, &types, &BinaryRow::new(bytes, 2).unwrap(), *retract).unwrap();
        }
        call.value(&acc).unwrap()
    }

    fn long(v: i64) -> (Vec<u8>, bool) {
        (RowBuilder::new(2).long(0, v).build(), false)
    }

    fn double(v: f64) -> (Vec<u8>, bool) {
        (RowBuilder::new(2).double(0, v).build(), false)
    }

    fn retract((row, _): (Vec<u8>, bool)) -> (Vec<u8>, bool) {
        (row, true)
    }

    #[test]
    fn a_tinyint_sum_wraps_at_eight_bits() {
        let row = |v: i8| (RowBuilder::new(2).int(0, v as i32).build(), false);
        assert_eq!(run(&call(Function::Sum, FieldType::TinyInt), &[row(100), row(100)]), Some(Number::Int(-56)));
    }

    #[test]
    fn integer_avg_truncates_towards_zero() {
        let avg = call(Function::Avg, FieldType::BigInt);
        assert_eq!(run(&avg, &[long(-7), long(0)]), Some(Number::Int(-3)));
        assert_eq!(run(&avg, &[long(7), retract(long(7))]), None, "no rows left");
    }

    #[test]
    fn a_retracted_first_value_is_negated_and_a_sum_of_no_rows_is_null() {
        let sum = call(Function::SumWithRetract, FieldType::BigInt);
        assert_eq!(run(&sum, &[retract(long(5))]), Some(Number::Int(-5)), "a count of -1 is not 0");
        assert_eq!(run(&sum, &[long(5), retract(long(5))]), None, "no rows left");
        assert_eq!(run(&sum, &[retract(long(5)), long(5), long(2)]), Some(Number::Int(2)));
    }

    #[test]
    fn max_keeps_a_nan_and_the_first_of_equal_zeros() {
        let max = call(Function::Max, FieldType::Double);
        let kept = run(&max, &[double(f64::NAN), double(5.0)]).unwrap();
        assert!(matches!(kept, Number::Float(v) if v.is_nan()));
        let Some(Number::Float(zero)) = run(&max, &[double(-0.0), double(0.0)]) else { panic!() };
        assert!(zero.is_sign_negative());
        assert_eq!(run(&max, &[double(1.0), double(f64::NAN)]), Some(Number::Float(1.0)));
    }

    #[test]
    fn max_and_min_of_strings_order_by_unsigned_bytes_then_length() {
        let text = |v: &str| (RowBuilder::new(2).bytes(0, v.as_bytes()).build(), false);
        let max = call(Function::Max, FieldType::Bytes);
        let inputs = [text("b"), text("ab"), text("é"), text("bb"), text("b")];
        assert_eq!(run(&max, &inputs), Some(Number::Bytes("é".as_bytes().into())), "0xc3 sorts after ASCII");
        let min = call(Function::Min, FieldType::Bytes);
        let inputs = [text("b"), text("ab"), text("abc"), text("b")];
        assert_eq!(run(&min, &inputs), Some(Number::Bytes(b"ab".as_slice().into())), "a prefix sorts first");
    }

    #[test]
    fn nulls_change_nothing_and_filters_skip_rows() {
        let null = (RowBuilder::new(2).null(0).build(), false);
        assert_eq!(run(&call(Function::Count, FieldType::BigInt), &[null.clone(), long(3)]), Some(Number::Int(1)));
        assert_eq!(run(&call(Function::Sum, FieldType::BigInt), std::slice::from_ref(&null)), None);
        let filtered = AggregateCall {
            function: Function::CountStar,
            argument: None,
            filter: Some(1),
            decimal: None,
            table: None,
        };
        let passes = (RowBuilder::new(2).long(0, 1).int(1, 1).build(), false);
        assert_eq!(run(&filtered, &[long(1), passes]), Some(Number::Int(1)));
    }

    #[test]
    fn a_retraction_into_an_insert_only_sum_is_an_error() {
        let sum = call(Function::Sum, FieldType::BigInt);
        let types = sum.accumulator_types().unwrap();
        let mut acc = vec![None];
        let (row, _) = long(1);
        assert!(sum.update(&mut acc, &types, &BinaryRow::new(&row, 2).unwrap(), true).is_err());
    }

    #[test]
    fn merging_adds_counts_and_sums_and_keeps_extremes() {
        let merged = |call: &AggregateCall, ours: &[Option<Number>], theirs: &[Option<Number>]| {
            let mut acc = ours.to_vec();
            call.merge(&mut acc, &call.accumulator_types().unwrap(), theirs);
            acc
        };
        let int = |v: i64| Some(Number::Int(v));
        let sum = call(Function::SumWithRetract, FieldType::TinyInt);
        assert_eq!(merged(&sum, &[int(100), int(1)], &[int(100), int(2)]), vec![int(-56), int(3)]);
        assert_eq!(merged(&sum, &[None, int(0)], &[int(4), int(1)]), vec![int(4), int(1)]);
        assert_eq!(merged(&sum, &[int(4), int(1)], &[None, int(0)]), vec![int(4), int(1)]);
        let max = call(Function::Max, FieldType::BigInt);
        assert_eq!(merged(&max, &[int(3)], &[int(9)]), vec![int(9)]);
        assert_eq!(merged(&max, &[int(3)], &[None]), vec![int(3)]);
        let min = call(Function::Min, FieldType::BigInt);
        assert_eq!(merged(&min, &[None], &[int(9)]), vec![int(9)]);
        let avg = call(Function::Avg, FieldType::Int);
        assert_eq!(merged(&avg, &[int(5), int(2)], &[int(-1), int(1)]), vec![int(4), int(3)]);
    }

    #[test]
    fn a_decimal_sum_past_38_digits_is_null_and_the_next_value_starts_again() {
        let sum = AggregateCall {
            function: Function::Sum,
            argument: Some((0, FieldType::Decimal)),
            filter: None,
            decimal: Some((38, 0)),
            table: None,
        };
        let types = sum.accumulator_types().unwrap();
        assert_eq!(types, vec![NumberType::Decimal { precision: 38, scale: 0 }]);
        let nines = 10i128.pow(38) - 1;
        let mut acc = vec![Some(Number::Decimal(nines))];
        let mut row = Vec::new();
        crate::columnar::group_agg::value_rows::write_numbers(
            &mut row,
            &[types[0], types[0]],
            &[Some(Number::Decimal(1)), None],
        );
        sum.update(&mut acc, &types, &BinaryRow::new(&row, 2).unwrap(), false).unwrap();
        assert_eq!(acc, vec![None], "10^38 has 39 digits");
        sum.update(&mut acc, &types, &BinaryRow::new(&row, 2).unwrap(), false).unwrap();
        assert_eq!(acc, vec![Some(Number::Decimal(1))], "a NULL sum takes the next value");
    }

    #[test]
    fn a_decimal_avg_sums_at_its_scale_and_divides_into_scale_six() {
        let avg = AggregateCall {
            function: Function::Avg,
            argument: Some((0, FieldType::CompactDecimal)),
            filter: None,
            decimal: Some((10, 2)),
            table: None,
        };
        let sum_type = NumberType::Decimal { precision: 38, scale: 2 };
        assert_eq!(avg.accumulator_types().unwrap(), vec![sum_type, NumberType::BigInt]);
        assert_eq!(avg.value_type().unwrap(), NumberType::Decimal { precision: 38, scale: 6 });
        let row = |v: i64| (RowBuilder::new(2).long(0, v).build(), false);
        // (1.00 + 0.50 + 0.01) / 3 = 0.503333...
        assert_eq!(run(&avg, &[row(100), row(50), row(1)]), Some(Number::Decimal(503_333)));
        assert_eq!(run(&avg, &[row(100), retract(row(100))]), None, "no rows left");
    }

    #[test]
    fn float_sums_add_in_single_precision() {
        let row = |v: f32| (RowBuilder::new(2).int(0, v.to_bits() as i32).build(), false);
        let sum = run(&call(Function::Sum, FieldType::Float), &[row(16_777_216.0), row(1.0)]);
        assert_eq!(sum, Some(Number::Float(16_777_216.0)), "2^24 + 1 rounds back in f32");
        let avg = run(&call(Function::Avg, FieldType::Float), &[row(16_777_216.0), row(1.0)]);
        assert_eq!(avg, Some(Number::Float((16_777_217.0f64 / 2.0) as f32 as f64)), "AVG sums in f64");
    }
}
