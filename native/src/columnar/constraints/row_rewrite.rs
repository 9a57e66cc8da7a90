//! A `BinaryRowData` with some string or binary fields replaced, laid out as `BinaryRowWriter`
//! writes a row field by field: each variable-length value, in field order, after the fixed part,
//! rounded up to eight bytes and zero-padded, a value of at most seven bytes in its slot instead.
//! Rows that the planner's generated code wrote come out byte for byte as the writer would have
//! written the changed row, so rows compared by their bytes downstream still match.

use std::ops::Range;

use crate::columnar::binary_row::{header_bytes, BinaryRow, HEADER_BITS, INLINE_MARK};
use crate::error::{NativeError, Result};

/// Where a field's variable-length bytes lie in the row: from its slot's offset to the next
/// value's offset (or the row's end), so a value's reserved and padding bytes move with it.
struct Segment {
    position: usize,
    start: usize,
    end: usize,
}

/// Reusable scratch space for [`rewrite`].
#[derive(Default)]
pub struct Rewriter {
    segments: Vec<Segment>,
}

impl Rewriter {
    /// Appends to `out` the row `row` with the fields of `replacements` (position and the range
    /// of `values` holding the new bytes; in position order) replaced and no longer NULL.
    /// `variable_fields`, in position order, are the fields whose slot may point into the
    /// variable-length part; every replaced field is one.
    pub fn rewrite(
        &mut self,
        row: &BinaryRow,
        variable_fields: &[usize],
        replacements: &[(usize, Range<usize>)],
        values: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let bytes = row.bytes();
        let fixed_end = row.fixed_end();
        self.segments.clear();
        for &position in variable_fields {
            let slot = row.slot(position);
            let offset = (slot >> 32) as usize;
            if slot & INLINE_MARK == 0 && offset >= fixed_end && offset < bytes.len() {
                self.segments.push(Segment { position, start: offset, end: bytes.len() });
            }
        }
        // The writer lays values out in field order, so the sorts are for other writers' rows.
        let in_field_order = self.segments.is_sorted_by_key(|s| s.start);
        if !in_field_order {
            self.segments.sort_by_key(|s| s.start);
        }
        for i in 1..self.segments.len() {
            let next = self.segments[i].start;
            self.segments[i - 1].end = next;
        }
        if !in_field_order {
            self.segments.sort_by_key(|s| s.position);
        }

        let start = out.len();
        out.extend_from_slice(&bytes[..fixed_end]);
        let (mut segments, mut replaced) = (self.segments.iter().peekable(), replacements.iter().peekable());
        for &position in variable_fields {
            let slot_at = start + header_bytes(row.arity()) + 8 * position;
            let slot = match replaced.next_if(|(p, _)| *p == position) {
                Some((_, range)) => {
                    let value = &values[range.clone()];
                    segments.next_if(|s| s.position == position);
                    let bit = position + HEADER_BITS;
                    out[start + bit / 8] &= !(1 << (bit % 8));
                    write_value(out, start, value)
                }
                None => match segments.next_if(|s| s.position == position) {
                    Some(segment) => {
                        let offset = out.len() - start;
                        out.extend_from_slice(&bytes[segment.start..segment.end]);
                        ((offset as u64) << 32) | (row.slot(position) & 0xffff_ffff)
                    }
                    None => row.slot(position),
                },
            };
            out[slot_at..slot_at + 8].copy_from_slice(&slot.to_le_bytes());
        }
        if let Some((position, _)) = replaced.next() {
            return Err(NativeError::Internal(format!("field {position} is replaced but holds no string or bytes")));
        }
        Ok(())
    }
}

/// Writes `value` as `BinaryRowWriter.writeString`/`writeBinary` do and returns its slot.
fn write_value(out: &mut Vec<u8>, row_start: usize, value: &[u8]) -> u64 {
    if value.len() <= 7 {
        let mut slot = [0u8; 8];
        slot[..value.len()].copy_from_slice(value);
        slot[7] = 0x80 | value.len() as u8;
        return u64::from_le_bytes(slot);
    }
    let offset = out.len() - row_start;
    out.extend_from_slice(value);
    out.resize(out.len() + (8 - value.len() % 8) % 8, 0);
    ((offset as u64) << 32) | value.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columnar::binary_row::tests::RowBuilder;

    type Replacement<'a> = (usize, &'a [u8]);

    /// `replacements` as ranges of one buffer of values.
    fn ranges(replacements: &[Replacement]) -> (Vec<(usize, Range<usize>)>, Vec<u8>) {
        let mut values = Vec::new();
        let mut ranges = Vec::new();
        for (position, value) in replacements {
            ranges.push((*position, values.len()..values.len() + value.len()));
            values.extend_from_slice(value);
        }
        (ranges, values)
    }

    fn rewritten(bytes: &[u8], arity: usize, variable: &[usize], replacements: &[Replacement]) -> Vec<u8> {
        let mut out = vec![0xee; 3];
        let row = BinaryRow::new(bytes, arity).unwrap();
        let (ranges, values) = ranges(replacements);
        Rewriter::default().rewrite(&row, variable, &ranges, &values, &mut out).unwrap();
        assert_eq!(&out[..3], &[0xee; 3], "appends after what the buffer held");
        out.split_off(3)
    }

    #[test]
    fn replaced_values_come_out_as_the_writer_writes_the_new_row() {
        let long = b"a value longer than a slot";
        let input = RowBuilder::new(4).long(0, 9).bytes(1, long).bytes(2, b"abcdefghijk").bytes(3, b"xy").build();
        let cases: [(&[Replacement], Vec<u8>); 4] = [
            (
                &[(1, b"abc")],
                RowBuilder::new(4).long(0, 9).bytes(1, b"abc").bytes(2, b"abcdefghijk").bytes(3, b"xy").build(),
            ),
            (&[(2, b"abcde")], RowBuilder::new(4).long(0, 9).bytes(1, long).bytes(2, b"abcde").bytes(3, b"xy").build()),
            (
                &[(3, b"xy        ")],
                RowBuilder::new(4).long(0, 9).bytes(1, long).bytes(2, b"abcdefghijk").bytes(3, b"xy        ").build(),
            ),
            (
                &[(1, b"0123456789"), (3, b"")],
                RowBuilder::new(4).long(0, 9).bytes(1, b"0123456789").bytes(2, b"abcdefghijk").bytes(3, b"").build(),
            ),
        ];
        for (replacements, expected) in cases {
            assert_eq!(rewritten(&input, 4, &[1, 2, 3], replacements), expected, "{replacements:?}");
        }
    }

    #[test]
    fn a_replaced_null_is_no_longer_null_and_other_nulls_stay() {
        let input = RowBuilder::new(3).null(0).null(1).long(2, 5).build();
        let out = rewritten(&input, 3, &[0, 1], &[(1, b"     ")]);
        assert_eq!(out, RowBuilder::new(3).null(0).bytes(1, b"     ").long(2, 5).build());
    }

    #[test]
    fn other_variable_values_keep_their_reserved_bytes_and_low_slot_bits() {
        // A wide decimal reserves 16 bytes and a wide timestamp keeps its nanoseconds in the slot;
        // the row kind byte stays.
        let mut input = RowBuilder::new(3).bytes(0, b"a long string value").build();
        let decimal_at = input.len();
        input.extend_from_slice(&[1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        let timestamp_at = input.len();
        input.extend_from_slice(&77i64.to_le_bytes());
        input[16..24].copy_from_slice(&(((decimal_at as u64) << 32) | 3).to_le_bytes());
        input[24..32].copy_from_slice(&(((timestamp_at as u64) << 32) | 999).to_le_bytes());
        input[0] = 2;
        let out = rewritten(&input, 3, &[0, 1, 2], &[(0, b"short")]);
        let row = BinaryRow::new(&out, 3).unwrap();
        assert_eq!(out[0], 2);
        assert_eq!(row.get_bytes(0).unwrap(), b"short");
        assert_eq!(row.get_decimal_bytes(1).unwrap(), &[1, 2, 3]);
        assert_eq!(row.get_timestamp(2).unwrap(), (77, 999));
        assert_eq!(out.len(), 8 + 24 + 16 + 8, "the string moved into its slot, the rest moved up");
    }

    #[test]
    fn values_laid_out_out_of_field_order_come_out_in_field_order() {
        let (first, second) = (b"first value, long", b"second value, longer");
        let in_order = RowBuilder::new(2).bytes(0, first).bytes(1, second).build();
        // The same values with the second one's bytes first in the variable-length part.
        let swapped = RowBuilder::new(2).bytes(1, second).bytes(0, first).build();
        assert_ne!(swapped, in_order);
        assert_eq!(rewritten(&swapped, 2, &[0, 1], &[]), in_order);
        let out = rewritten(&swapped, 2, &[0, 1], &[(1, b"x")]);
        assert_eq!(out, RowBuilder::new(2).bytes(0, first).bytes(1, b"x").build());
    }

    #[test]
    fn a_field_that_cannot_hold_bytes_is_refused() {
        let input = RowBuilder::new(2).long(0, 1).bytes(1, b"x").build();
        let row = BinaryRow::new(&input, 2).unwrap();
        let err = Rewriter::default().rewrite(&row, &[1], &[(0, 0..1)], b"y", &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("field 0"), "{err}");
    }
}
