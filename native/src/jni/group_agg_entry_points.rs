//! `native` methods of `NativeMethods` for the group aggregator; batches and results cross as
//! in [`columnar_entry_points`](super::columnar_entry_points).

use jni::objects::{JByteBuffer, JClass, JIntArray, JLongArray};
use jni::sys::{jboolean, jint, jlong, JNI_TRUE};
use jni::JNIEnv;

use super::columnar_entry_points::{
    check_schema, key_group_layout, reserve_kernel_memory, run_batch, CachingKernel, WithStats,
};
use super::guard::{call, CallResult};
use super::handles::{borrow, borrow_mut, free, into_handle, ColumnFamilyHandle, GroupAggregatorHandle};
use crate::columnar::batch_keys;
use crate::columnar::group_agg::element_tables::ElementTable;
use crate::columnar::group_agg::functions::{AggregateCall, Function};
use crate::columnar::group_agg::{GroupAggConfig, GroupAggregator};
use crate::columnar::sort_key::FieldType;
use crate::error::NativeError;
use crate::store::StateColumnFamily;

/// Ints per aggregate call in `openGroupAggregator`'s array: function code, argument position,
/// argument type code, FILTER position (-1 for an absent argument or FILTER), a DECIMAL
/// argument's precision and scale (0 for other types), and the element table it keeps (-1 for
/// none).
const CALL_INTS: usize = 7;

impl CachingKernel for GroupAggregator {
    fn cache_stats(&self) -> (u64, u64) {
        GroupAggregator::cache_stats(self)
    }

    fn reserved_bytes(&self) -> usize {
        GroupAggregator::reserved_bytes(self)
    }
}

fn position(value: jint) -> Option<usize> {
    usize::try_from(value).ok()
}

fn calls(env: &mut JNIEnv, encoded: &JIntArray) -> CallResult<Vec<AggregateCall>> {
    let len = env.get_array_length(encoded)? as usize;
    let mut ints = vec![0; len];
    env.get_int_array_region(encoded, 0, &mut ints)?;
    if !len.is_multiple_of(CALL_INTS) {
        return Err(NativeError::Internal(format!("{len} ints do not describe whole aggregate calls")).into());
    }
    let calls = ints
        .chunks_exact(CALL_INTS)
        .map(|c| {
            let argument = match position(c[1]) {
                Some(position) => Some((position, FieldType::from_code(c[2])?)),
                None => None,
            };
            let decimal = match (u8::try_from(c[4]), u8::try_from(c[5])) {
                (Ok(precision), Ok(scale)) if precision > 0 => Some((precision, scale)),
                _ => None,
            };
            Ok(AggregateCall {
                function: Function::from_code(c[0])?,
                argument,
                filter: position(c[3]),
                decimal,
                table: position(c[6]),
            })
        })
        .collect::<Result<Vec<_>, NativeError>>()?;
    Ok(calls)
}

/// The element tables of `encoded`: per table, the handle of its map's column family and that of
/// its NULL element's value state (0 for none).
fn element_tables(env: &mut JNIEnv, encoded: &JLongArray) -> CallResult<Vec<ElementTable>> {
    let len = env.get_array_length(encoded)? as usize;
    let mut handles = vec![0; len];
    env.get_long_array_region(encoded, 0, &mut handles)?;
    if !len.is_multiple_of(2) {
        return Err(NativeError::Internal(format!("{len} handles do not describe whole element tables")).into());
    }
    let column_family = |handle: jlong| -> CallResult<StateColumnFamily> {
        // SAFETY: Java passes the handles of open NativeColumnFamily objects.
        Ok(unsafe { borrow::<ColumnFamilyHandle>(handle)? }.clone())
    };
    handles
        .chunks_exact(2)
        .map(|pair| {
            Ok(ElementTable {
                map: column_family(pair[0])?,
                nulls: if pair[1] == 0 { None } else { Some(column_family(pair[1])?) },
            })
        })
        .collect()
}

/// Opens an aggregator over the accumulators in `column_family` and the element tables
/// `encoded_tables` (see [`element_tables`]), reserving its memory as a ranker does. `count_star_field` below 0 means the input never retracts; `merged_from` below 0
/// means the input rows are accumulated, not merged; `per_key_runs` aggregates each key's run of
/// rows as one; `ttl_millis` of 0 or less means no TTL. `stats_buffer` is a direct buffer of three native-order longs.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_openGroupAggregator(
    mut env: JNIEnv,
    _class: JClass,
    column_family: jlong,
    encoded_tables: JLongArray,
    input_arity: jint,
    encoded_calls: JIntArray,
    value_arity: jint,
    count_star_field: jint,
    merged_from: jint,
    per_key_runs: jboolean,
    generate_update_before: jboolean,
    cache_bytes: jlong,
    batch_memory_bytes: jlong,
    ttl_millis: jlong,
    key_group_prefix_bytes: jint,
    max_parallelism: jint,
    first_key_group: jint,
    last_key_group: jint,
    batch_schema: jlong,
    stats_buffer: JByteBuffer,
) -> jlong {
    call(&mut env, 0, |env| {
        check_schema(batch_schema, &batch_keys::batch_type())?;
        let column_family = unsafe { borrow::<ColumnFamilyHandle>(column_family)? }.clone();
        let arity = |value: jint, what: &str| {
            usize::try_from(value).map_err(|_| NativeError::Internal(format!("{what} {value}")))
        };
        let config = GroupAggConfig {
            input_arity: arity(input_arity, "input arity")?,
            calls: calls(env, &encoded_calls)?,
            value_arity: arity(value_arity, "value arity")?,
            count_star_field: position(count_star_field),
            merged_from: position(merged_from),
            per_key_runs: per_key_runs == JNI_TRUE,
            ttl_millis: (ttl_millis > 0).then_some(ttl_millis),
            generate_update_before: generate_update_before == JNI_TRUE,
            layout: key_group_layout(key_group_prefix_bytes, max_parallelism, first_key_group, last_key_group)?,
        };
        let (reservation, cache) = reserve_kernel_memory(&column_family, cache_bytes, batch_memory_bytes);
        let tables = element_tables(env, &encoded_tables)?;
        let aggregator = GroupAggregator::new(column_family, config, tables, cache, reservation)?;
        Ok(into_handle::<GroupAggregatorHandle>(WithStats::new(env, aggregator, &stats_buffer)?))
    })
}

/// Aggregates the batch exported at `batch_array` and exports the result into `result_array` and
/// `result_schema`.
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_aggregateGroupBatch(
    mut env: JNIEnv,
    _class: JClass,
    aggregator: jlong,
    batch_array: jlong,
    result_array: jlong,
    result_schema: jlong,
    now_millis: jlong,
) {
    // SAFETY: Java passes the handle of its NativeGroupAggregator.
    unsafe {
        run_batch(
            &mut env,
            aggregator,
            batch_array,
            result_array,
            result_schema,
            |aggregator: &mut GroupAggregatorHandle, batch| {
                aggregator.run(|kernel| kernel.aggregate(batch, now_millis))
            },
        )
    }
}

/// Writes the accumulators the aggregator's cache holds unwritten.
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_flushGroupAggregator(
    mut env: JNIEnv,
    _class: JClass,
    aggregator: jlong,
) {
    call(&mut env, (), |_| {
        let aggregator = unsafe { borrow_mut::<GroupAggregatorHandle>(aggregator)? };
        Ok(aggregator.kernel.flush()?)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_closeGroupAggregator(
    mut env: JNIEnv,
    _class: JClass,
    aggregator: jlong,
) {
    call(&mut env, (), |_| {
        unsafe { free::<GroupAggregatorHandle>(aggregator) };
        Ok(())
    })
}
