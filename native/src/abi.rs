//! What the Java side and this library must agree on, defined here once for the native side.
//!
//! At load time Java sends its own [`descriptor`]: the ABI version and every code the two
//! sides exchange. The library refuses a caller whose descriptor differs, so a mismatch is
//! caught before any state is touched. Bump [`ABI_VERSION`] whenever a JNI signature or the
//! encoding of a batch changes.

use crate::columnar::constraints;
use crate::columnar::group_agg::{self, functions::Function};
use crate::columnar::top1::{Replacement, FIRST, REJECTED, REPLACED};
use crate::columnar::upsert;

/// ABI version of this library. Must equal `NativeLibrary.ABI_VERSION` on the Java side.
pub const ABI_VERSION: i32 = 15;

/// `TtlCompactionFilterSpec.Layout` codes: where a state kind keeps its TTL timestamps.
pub mod ttl_layout {
    /// No filter.
    pub const NONE: i32 = 0;
    pub const VALUE: i32 = 1;
    pub const MAP: i32 = 2;
    pub const FIXED_ELEMENT_LIST: i32 = 3;
    pub const VARIABLE_ELEMENT_LIST: i32 = 4;
}

/// `BinaryFieldType` names, by code (the Java enum's ordinals); see
/// [`FieldType::from_code`](crate::columnar::sort_key::FieldType::from_code).
pub const FIELD_TYPE_NAMES: [&str; 13] = [
    "boolean",
    "tinyint",
    "smallint",
    "int",
    "bigint",
    "float",
    "double",
    "compact-decimal",
    "decimal",
    "compact-timestamp",
    "timestamp",
    "bytes",
    "rowtime-millis",
];

/// The version and codes, in the form `NativeAbi.descriptor()` builds on the Java side.
pub fn descriptor() -> String {
    let mut out = format!(
        "abi={ABI_VERSION};ttl.none={};ttl.value={};ttl.map={};ttl.fixed-element-list={};ttl.variable-element-list={}",
        ttl_layout::NONE,
        ttl_layout::VALUE,
        ttl_layout::MAP,
        ttl_layout::FIXED_ELEMENT_LIST,
        ttl_layout::VARIABLE_ELEMENT_LIST
    );
    for (code, name) in FIELD_TYPE_NAMES.iter().enumerate() {
        out.push_str(&format!(";field.{name}={code}"));
    }
    out.push_str(&format!(";top1.rejected={REJECTED};top1.first={FIRST};top1.replaced={REPLACED}"));
    for (code, name) in Replacement::NAMES.iter().enumerate() {
        out.push_str(&format!(";top1.replacement.{name}={code}"));
    }
    out.push_str(&format!(
        ";upsert.nothing={};upsert.insert={};upsert.update-after={};upsert.delete={};upsert.latest={};upsert.not-found={}",
        upsert::NOTHING,
        upsert::INSERT,
        upsert::UPDATE_AFTER,
        upsert::DELETE,
        upsert::LATEST,
        upsert::NOT_FOUND
    ));
    out.push_str(&format!(
        ";agg.nothing={};agg.insert={};agg.update={};agg.delete={}",
        group_agg::NOTHING,
        group_agg::INSERT,
        group_agg::UPDATE,
        group_agg::DELETE
    ));
    for (code, name) in Function::NAMES.iter().enumerate() {
        out.push_str(&format!(";agg.function.{name}={code}"));
    }
    out.push_str(&format!(
        ";constraints.emit={};constraints.rewritten={};constraints.dropped={};constraints.null-violation={};\
         constraints.char-violation={};constraints.binary-violation={}",
        constraints::EMIT,
        constraints::REWRITTEN,
        constraints::DROPPED,
        constraints::NULL_VIOLATION,
        constraints::CHAR_VIOLATION,
        constraints::BINARY_VIOLATION
    ));
    out
}

/// Checks the descriptor that the Java side sent.
pub fn check_java_abi(java_descriptor: &str) -> Result<(), crate::NativeError> {
    let native = descriptor();
    if java_descriptor == native {
        Ok(())
    } else {
        Err(crate::NativeError::AbiMismatch { java: java_descriptor.to_owned(), native })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columnar::sort_key::FieldType;

    #[test]
    fn field_type_names_follow_the_codes() {
        for (code, name) in FIELD_TYPE_NAMES.iter().enumerate() {
            let field_type = FieldType::from_code(code as i32).unwrap();
            assert_eq!(format!("{field_type:?}").to_lowercase(), name.replace('-', ""), "code {code}");
        }
        assert!(FieldType::from_code(FIELD_TYPE_NAMES.len() as i32).is_err());
    }

    #[test]
    fn replacement_names_follow_the_codes() {
        for (code, name) in Replacement::NAMES.iter().enumerate() {
            let replacement = Replacement::from_code(code as i32).unwrap();
            assert_eq!(format!("{replacement:?}").to_lowercase(), name.replace('-', ""), "code {code}");
        }
    }

    #[test]
    fn accepts_own_descriptor_and_rejects_others() {
        assert!(check_java_abi(&descriptor()).is_ok());
        let other = descriptor().replace("ttl.map=2", "ttl.map=5");
        let err = check_java_abi(&other).unwrap_err();
        assert!(err.to_string().contains("ABI"), "{err}");
        assert!(err.to_string().contains("ttl.map=5"), "{err}");
    }
}
