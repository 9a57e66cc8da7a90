use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BinaryArray, Int32Array, Int8Array, StructArray};
use arrow::datatypes::Fields;

use super::*;
use crate::columnar::batch_keys::batch_type;
use crate::columnar::binary_row::tests::RowBuilder;

/// Rows of `(id BIGINT, name CHAR(5) | VARCHAR(3), code BINARY(4) | VARBINARY(2))`.
fn spec(not_null_mode: NotNullMode, length_mode: LengthMode, pad: bool) -> ConstraintSpec {
    ConstraintSpec {
        arity: 3,
        not_null: vec![0],
        not_null_mode,
        char_fields: vec![LengthField { position: 1, length: if pad { 5 } else { 3 }, pad }],
        binary_fields: vec![LengthField { position: 2, length: if pad { 4 } else { 2 }, pad }],
        length_mode,
        variable_fields: vec![1, 2],
    }
}

fn row(id: Option<i64>, name: Option<&str>, code: Option<&[u8]>) -> Vec<u8> {
    let mut builder = RowBuilder::new(3);
    builder = match id {
        Some(id) => builder.long(0, id),
        None => builder.null(0),
    };
    builder = match name {
        Some(name) => builder.bytes(1, name.as_bytes()),
        None => builder.null(1),
    };
    match code {
        Some(code) => builder.bytes(2, code),
        None => builder.null(2),
    }
    .build()
}

fn batch(rows: &[Vec<u8>]) -> StructArray {
    let DataType::Struct(fields) = batch_type() else { unreachable!() };
    let keys: ArrayRef = Arc::new(BinaryArray::from_iter_values(rows.iter().map(|_| [0u8; 8])));
    let rows: ArrayRef = Arc::new(BinaryArray::from_iter_values(rows.iter()));
    StructArray::new(Fields::clone(&fields), vec![keys, rows], None)
}

type RowOutcome = (i8, Option<Vec<u8>>);

/// Each covered row's outcome and, if rewritten, its new bytes; then the violation's field and
/// length.
fn enforce(spec: ConstraintSpec, rows: &[Vec<u8>]) -> (Vec<RowOutcome>, (i32, i32)) {
    let result = SinkConstraints::new(spec).unwrap().enforce(&batch(rows)).unwrap();
    let outcomes = result.column(0).as_any().downcast_ref::<Int8Array>().unwrap();
    let bytes = result.column(1).as_any().downcast_ref::<BinaryArray>().unwrap();
    let field = result.column(2).as_any().downcast_ref::<Int32Array>().unwrap();
    let length = result.column(3).as_any().downcast_ref::<Int32Array>().unwrap();
    let n = result.len();
    let rows = (0..n).map(|i| (outcomes.value(i), bytes.is_valid(i).then(|| bytes.value(i).to_vec()))).collect();
    let last = if n == 0 { (0, 0) } else { (field.value(n - 1), length.value(n - 1)) };
    (rows, last)
}

#[test]
fn rows_that_comply_pass_unchanged_and_nulls_are_dropped() {
    let rows = [
        row(Some(1), Some("abcde"), Some(b"0123")),
        row(None, Some("abcde"), Some(b"0123")),
        row(Some(3), Some("abcde"), Some(b"0123")),
    ];
    let (out, _) = enforce(spec(NotNullMode::Drop, LengthMode::TrimPad, true), &rows);
    assert_eq!(out, vec![(EMIT, None), (DROPPED, None), (EMIT, None)]);
}

#[test]
fn char_and_binary_are_trimmed_and_padded_by_code_points_and_bytes() {
    let rows = [row(Some(1), Some("äb"), Some(b"\x01")), row(Some(2), Some("日本語です。"), Some(b"012345"))];
    let (out, _) = enforce(spec(NotNullMode::Error, LengthMode::TrimPad, true), &rows);
    assert_eq!(
        out,
        vec![
            (REWRITTEN, Some(row(Some(1), Some("äb   "), Some(b"\x01\0\0\0")))),
            (REWRITTEN, Some(row(Some(2), Some("日本語です"), Some(b"0123")))),
        ]
    );
}

#[test]
fn varchar_and_varbinary_are_trimmed_only() {
    let rows = [row(Some(1), Some("ab"), Some(b"\x01")), row(Some(2), Some("abcd"), Some(b"012"))];
    let (out, _) = enforce(spec(NotNullMode::Error, LengthMode::TrimPad, false), &rows);
    assert_eq!(out, vec![(EMIT, None), (REWRITTEN, Some(row(Some(2), Some("abc"), Some(b"01"))))]);
}

#[test]
fn trim_pad_turns_a_null_char_and_binary_into_padding_as_flink_does() {
    let (out, _) = enforce(spec(NotNullMode::Error, LengthMode::TrimPad, true), &[row(Some(1), None, None)]);
    assert_eq!(out, vec![(REWRITTEN, Some(row(Some(1), Some("     "), Some(b"\0\0\0\0"))))]);
    let (out, _) = enforce(spec(NotNullMode::Error, LengthMode::TrimPad, false), &[row(Some(1), None, None)]);
    assert_eq!(out, vec![(EMIT, None)], "a NULL VARCHAR or VARBINARY is long enough");
}

#[test]
fn the_first_violation_ends_the_batch_in_flinks_order_of_checks() {
    let ok = row(Some(1), Some("abcde"), Some(b"0123"));
    let error = |rows: &[Vec<u8>]| enforce(spec(NotNullMode::Error, LengthMode::Error, true), rows);
    // NOT NULL first, even if the lengths are wrong too.
    let (out, violation) = error(&[ok.clone(), row(None, Some("x"), Some(b"x")), ok.clone()]);
    assert_eq!(out, vec![(EMIT, None), (NULL_VIOLATION, None)]);
    assert_eq!(violation, (0, 0));
    // CHAR before BINARY; the actual length in code points.
    let (out, violation) = error(&[row(Some(1), Some("äöüß"), Some(b"x")), ok.clone()]);
    assert_eq!(out, vec![(CHAR_VIOLATION, None)]);
    assert_eq!(violation, (0, 4));
    let (out, violation) = error(&[ok.clone(), row(Some(1), Some("abcde"), Some(b"012345"))]);
    assert_eq!(out, vec![(EMIT, None), (BINARY_VIOLATION, None)]);
    assert_eq!(violation, (0, 6));
    // A NULL CHAR is a string of length 0.
    let (out, violation) = error(&[row(Some(1), None, Some(b"0123"))]);
    assert_eq!(out, vec![(CHAR_VIOLATION, None)]);
    assert_eq!(violation, (0, 0));
}

#[test]
fn a_spec_that_does_not_fit_the_rows_is_refused() {
    let mut outside = spec(NotNullMode::Drop, LengthMode::TrimPad, true);
    outside.not_null = vec![3];
    assert!(SinkConstraints::new(outside).is_err());
    let mut not_variable = spec(NotNullMode::Drop, LengthMode::TrimPad, true);
    not_variable.variable_fields = vec![2];
    let err = SinkConstraints::new(not_variable).err().unwrap();
    assert!(err.to_string().contains("field 1"), "{err}");
}

#[test]
fn damaged_rows_are_errors_never_panics() {
    let valid = row(Some(1), Some("a string of many bytes"), Some(b"01"));
    let mut random = crate::test_support::Xorshift::new(0xc0de);
    for _ in 0..50_000 {
        let bytes = crate::test_support::mutated(&valid, &mut random);
        let mut constraints = SinkConstraints::new(spec(NotNullMode::Drop, LengthMode::TrimPad, true)).unwrap();
        let _ = constraints.enforce(&batch(&[bytes]));
    }
}
