//! `native` methods of `NativeMethods` for the columnar kernels. Batches and results cross
//! through the Arrow C Data Interface: Java passes the addresses of `ArrowArray` and
//! `ArrowSchema` structs. An imported batch is owned here from the first line of a call, so it is
//! released exactly once whether the call succeeds or fails; a result is moved into structs that
//! Java allocated and then owns.

use arrow::array::{Array, StructArray};
use arrow::datatypes::DataType;
use arrow::ffi::{from_ffi_and_data_type, FFI_ArrowArray, FFI_ArrowSchema};
use jni::objects::{GlobalRef, JByteBuffer, JClass, JIntArray};
use jni::sys::{jboolean, jint, jlong, JNI_TRUE};
use jni::JNIEnv;

use super::guard::{call, CallResult};
use super::handles::{borrow, borrow_mut, free, into_handle, ColumnFamilyHandle, Top1RankerHandle};
use crate::columnar::batch_keys;
use crate::columnar::emitted_guard::EmittedGuard;
use crate::columnar::key_groups::KeyGroupLayout;
use crate::columnar::sort_key::{FieldType, SortField, SortKey};
use crate::columnar::top1::{self, KeptValue, Replacement, Top1Config, Top1Ranker};
use crate::error::NativeError;
use crate::memory::MemoryReservation;
use crate::store::StateColumnFamily;

/// Ints per sort field in `openTop1Ranker`'s array: position, type code, ascending, nulls last.
const SORT_FIELD_INTS: usize = 4;

/// Longs in a kernel's statistics block: cache hits, cache misses, reserved bytes.
const STATS_LONGS: usize = 3;

/// A kernel with a cache, which it reports on after every batch.
pub(super) trait CachingKernel {
    /// Cache hits and misses since the kernel was opened.
    fn cache_stats(&self) -> (u64, u64);
    /// Bytes of the slot budget the kernel holds.
    fn reserved_bytes(&self) -> usize;
}

impl CachingKernel for Top1Ranker {
    fn cache_stats(&self) -> (u64, u64) {
        Top1Ranker::cache_stats(self)
    }

    fn reserved_bytes(&self) -> usize {
        Top1Ranker::reserved_bytes(self)
    }
}

/// A kernel and the Java direct buffer it reports its statistics in after every batch, so that
/// metric threads read them without calling into the library (and never race a batch or a close).
pub(super) struct WithStats<K> {
    pub(super) kernel: K,
    stats: *mut u64,
    // Keeps the buffer, and so `stats`, alive for as long as the kernel.
    _stats_buffer: GlobalRef,
}

impl<K: CachingKernel> WithStats<K> {
    /// Pairs `kernel` with `stats_buffer`, a direct buffer of three aligned native-order longs.
    pub(super) fn new(env: &mut JNIEnv, kernel: K, stats_buffer: &JByteBuffer) -> CallResult<WithStats<K>> {
        let stats = env.get_direct_buffer_address(stats_buffer)?;
        if env.get_direct_buffer_capacity(stats_buffer)? < STATS_LONGS * 8 || !(stats as usize).is_multiple_of(8) {
            return Err(NativeError::Internal("a kernel's statistics need 24 aligned bytes".into()).into());
        }
        let with_stats =
            WithStats { kernel, stats: stats as *mut u64, _stats_buffer: env.new_global_ref(stats_buffer)? };
        with_stats.publish_stats();
        Ok(with_stats)
    }

    /// Runs `batch` on the kernel, then publishes its statistics.
    pub(super) fn run<R>(&mut self, batch: impl FnOnce(&mut K) -> Result<R, NativeError>) -> Result<R, NativeError> {
        let result = batch(&mut self.kernel)?;
        self.publish_stats();
        Ok(result)
    }

    pub(super) fn publish_stats(&self) {
        let (hits, misses) = self.kernel.cache_stats();
        let values = [hits, misses, self.kernel.reserved_bytes() as u64];
        for (i, value) in values.into_iter().enumerate() {
            // SAFETY: `stats` points at STATS_LONGS aligned longs of a direct buffer this struct keeps
            // alive; readers on other threads only need each long whole, which aligned stores give.
            unsafe { std::ptr::write_volatile(self.stats.add(i), value) };
        }
    }
}

pub(super) fn pointer<T>(address: jlong, what: &str) -> Result<*mut T, NativeError> {
    if address == 0 || !(address as usize).is_multiple_of(std::mem::align_of::<T>()) {
        return Err(NativeError::Internal(format!("bad address {address:#x} of {what}")));
    }
    Ok(address as *mut T)
}

/// Fails unless the exported schema at `address` is `expected` (names and types; nullability
/// aside). The schema is released either way.
pub(super) fn check_schema(address: jlong, expected: &DataType) -> Result<(), NativeError> {
    // SAFETY: Java exported a valid ArrowSchema at this address for this call; from_raw moves it
    // out, so it is released exactly once, when `schema` drops.
    let schema = unsafe { FFI_ArrowSchema::from_raw(pointer(address, "a batch schema")?) };
    let actual = DataType::try_from(&schema)?;
    let same = match (&actual, expected) {
        (DataType::Struct(a), DataType::Struct(e)) => {
            a.len() == e.len()
                && a.iter().zip(e.iter()).all(|(a, e)| a.name() == e.name() && a.data_type() == e.data_type())
        }
        _ => false,
    };
    if same {
        Ok(())
    } else {
        Err(NativeError::Internal(format!("batches of type {actual} where {expected} was expected")))
    }
}

/// The key-group layout Java describes with these four ints.
pub(super) fn key_group_layout(
    prefix_bytes: jint,
    max_parallelism: jint,
    first_key_group: jint,
    last_key_group: jint,
) -> Result<KeyGroupLayout, NativeError> {
    let non_negative = |v: jint, what: &str| u32::try_from(v).map_err(|_| NativeError::Internal(format!("{what} {v}")));
    KeyGroupLayout::new(
        prefix_bytes as usize,
        non_negative(max_parallelism, "maximum parallelism")?,
        non_negative(first_key_group, "first key group")?,
        non_negative(last_key_group, "last key group")?,
    )
}

/// Takes over the batch Java exported at `batch_array`: it is released exactly once, when the
/// returned array's last buffer drops, whatever happens next.
pub(super) fn import_batch(batch_array: jlong) -> Result<StructArray, NativeError> {
    // SAFETY: Java exported a valid ArrowArray of a batch at this address for this call;
    // from_raw moves it out, so it is released exactly once, when its last Arrow buffer drops.
    let array = unsafe { FFI_ArrowArray::from_raw(pointer(batch_array, "a batch")?) };
    // SAFETY: the data type is the batch type checked against Java's schema at open.
    let data = unsafe { from_ffi_and_data_type(array, batch_keys::batch_type())? };
    data.validate_full()?;
    Ok(StructArray::from(data))
}

/// The body of every per-batch entry point: runs `kernel` on the object behind `handle` with the
/// batch exported at `batch_array`, and exports its result into `result_array` and
/// `result_schema`. The batch is released exactly once, whatever the kernel does.
///
/// # Safety
/// `handle` must be a live handle of a `T` (see [`borrow_mut`]).
pub(super) unsafe fn run_batch<T>(
    env: &mut JNIEnv,
    handle: jlong,
    batch_array: jlong,
    result_array: jlong,
    result_schema: jlong,
    kernel: impl FnOnce(&mut T, &StructArray) -> Result<StructArray, NativeError>,
) {
    call(env, (), |_| {
        let batch = import_batch(batch_array)?;
        let target = unsafe { borrow_mut::<T>(handle)? };
        Ok(export_result(kernel(target, &batch)?, result_array, result_schema)?)
    })
}

/// Moves `result` into the empty structs Java allocated at these addresses; Java owns it then.
pub(super) fn export_result(result: StructArray, result_array: jlong, result_schema: jlong) -> Result<(), NativeError> {
    let data = result.to_data();
    let schema = FFI_ArrowSchema::try_from(data.data_type())?;
    let (array_out, schema_out) = (
        pointer::<FFI_ArrowArray>(result_array, "a result")?,
        pointer::<FFI_ArrowSchema>(result_schema, "a result schema")?,
    );
    // SAFETY: Java allocated both structs empty for this call; writing moves the result's
    // ownership to Java, which releases it when it closes the imported vectors.
    unsafe {
        std::ptr::write(array_out, FFI_ArrowArray::new(&data));
        std::ptr::write(schema_out, schema);
    }
    Ok(())
}

/// Reserves a kernel's cache and the operator's batch memory from the slot budget, as
/// [`SlotMemory::reserve_for_kernel`](crate::memory::SlotMemory::reserve_for_kernel) does. Returns
/// the reservation and the cache bytes it covers.
pub(super) fn reserve_kernel_memory(
    column_family: &StateColumnFamily,
    cache_bytes: jlong,
    batch_memory_bytes: jlong,
) -> (Option<MemoryReservation>, usize) {
    let (cache, batches) = (cache_bytes.max(0) as usize, batch_memory_bytes.max(0) as usize);
    column_family.store().memory().reserve_for_kernel(cache, batches)
}

fn sort_key(env: &mut JNIEnv, fields: &JIntArray, arity: usize) -> CallResult<SortKey> {
    let len = env.get_array_length(fields)? as usize;
    let mut ints = vec![0; len];
    env.get_int_array_region(fields, 0, &mut ints)?;
    if !len.is_multiple_of(SORT_FIELD_INTS) {
        return Err(NativeError::Internal(format!("{len} ints do not describe whole sort fields")).into());
    }
    let fields = ints
        .chunks_exact(SORT_FIELD_INTS)
        .map(|f| {
            Ok(SortField {
                position: usize::try_from(f[0])
                    .map_err(|_| NativeError::Internal(format!("sort field position {}", f[0])))?,
                field_type: FieldType::from_code(f[1])?,
                ascending: f[2] != 0,
                nulls_last: f[3] != 0,
            })
        })
        .collect::<Result<Vec<_>, NativeError>>()?;
    Ok(SortKey::new(fields, arity)?)
}

/// Opens a ranker over the state in `column_family`, reserving its memory with
/// [`reserve_kernel_memory`]. `ttl_millis` of 0 or less means no TTL. A non-zero
/// `emitted_column_family` holds the emitted flags (TTL `emitted_ttl_millis`, likewise) of a
/// ranker whose winners wait for timers. `stats_buffer` is a direct buffer of three native-order
/// longs the ranker keeps its statistics in.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_openTop1Ranker(
    mut env: JNIEnv,
    _class: JClass,
    column_family: jlong,
    arity: jint,
    sort_fields: JIntArray,
    replacement: jint,
    keeps_rows: jboolean,
    return_replaced: jboolean,
    restamps_seen_keys: jboolean,
    cache_bytes: jlong,
    batch_memory_bytes: jlong,
    ttl_millis: jlong,
    emitted_column_family: jlong,
    emitted_ttl_millis: jlong,
    key_group_prefix_bytes: jint,
    max_parallelism: jint,
    first_key_group: jint,
    last_key_group: jint,
    batch_schema: jlong,
    stats_buffer: JByteBuffer,
) -> jlong {
    call(&mut env, 0, |env| {
        check_schema(batch_schema, &top1::batch_type())?;
        let column_family = unsafe { borrow::<ColumnFamilyHandle>(column_family)? }.clone();
        let arity = usize::try_from(arity).map_err(|_| NativeError::Internal(format!("row arity {arity}")))?;
        let layout = key_group_layout(key_group_prefix_bytes, max_parallelism, first_key_group, last_key_group)?;
        let config = Top1Config {
            arity,
            sort_key: sort_key(env, &sort_fields, arity)?,
            replacement: Replacement::from_code(replacement)?,
            kept: if keeps_rows == JNI_TRUE { KeptValue::Row } else { KeptValue::SeenFlag },
            ttl_millis: (ttl_millis > 0).then_some(ttl_millis),
            return_replaced: return_replaced == JNI_TRUE,
            restamps_seen_keys: restamps_seen_keys == JNI_TRUE,
            layout,
        };
        let (reservation, cache) = reserve_kernel_memory(&column_family, cache_bytes, batch_memory_bytes);
        let mut ranker = Top1Ranker::new(column_family, config, cache, reservation)?;
        if emitted_column_family != 0 {
            let flags = unsafe { borrow::<ColumnFamilyHandle>(emitted_column_family)? }.clone();
            ranker =
                ranker.guarded_by(EmittedGuard::new(flags, (emitted_ttl_millis > 0).then_some(emitted_ttl_millis)))?;
        }
        Ok(into_handle::<Top1RankerHandle>(WithStats::new(env, ranker, &stats_buffer)?))
    })
}

/// Ranks the batch exported at `batch_array` and exports the result into `result_array` and
/// `result_schema`.
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_rankTop1Batch(
    mut env: JNIEnv,
    _class: JClass,
    ranker: jlong,
    batch_array: jlong,
    result_array: jlong,
    result_schema: jlong,
    now_millis: jlong,
) {
    // SAFETY: Java passes the handle of its NativeTop1Ranker.
    unsafe {
        run_batch(&mut env, ranker, batch_array, result_array, result_schema, |ranker: &mut Top1RankerHandle, batch| {
            ranker.run(|kernel| kernel.rank(batch, now_millis))
        })
    }
}

/// Takes the winners of the fired timers in the batch exported at `batch_array` (see
/// `Top1Ranker::take_winners`) and exports them into `result_array` and `result_schema`.
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_takeTop1Winners(
    mut env: JNIEnv,
    _class: JClass,
    ranker: jlong,
    batch_array: jlong,
    result_array: jlong,
    result_schema: jlong,
    now_millis: jlong,
) {
    // SAFETY: Java passes the handle of its NativeTop1Ranker.
    unsafe {
        run_batch(&mut env, ranker, batch_array, result_array, result_schema, |ranker: &mut Top1RankerHandle, batch| {
            ranker.run(|kernel| kernel.take_winners(batch, now_millis))
        })
    }
}

/// Writes the winners the ranker's cache holds unwritten.
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_flushTop1Ranker(
    mut env: JNIEnv,
    _class: JClass,
    ranker: jlong,
) {
    call(&mut env, (), |_| {
        // SAFETY: Java passes the handle of its NativeTop1Ranker.
        let ranker = unsafe { borrow_mut::<Top1RankerHandle>(ranker)? };
        Ok(ranker.kernel.flush()?)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_closeTop1Ranker(
    mut env: JNIEnv,
    _class: JClass,
    ranker: jlong,
) {
    call(&mut env, (), |_| {
        unsafe { free::<Top1RankerHandle>(ranker) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_batch_type_passes_the_schema_check() {
        for (data_type, ok) in [(top1::batch_type(), true), (DataType::Binary, false)] {
            let schema = Box::new(FFI_ArrowSchema::try_from(&data_type).unwrap());
            let address = Box::into_raw(schema);
            assert_eq!(check_schema(address as jlong, &top1::batch_type()).is_ok(), ok);
            // SAFETY: check_schema moved the schema out and left a released one behind.
            drop(unsafe { Box::from_raw(address) });
        }
        assert!(check_schema(0, &top1::batch_type()).is_err());
    }
}
