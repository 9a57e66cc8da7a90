//! The version stamp shared with the Java side.
//!
//! Both sides compare stamps at load time: Java refuses a library whose stamp differs, and
//! the library refuses a Java caller whose stamp differs. Bump it whenever a JNI signature or
//! the encoding of a batch changes.

/// ABI version of this library. Must equal `NativeLibrary.ABI_VERSION` on the Java side.
pub const ABI_VERSION: i32 = 3;

/// Checks the stamp that the Java side sent.
pub fn check_java_abi(java_abi: i32) -> Result<(), crate::NativeError> {
    if java_abi == ABI_VERSION {
        Ok(())
    } else {
        Err(crate::NativeError::AbiMismatch { java: java_abi, native: ABI_VERSION })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_own_version_and_rejects_others() {
        assert!(check_java_abi(ABI_VERSION).is_ok());
        let err = check_java_abi(ABI_VERSION + 1).unwrap_err();
        assert!(err.to_string().contains("ABI"), "{err}");
    }
}
