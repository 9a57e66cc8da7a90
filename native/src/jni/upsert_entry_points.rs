//! `native` methods of `NativeMethods` for the sink upsert materializer (see
//! `columnar::upsert`). Batches and results cross as for the Top-1 ranker.

use jni::objects::{JClass, JIntArray};
use jni::sys::{jint, jlong};
use jni::JNIEnv;

use super::columnar_entry_points::{check_schema, key_group_layout, reserve_kernel_memory, run_batch};
use super::guard::{call, CallResult};
use super::handles::{borrow, borrow_mut, free, into_handle, ColumnFamilyHandle, UpsertMaterializerHandle};
use crate::columnar::batch_keys;
use crate::columnar::row_identity::RowIdentity;
use crate::columnar::sort_key::FieldType;
use crate::columnar::upsert::{FlinkListFormat, FlinkListState, UpsertConfig, UpsertMaterializer, INLINE_LIMIT_BYTES};
use crate::error::NativeError;

/// `flinkListFormat` codes: none, `SinkUpsertMaterializer`'s `values`, V2's `list`.
const NO_FLINK_LIST: jint = 0;
const ROW_LIST: jint = 1;
const SEQUENCED_ROW_LIST: jint = 2;

/// The identity Java describes: no ints for whole rows, else (position, type code) per upsert
/// key field.
fn identity(env: &mut JNIEnv, fields: &JIntArray, arity: usize) -> CallResult<RowIdentity> {
    let len = env.get_array_length(fields)? as usize;
    let mut ints = vec![0; len];
    env.get_int_array_region(fields, 0, &mut ints)?;
    if len == 0 {
        return Ok(RowIdentity::WholeRow);
    }
    if !len.is_multiple_of(2) {
        return Err(NativeError::Internal(format!("{len} ints do not describe whole upsert key fields")).into());
    }
    let fields = ints
        .chunks_exact(2)
        .map(|f| match usize::try_from(f[0]) {
            Ok(position) if position < arity => Ok((position, FieldType::from_code(f[1])?)),
            _ => Err(NativeError::InvalidArgument(format!("upsert key field {} of rows of {arity} fields", f[0]))),
        })
        .collect::<Result<Vec<_>, NativeError>>()?;
    Ok(RowIdentity::Fields { arity, fields })
}

/// Opens a materializer over the candidate index in `candidates` and, unless `flink_list_format`
/// is 0, converting keys from Flink's list state in `flink_list`. Reserves its cache and batch
/// memory as [`reserve_kernel_memory`] does. `ttl_millis` of 0 or less means no TTL.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_openUpsertMaterializer(
    mut env: JNIEnv,
    _class: JClass,
    candidates: jlong,
    flink_list: jlong,
    flink_list_format: jint,
    arity: jint,
    upsert_key_fields: JIntArray,
    cache_bytes: jlong,
    batch_memory_bytes: jlong,
    ttl_millis: jlong,
    key_group_prefix_bytes: jint,
    max_parallelism: jint,
    first_key_group: jint,
    last_key_group: jint,
    batch_schema: jlong,
) -> jlong {
    call(&mut env, 0, |env| {
        check_schema(batch_schema, &batch_keys::batch_type())?;
        let candidates = unsafe { borrow::<ColumnFamilyHandle>(candidates)? }.clone();
        let format = match flink_list_format {
            NO_FLINK_LIST => None,
            ROW_LIST => Some(FlinkListFormat::RowList),
            SEQUENCED_ROW_LIST => Some(FlinkListFormat::SequencedRowList),
            other => return Err(NativeError::Internal(format!("Flink list format {other}")).into()),
        };
        let flink_list = match format {
            Some(format) => Some(FlinkListState {
                column_family: unsafe { borrow::<ColumnFamilyHandle>(flink_list)? }.clone(),
                format,
            }),
            None => None,
        };
        let arity = usize::try_from(arity).map_err(|_| NativeError::Internal(format!("row arity {arity}")))?;
        let config = UpsertConfig {
            identity: identity(env, &upsert_key_fields, arity)?,
            ttl_millis: (ttl_millis > 0).then_some(ttl_millis),
            layout: key_group_layout(key_group_prefix_bytes, max_parallelism, first_key_group, last_key_group)?,
            inline_limit_bytes: INLINE_LIMIT_BYTES,
        };
        let (reservation, cache) = reserve_kernel_memory(&candidates, cache_bytes, batch_memory_bytes);
        Ok(into_handle::<UpsertMaterializerHandle>(UpsertMaterializer::new(
            candidates,
            flink_list,
            config,
            cache,
            reservation,
        )))
    })
}

/// Materializes the batch exported at `batch_array` and exports the result into `result_array`
/// and `result_schema`.
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_materializeUpsertBatch(
    mut env: JNIEnv,
    _class: JClass,
    materializer: jlong,
    batch_array: jlong,
    result_array: jlong,
    result_schema: jlong,
    now_millis: jlong,
) {
    // SAFETY: Java passes the handle of its NativeUpsertMaterializer.
    unsafe {
        run_batch(
            &mut env,
            materializer,
            batch_array,
            result_array,
            result_schema,
            |materializer: &mut UpsertMaterializerHandle, batch| materializer.materialize(batch, now_millis),
        )
    }
}

/// Writes the inline lists the materializer's cache holds unwritten (before a checkpoint barrier).
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_flushUpsertMaterializer(
    mut env: JNIEnv,
    _class: JClass,
    materializer: jlong,
) {
    call(&mut env, (), |_| {
        // SAFETY: Java passes the handle of its NativeUpsertMaterializer.
        let materializer = unsafe { borrow_mut::<UpsertMaterializerHandle>(materializer)? };
        Ok(materializer.flush()?)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_closeUpsertMaterializer(
    mut env: JNIEnv,
    _class: JClass,
    materializer: jlong,
) {
    call(&mut env, (), |_| {
        unsafe { free::<UpsertMaterializerHandle>(materializer) };
        Ok(())
    })
}
