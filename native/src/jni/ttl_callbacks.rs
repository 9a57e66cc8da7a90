//! The TTL compaction filter's calls back into the JVM: the job's TTL clock and, for lists of
//! variable-length elements, Flink's element serializer. They run on RocksDB's compaction
//! threads, which attach to the JVM for each call and detach after it, as Flink's frocksdb
//! filter does: a thread left attached would try to detach while RocksDB's static destructors
//! join it at process exit, and deadlock the JVM's shutdown.

use jni::objects::{GlobalRef, JMethodID, JObject};
use jni::signature::{Primitive, ReturnType};
use jni::sys::jvalue;
use jni::{JNIEnv, JavaVM};

use crate::error::{NativeError, Result};
use crate::ttl::{Clock, ListElementScanner};

/// A Java object and one of its methods, callable from any thread.
struct JavaCallback {
    vm: JavaVM,
    target: GlobalRef,
    method: JMethodID,
    what: &'static str,
}

impl JavaCallback {
    fn new(
        env: &mut JNIEnv,
        target: &JObject,
        name: &str,
        signature: &str,
        what: &'static str,
    ) -> jni::errors::Result<Self> {
        let class = env.get_object_class(target)?;
        let method = env.get_method_id(&class, name, signature)?;
        Ok(JavaCallback { vm: env.get_java_vm()?, target: env.new_global_ref(target)?, method, what })
    }

    /// Calls the method in a local frame, so that an already attached thread that never
    /// returns to Java does not pile up local references; a Java exception is cleared and
    /// becomes an error.
    fn call<T>(
        &self,
        returns: Primitive,
        args: impl FnOnce(&mut JNIEnv) -> jni::errors::Result<Vec<jvalue>>,
        convert: impl FnOnce(jni::objects::JValueOwned) -> jni::errors::Result<T>,
    ) -> Result<T> {
        // Detaches on drop if, and only if, this call attached the thread.
        let mut env = self
            .vm
            .attach_current_thread()
            .map_err(|e| NativeError::Callback(format!("{}: cannot attach to the JVM: {e}", self.what)))?;
        let result = env.with_local_frame(8, |env| -> jni::errors::Result<T> {
            let args = args(env)?;
            // SAFETY: the method id was looked up on the target's class with this signature.
            let value =
                unsafe { env.call_method_unchecked(&self.target, self.method, ReturnType::Primitive(returns), &args) }?;
            convert(value)
        });
        result.map_err(|e| {
            if env.exception_check().unwrap_or(false) {
                let _ = env.exception_describe();
                let _ = env.exception_clear();
            }
            NativeError::Callback(format!("{}: {e}", self.what))
        })
    }
}

/// The backend's `TtlTimeProvider`, through `NativeTtlClock.currentTimestamp()`.
pub struct JavaClock(JavaCallback);

impl JavaClock {
    pub fn new(env: &mut JNIEnv, clock: &JObject) -> jni::errors::Result<Self> {
        Ok(JavaClock(JavaCallback::new(env, clock, "currentTimestamp", "()J", "TTL clock")?))
    }
}

impl Clock for JavaClock {
    fn now_millis(&self) -> Result<i64> {
        self.0.call(Primitive::Long, |_| Ok(Vec::new()), |v| v.j())
    }
}

/// Flink's element serializer, through `NativeListElementScanner.firstUnexpiredOffset`.
pub struct JavaListScanner(JavaCallback);

impl JavaListScanner {
    pub fn new(env: &mut JNIEnv, scanner: &JObject) -> jni::errors::Result<Self> {
        Ok(JavaListScanner(JavaCallback::new(env, scanner, "firstUnexpiredOffset", "([BJJ)I", "TTL list scanner")?))
    }
}

impl ListElementScanner for JavaListScanner {
    fn first_unexpired_offset(&self, list: &[u8], ttl_millis: i64, now_millis: i64) -> Result<usize> {
        let offset = self.0.call(
            Primitive::Int,
            |env| {
                let bytes = env.byte_array_from_slice(list)?;
                Ok(vec![jvalue { l: bytes.into_raw() }, jvalue { j: ttl_millis }, jvalue { j: now_millis }])
            },
            |v| v.i(),
        )?;
        usize::try_from(offset).map_err(|_| NativeError::Callback(format!("TTL list scanner returned offset {offset}")))
    }
}
