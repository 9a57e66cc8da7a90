//! Error and panic containment for JNI calls.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

use jni::JNIEnv;

use crate::error::NativeError;

/// The Java exception thrown for native failures other than bad arguments and bugs.
const NATIVE_EXCEPTION: &str = "io/streamfusion/backend/nativelib/NativeStateException";
/// The Java exception thrown for broken invariants and panics: bugs, not bad input.
const INTERNAL_EXCEPTION: &str = "io/streamfusion/backend/nativelib/NativeInternalException";
const ILLEGAL_ARGUMENT: &str = "java/lang/IllegalArgumentException";

thread_local! {
    /// Where the last panic on this thread happened, recorded by the panic hook.
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

static PANIC_HOOK: Once = Once::new();

/// Replaces the default hook, which prints to the JVM's stderr, with one that keeps the panic's
/// location for the Java exception. The hook is this library's own: Rust's runtime is linked
/// into the cdylib, so no other library's panics reach it.
fn install_panic_hook() {
    PANIC_HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let location = info.location().map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
            PANIC_LOCATION.with(|slot| *slot.borrow_mut() = location);
        }))
    });
}

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

impl From<arrow::error::ArrowError> for CallError {
    fn from(e: arrow::error::ArrowError) -> Self {
        CallError::Native(NativeError::Arrow(e))
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
    install_panic_hook();
    match catch_unwind(AssertUnwindSafe(|| body(env))) {
        Ok(Ok(value)) => value,
        Ok(Err(CallError::Native(e))) => {
            let class = match e {
                NativeError::InvalidArgument(_) => ILLEGAL_ARGUMENT,
                NativeError::Internal(_) => INTERNAL_EXCEPTION,
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
            let location = PANIC_LOCATION.with(|slot| slot.borrow_mut().take());
            let message = format!(
                "panic in StreamFusion native code at {}: {}",
                location.as_deref().unwrap_or("an unknown location"),
                panic_message(&payload)
            );
            throw(env, INTERNAL_EXCEPTION, &message);
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
