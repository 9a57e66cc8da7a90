//! The division that ends an AVG over DECIMAL, as Flink's generated code computes it.
//!
//! `AvgAggFunction.DecimalAvgAggFunction` keeps a DECIMAL(38, s) sum and a BIGINT count, and its
//! value is `CAST(sum / count AS DECIMAL(38, max(6, s)))`. The planner types the division as
//! DECIMAL(38, max(6, s)) too (`LogicalTypeMerging.findDivisionDecimalType` with the count as
//! DECIMAL(19, 0)), so the cast changes nothing, and the quotient is `DecimalDataUtils.divide`:
//! `BigDecimal.divide` with `MathContext(38, HALF_UP)`, then `DecimalData.fromBigDecimal`, which
//! rounds HALF_UP again to the scale and gives NULL to a value of more than 38 digits. The two
//! roundings are kept as two: rounding once to the scale can differ when the first one carries.

/// The largest number of digits a DECIMAL holds, and the precision of the division.
const PRECISION: u32 = 38;

/// The scale of an AVG over DECIMAL(p, `scale`) (`LogicalTypeMerging.findAvgAggType`).
pub fn avg_scale(scale: u8) -> u8 {
    scale.max(6)
}

/// `sum / count` as DECIMAL(38, `result_scale`), where `sum` is the unscaled value of a DECIMAL
/// of scale `scale`; none for a count of 0 or a quotient of more than 38 digits.
pub fn divide(sum: i128, scale: u8, count: i64, result_scale: u8) -> Option<i128> {
    if count == 0 {
        return None;
    }
    let negative = (sum < 0) != (count < 0);
    let (mantissa, exponent) = quotient_digits(sum.unsigned_abs(), count.unsigned_abs() as u128);
    // The quotient is `mantissa * 10^-(exponent + scale)`; round it to `result_scale`.
    let fraction_digits = exponent + i32::from(scale);
    let unscaled = rescale(mantissa, fraction_digits, i32::from(result_scale))?;
    let limit = 10u128.pow(PRECISION);
    (unscaled < limit).then(|| if negative { -(unscaled as i128) } else { unscaled as i128 })
}

/// `dividend / divisor` rounded HALF_UP to 38 significant digits, as `(mantissa, e)` with the
/// quotient `mantissa * 10^-e`.
fn quotient_digits(dividend: u128, divisor: u128) -> (u128, i32) {
    let full = 10u128.pow(PRECISION - 1);
    let mut mantissa = dividend / divisor;
    let mut remainder = dividend % divisor;
    let mut exponent = 0;
    // Long division: one more digit of the quotient per step, while it has fewer than 38 and is
    // not exact (a remainder below the divisor times 10 fits: the divisor is at most 2^63).
    while mantissa < full && remainder != 0 {
        let shifted = remainder * 10;
        mantissa = mantissa * 10 + shifted / divisor;
        remainder = shifted % divisor;
        exponent += 1;
    }
    // HALF_UP looks at the first digit dropped only.
    if remainder != 0 && (remainder * 10) / divisor >= 5 {
        mantissa += 1;
        if mantissa == full * 10 {
            mantissa = full;
            exponent -= 1;
        }
    }
    (mantissa, exponent)
}

/// `mantissa * 10^-from` as an unscaled value of scale `to`, rounded HALF_UP; none if it does not
/// fit in 128 bits.
fn rescale(mantissa: u128, from: i32, to: i32) -> Option<u128> {
    if from <= to {
        let shift = u32::try_from(to - from).ok()?;
        return 10u128.checked_pow(shift).and_then(|factor| mantissa.checked_mul(factor));
    }
    let dropped = (from - to) as u32;
    if dropped > PRECISION {
        // The mantissa has at most 38 digits, so its first dropped digit is 0.
        return Some(0);
    }
    let unit = 10u128.pow(dropped);
    let (kept, rest) = (mantissa / unit, mantissa % unit);
    Some(if rest * 2 >= unit { kept + 1 } else { kept })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_average_takes_six_fraction_digits_rounded_half_up() {
        // 2.00 / 3 = 0.666666..., 1.00 / 8 = 0.125, -1.00 / 3 = -0.333333
        assert_eq!(divide(200, 2, 3, 6), Some(666_667));
        assert_eq!(divide(100, 2, 8, 6), Some(125_000));
        assert_eq!(divide(-100, 2, 3, 6), Some(-333_333));
        assert_eq!(divide(-5, 6, 10, 6), Some(-1), "-0.0000005 rounds away from zero");
        assert_eq!(divide(0, 2, 7, 6), Some(0));
    }

    #[test]
    fn a_scale_above_six_is_kept() {
        // 1.00000001 / 2 = 0.500000005 -> 0.50000001 at scale 8
        assert_eq!(avg_scale(8), 8);
        assert_eq!(divide(100_000_001, 8, 2, 8), Some(50_000_001));
        assert_eq!(avg_scale(2), 6);
    }

    #[test]
    fn no_rows_or_too_many_digits_give_null() {
        assert_eq!(divide(5, 0, 0, 6), None);
        // 5 * 10^37 at scale 6 needs 44 digits.
        assert_eq!(divide(5 * 10i128.pow(37), 0, 1, 6), None);
        assert_eq!(divide(10i128.pow(31), 0, 1, 6), Some(10i128.pow(37)));
        assert_eq!(divide(10i128.pow(32), 0, 1, 6), None, "10^38 has 39 digits");
    }

    #[test]
    fn a_negative_count_divides_as_java_does() {
        assert_eq!(divide(300, 2, -2, 6), Some(-1_500_000));
        assert_eq!(divide(-300, 2, -2, 6), Some(1_500_000));
    }

    #[test]
    fn the_rounding_to_38_digits_comes_before_the_rounding_to_the_scale() {
        // D / 1999 = 1000500250125062531265632816408.99899949...: 38 digits round it to
        // ...408.9989995, which rounds to ...408.999000 at scale 6; one rounding would give
        // ...408.998999. (Python's decimal module, which follows BigDecimal, agrees.)
        let dividend = 2_000_000_000_000_000_000_000_000_000_001_589;
        assert_eq!(divide(dividend, 0, 1999, 6), Some(1_000_500_250_125_062_531_265_632_816_408_999_000));
    }

    #[test]
    fn quotients_keep_38_significant_digits() {
        // 1 / 3 at scale 0: 0.333... with 38 threes.
        let (mantissa, exponent) = quotient_digits(1, 3);
        assert_eq!(mantissa, (10u128.pow(38) - 1) / 3);
        assert_eq!(exponent, 38);
        assert_eq!(quotient_digits(6, 3), (2, 0), "exact quotients stop early");
        let (mantissa, exponent) = quotient_digits(2, 3);
        assert_eq!((mantissa % 10, exponent), (7, 38), "0.666...7");
    }
}
