//! `native` methods of `io.streamfusion.backend.nativelib.NativeMethods`.
//!
//! Each function only converts arguments and delegates to the plain Rust modules.

use std::path::PathBuf;
use std::sync::Arc;

use jni::objects::{JByteArray, JClass, JLongArray, JObject, JString};
use jni::sys::{jbyteArray, jdouble, jint, jlong, jlongArray};
use jni::JNIEnv;

use super::guard::{call, CallResult};
use super::handles::{
    borrow, borrow_mut, free, into_handle, ColumnFamilyHandle, ScanHandle, SlotMemoryHandle, StoreHandle,
};
use crate::abi;
use crate::error::NativeError;
use crate::memory::SlotMemory;
use crate::scan::KeyGroupScan;
use crate::store::{KeyedStore, StateColumnFamily, StoreConfig};

/// Keys up to this length are copied onto the stack; state keys (key group, key, namespace,
/// user key) are almost always this short.
const STACK_KEY_BYTES: usize = 128;

/// Runs `f` over the bytes of `array`, copied onto the stack when short. A thread-local buffer
/// would cost a `__tls_get_addr` call per access in a library loaded with `dlopen`, which
/// measured as 4% of a point lookup.
fn with_key<R>(env: &mut JNIEnv, array: &JByteArray, f: impl FnOnce(&[u8]) -> CallResult<R>) -> CallResult<R> {
    let len = env.get_array_length(array)? as usize;
    let mut stack = [0u8; STACK_KEY_BYTES];
    let mut heap = Vec::new();
    let buffer: &mut [u8] = if len <= STACK_KEY_BYTES {
        &mut stack[..len]
    } else {
        heap.resize(len, 0);
        &mut heap
    };
    // SAFETY: i8 and u8 have the same size and alignment.
    let signed = unsafe { std::slice::from_raw_parts_mut(buffer.as_mut_ptr() as *mut i8, len) };
    env.get_byte_array_region(array, 0, signed)?;
    f(buffer)
}

fn column_list<'a>(env: &mut JNIEnv, handles: &JLongArray) -> CallResult<Vec<&'a StateColumnFamily>> {
    let len = env.get_array_length(handles)? as usize;
    let mut raw = vec![0 as jlong; len];
    env.get_long_array_region(handles, 0, &mut raw)?;
    let mut columns = Vec::with_capacity(len);
    for handle in raw {
        columns.push(unsafe { borrow::<ColumnFamilyHandle>(handle)? });
    }
    Ok(columns)
}

/// Frees the object behind a handle that Java is closing.
fn close<T>(env: &mut JNIEnv, handle: jlong) {
    call(env, (), |_| {
        unsafe { free::<T>(handle) };
        Ok(())
    })
}

/// A key/value write on a column family: put or merge.
type EntryWrite = fn(&StateColumnFamily, &[u8], &[u8]) -> Result<(), NativeError>;

/// Runs a key/value write on a column family.
fn write_entry(env: &mut JNIEnv, column: jlong, key: &JByteArray, value: &JByteArray, write: EntryWrite) {
    call(env, (), |env| {
        let column = unsafe { borrow::<ColumnFamilyHandle>(column)? };
        let value = env.convert_byte_array(value)?;
        with_key(env, key, |key| Ok(write(column, key, &value)?))
    })
}

fn to_java(env: &mut JNIEnv, bytes: &[u8]) -> CallResult<jbyteArray> {
    Ok(env.byte_array_from_slice(bytes)?.into_raw())
}

fn positive(value: jlong, what: &str) -> Result<usize, NativeError> {
    usize::try_from(value)
        .ok()
        .filter(|v| *v > 0)
        .ok_or_else(|| NativeError::InvalidArgument(format!("{what} must be positive, got {value}")))
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_abiVersion(
    _env: JNIEnv,
    _class: JClass,
) -> jint {
    abi::ABI_VERSION
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_checkJavaAbi(
    mut env: JNIEnv,
    _class: JClass,
    java_descriptor: JString,
) {
    call(&mut env, (), |env| {
        let java_descriptor: String = env.get_string(&java_descriptor)?.into();
        Ok(abi::check_java_abi(&java_descriptor)?)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_triggerPanic(
    mut env: JNIEnv,
    _class: JClass,
    message: JString,
) {
    call(&mut env, (), |env| {
        let message: String = env.get_string(&message)?.into();
        panic!("{message}");
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_openSlotMemory(
    mut env: JNIEnv,
    _class: JClass,
    total_bytes: jlong,
    write_buffer_ratio: jdouble,
    write_buffer_size: jlong,
) -> jlong {
    call(&mut env, 0, |_| {
        let memory = SlotMemory::new(
            positive(total_bytes, "memory budget")?,
            write_buffer_ratio,
            positive(write_buffer_size, "write buffer size")?,
        )?;
        Ok(into_handle::<SlotMemoryHandle>(Arc::new(memory)))
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_closeSlotMemory(
    mut env: JNIEnv,
    _class: JClass,
    memory: jlong,
) {
    close::<SlotMemoryHandle>(&mut env, memory)
}

/// `[cache usage, pinned usage, write-buffer usage, reserved, cache capacity, lent, idle cache]`
/// in bytes.
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_slotMemoryUsage<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass,
    memory: jlong,
) -> jlongArray {
    call(&mut env, std::ptr::null_mut(), |env| {
        let memory = unsafe { borrow::<SlotMemoryHandle>(memory)? };
        let usage = [
            memory.cache_usage() as jlong,
            memory.pinned_usage() as jlong,
            memory.write_buffer_usage() as jlong,
            memory.reserved_bytes() as jlong,
            memory.cache_capacity() as jlong,
            memory.lent_bytes() as jlong,
            memory.idle_cache_bytes() as jlong,
        ];
        let array = env.new_long_array(usage.len() as i32)?;
        env.set_long_array_region(&array, 0, &usage)?;
        Ok(array.into_raw())
    })
}

/// Lends the decoded-value cache `bytes` of the block cache in place of its previous loan;
/// returns the bytes lent ([`SlotMemory::lend_to_value_cache`]).
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_lendToValueCache(
    mut env: JNIEnv,
    _class: JClass,
    memory: jlong,
    bytes: jlong,
) -> jlong {
    move_slot_memory(&mut env, memory, bytes, SlotMemory::lend_to_value_cache)
}

/// Gives the block cache `bytes` of the decoded-value cache's own share in place of what it gave
/// before; returns the bytes accepted ([`SlotMemory::accept_from_value_cache`]).
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_acceptFromValueCache(
    mut env: JNIEnv,
    _class: JClass,
    memory: jlong,
    bytes: jlong,
) -> jlong {
    move_slot_memory(&mut env, memory, bytes, SlotMemory::accept_from_value_cache)
}

/// Moves `bytes` between the block cache and the decoded-value cache with `exchange`; a negative
/// count from Java moves nothing.
fn move_slot_memory(env: &mut JNIEnv, memory: jlong, bytes: jlong, exchange: fn(&SlotMemory, usize) -> usize) -> jlong {
    call(env, 0, |_| {
        let memory = unsafe { borrow::<SlotMemoryHandle>(memory)? };
        Ok(exchange(memory, bytes.max(0) as usize) as jlong)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_openStore(
    mut env: JNIEnv,
    _class: JClass,
    path: JString,
    memory: jlong,
    write_back_bytes: jlong,
) -> jlong {
    call(&mut env, 0, |env| {
        let path: String = env.get_string(&path)?.into();
        let memory = unsafe { borrow::<SlotMemoryHandle>(memory)? };
        let write_back_bytes = usize::try_from(write_back_bytes)
            .map_err(|_| NativeError::InvalidArgument(format!("write-back size {write_back_bytes} is negative")))?;
        let config = StoreConfig { memory: Arc::clone(memory), write_back_bytes };
        let store: StoreHandle = KeyedStore::open(&PathBuf::from(path), config)?;
        Ok(into_handle::<StoreHandle>(store))
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_closeStore(
    mut env: JNIEnv,
    _class: JClass,
    store: jlong,
) {
    close::<StoreHandle>(&mut env, store)
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_flushStore(
    mut env: JNIEnv,
    _class: JClass,
    store: jlong,
) {
    call(&mut env, (), |_| Ok(unsafe { borrow::<StoreHandle>(store)? }.flush()?))
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_openColumnFamily(
    mut env: JNIEnv,
    _class: JClass,
    store: jlong,
    name: JString,
) -> jlong {
    call(&mut env, 0, |env| {
        let store = unsafe { borrow::<StoreHandle>(store)? };
        let name: String = env.get_string(&name)?.into();
        Ok(into_handle::<ColumnFamilyHandle>(StateColumnFamily::open(store, &name)?))
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_closeColumnFamily(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
) {
    close::<ColumnFamilyHandle>(&mut env, column)
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_get(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
    key: JByteArray,
) -> jbyteArray {
    call(&mut env, std::ptr::null_mut(), |env| {
        let column = unsafe { borrow::<ColumnFamilyHandle>(column)? };
        let value = with_key(env, &key, |key| Ok(column.get(key)?))?;
        Ok(match value {
            Some(bytes) => to_java(env, &bytes)?,
            None => JObject::null().into_raw(),
        })
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_put(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
    key: JByteArray,
    value: JByteArray,
) {
    write_entry(&mut env, column, &key, &value, StateColumnFamily::put)
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_delete(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
    key: JByteArray,
) {
    call(&mut env, (), |env| {
        let column = unsafe { borrow::<ColumnFamilyHandle>(column)? };
        with_key(env, &key, |key| Ok(column.delete(key)?))
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_countEntries(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
) -> jlong {
    call(&mut env, 0, |_| {
        let column = unsafe { borrow::<ColumnFamilyHandle>(column)? };
        Ok(column.count_entries()? as jlong)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_applyBatch(
    mut env: JNIEnv,
    _class: JClass,
    store: jlong,
    columns: JLongArray,
    batch: JByteArray,
) -> jint {
    call(&mut env, 0, |env| {
        let store = unsafe { borrow::<StoreHandle>(store)? };
        let columns = column_list(env, &columns)?;
        let bytes = env.convert_byte_array(&batch)?;
        Ok(store.apply_batch(&columns, &bytes)? as jint)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_openScan(
    mut env: JNIEnv,
    _class: JClass,
    store: jlong,
    columns: JLongArray,
    key_group_prefix_bytes: jint,
) -> jlong {
    call(&mut env, 0, |env| {
        let store = unsafe { borrow::<StoreHandle>(store)? };
        let columns = column_list(env, &columns)?;
        let scan = KeyGroupScan::open(store, &columns, key_group_prefix_bytes as usize)?;
        Ok(into_handle::<ScanHandle>(scan))
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_scanNextBatch(
    mut env: JNIEnv,
    _class: JClass,
    scan: jlong,
    max_bytes: jint,
) -> jbyteArray {
    call(&mut env, std::ptr::null_mut(), |env| {
        let scan = unsafe { borrow_mut::<ScanHandle>(scan)? };
        let bytes = scan.next_batch(positive(max_bytes as jlong, "scan batch size")?)?;
        to_java(env, &bytes)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_closeScan(
    mut env: JNIEnv,
    _class: JClass,
    scan: jlong,
) {
    close::<ScanHandle>(&mut env, scan)
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_merge(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
    key: JByteArray,
    value: JByteArray,
) {
    write_entry(&mut env, column, &key, &value, StateColumnFamily::merge)
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_scanPrefix(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
    prefix: JByteArray,
    resume_after: JByteArray,
    max_bytes: jint,
) -> jbyteArray {
    call(&mut env, std::ptr::null_mut(), |env| {
        let column = unsafe { borrow::<ColumnFamilyHandle>(column)? };
        let max_bytes = positive(max_bytes as jlong, "scan batch size")?;
        let resume_after = if resume_after.is_null() { None } else { Some(env.convert_byte_array(&resume_after)?) };
        let bytes =
            with_key(env, &prefix, |prefix| Ok(column.scan_prefix(prefix, resume_after.as_deref(), max_bytes)?))?;
        to_java(env, &bytes)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_deletePrefix(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
    prefix: JByteArray,
) -> jlong {
    call(&mut env, 0, |env| {
        let column = unsafe { borrow::<ColumnFamilyHandle>(column)? };
        with_key(env, &prefix, |prefix| Ok(column.delete_prefix(prefix)? as jlong))
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_multiGet(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
    keys: JByteArray,
) -> jbyteArray {
    call(&mut env, std::ptr::null_mut(), |env| {
        let column = unsafe { borrow::<ColumnFamilyHandle>(column)? };
        let keys = env.convert_byte_array(&keys)?;
        let values = column.multi_get(&keys)?;
        to_java(env, &values)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_deleteAll(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
    keys: JByteArray,
) -> jint {
    call(&mut env, 0, |env| {
        let column = unsafe { borrow::<ColumnFamilyHandle>(column)? };
        let keys = env.convert_byte_array(&keys)?;
        Ok(column.delete_all(&keys)? as jint)
    })
}

/// The integer property, or -1 when RocksDB does not know the name.
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_columnFamilyIntProperty(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
    name: JString,
) -> jlong {
    call(&mut env, -1, |env| {
        let column = unsafe { borrow::<ColumnFamilyHandle>(column)? };
        let name: String = env.get_string(&name)?.into();
        Ok(column.int_property(&name)?.map_or(-1, |v| v as jlong))
    })
}

/// The greatest key under `prefix` (and below `before`, unless null), or null.
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_lastKeyWithPrefix(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
    prefix: JByteArray,
    before: JByteArray,
) -> jbyteArray {
    call(&mut env, std::ptr::null_mut(), |env| {
        let column = unsafe { borrow::<ColumnFamilyHandle>(column)? };
        let prefix = env.convert_byte_array(&prefix)?;
        let before = if before.is_null() { None } else { Some(env.convert_byte_array(&before)?) };
        match column.last_key_with_prefix(&prefix, before.as_deref())? {
            Some(key) => to_java(env, &key),
            None => Ok(std::ptr::null_mut()),
        }
    })
}
