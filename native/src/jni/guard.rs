//! Error and panic containment for JNI calls.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use jni::JNIEnv;

use crate::error::NativeError;

/// The Java exception thrown for native failures other than bad arguments.
const NATIVE_EXCEPTION: &str = "io/streamfusion/backend/nativelib/NativeStateException";
const ILLEGAL_ARGUMENT: &str = "java/lang/IllegalArgumentException";

/// Why a JNI call failed.
pub(super) enum CallError {
    Native(NativeError),
    /// A JNI operation failed; a Java exception may already be pending.
    Jni(jni::errors::Error),
}

impl From<NativeError> for CallError {
    fn from(e: NativeError) -> Self {
        CallError::Native(e)
    }
}

impl From<jni::errors::Error> for CallError {
    fn from(e: jni::errors::Error) -> Self {
        CallError::Jni(e)
    }
}

pub(super) type CallResult<T> = Result<T, CallError>;

/// Runs `body`, returning its value, or throwing a Java exception and returning `fallback`.
pub(super) fn call<'local, T>(
    env: &mut JNIEnv<'local>,
    fallback: T,
    body: impl FnOnce(&mut JNIEnv<'local>) -> CallResult<T>,
) -> T {
    match catch_unwind(AssertUnwindSafe(|| body(env))) {
        Ok(Ok(value)) => value,
        Ok(Err(CallError::Native(e))) => {
            let class = match e {
                NativeError::InvalidArgument(_) => ILLEGAL_ARGUMENT,
                _ => NATIVE_EXCEPTION,
            };
            throw(env, class, &e.to_string());
            fallback
        }
        Ok(Err(CallError::Jni(e))) => {
            if !env.exception_check().unwrap_or(true) {
                throw(env, NATIVE_EXCEPTION, &format!("JNI call failed: {e}"));
            }
            fallback
        }
        Err(payload) => {
            let message = format!("panic in StreamFusion native code: {}", panic_message(&payload));
            throw(env, NATIVE_EXCEPTION, &message);
            fallback
        }
    }
}

fn throw(env: &mut JNIEnv, class: &str, message: &str) {
    if env.exception_check().unwrap_or(false) {
        return;
    }
    if env.throw_new(class, message).is_err() {
        // The class could not be found (a foreign class loader, say): fall back to a type
        // every class loader can see, keeping the message.
        let _ = env.exception_clear();
        let _ = env.throw_new("java/lang/RuntimeException", message);
    }
}

fn panic_message(payload: &Box<dyn Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_owned()
    }
}
