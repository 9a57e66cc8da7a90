//! `native` methods of `NativeMethods` for snapshots and restore: native checkpoints and
//! rescaling a restored instance to a backend's key groups.

use std::path::{Path, PathBuf};

use jni::objects::{JByteArray, JClass, JString};
use jni::sys::jlong;
use jni::JNIEnv;

use super::guard::call;
use super::handles::{borrow, StoreHandle};
use crate::batch;
use crate::checkpoint;
use crate::error::NativeError;
use crate::rescale::{self, KeyRange};
use crate::store::KeyedStore;

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_beginCheckpoint(
    mut env: JNIEnv,
    _class: JClass,
    store: jlong,
    target: JString,
) {
    checkpoint_step(&mut env, store, &target, checkpoint::begin_checkpoint)
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_completeCheckpoint(
    mut env: JNIEnv,
    _class: JClass,
    store: jlong,
    target: JString,
) {
    checkpoint_step(&mut env, store, &target, checkpoint::complete_checkpoint)
}

/// Runs one step of a checkpoint of `store` into the directory `target`.
fn checkpoint_step(
    env: &mut JNIEnv,
    store: jlong,
    target: &JString,
    step: fn(&KeyedStore, &Path) -> crate::error::Result<()>,
) {
    call(env, (), |env| {
        let store = unsafe { borrow::<StoreHandle>(store)? };
        let target: String = env.get_string(target)?.into();
        Ok(step(store, &PathBuf::from(target))?)
    })
}

/// `ranges` is a key list of begin/end pairs.
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_deleteKeyRanges(
    mut env: JNIEnv,
    _class: JClass,
    store: jlong,
    ranges: JByteArray,
) {
    call(&mut env, (), |env| {
        let store = unsafe { borrow::<StoreHandle>(store)? };
        let encoded = env.convert_byte_array(&ranges)?;
        let bounds = batch::decode_keys(&encoded).collect::<Result<Vec<&[u8]>, NativeError>>()?;
        if bounds.len() % 2 != 0 {
            return Err(NativeError::InvalidArgument(format!(
                "{} range bounds given; ranges need a begin and an end each",
                bounds.len()
            ))
            .into());
        }
        let ranges = bounds
            .chunks(2)
            .map(|pair| KeyRange::new(pair[0], pair[1]))
            .collect::<Result<Vec<KeyRange>, NativeError>>()?;
        Ok(rescale::delete_ranges(store, &ranges)?)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_copyKeyRange(
    mut env: JNIEnv,
    _class: JClass,
    store: jlong,
    source: JString,
    begin: JByteArray,
    end: JByteArray,
) -> jlong {
    call(&mut env, 0, |env| {
        let store = unsafe { borrow::<StoreHandle>(store)? };
        let source: String = env.get_string(&source)?.into();
        let range = KeyRange::new(&env.convert_byte_array(&begin)?, &env.convert_byte_array(&end)?)?;
        Ok(rescale::copy_range_from(store, &PathBuf::from(source), &range)? as jlong)
    })
}
