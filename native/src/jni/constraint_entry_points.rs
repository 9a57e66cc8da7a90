//! `native` methods of `NativeMethods` for the sink constraint enforcer (see
//! `columnar::constraints`). Batches and results cross as for the Top-1 ranker; the enforcer
//! holds no state and no store.

use jni::objects::{JClass, JIntArray};
use jni::sys::{jint, jlong};
use jni::JNIEnv;

use super::columnar_entry_points::{check_schema, run_batch};
use super::guard::{call, CallResult};
use super::handles::{free, into_handle, SinkConstraintsHandle};
use crate::columnar::batch_keys;
use crate::columnar::constraints::{ConstraintSpec, LengthField, LengthMode, NotNullMode, SinkConstraints};
use crate::error::NativeError;

/// `notNullMode` codes: `NotNullEnforcer` ordinals.
const NOT_NULL_ERROR: jint = 0;
const NOT_NULL_DROP: jint = 1;
/// `lengthMode` codes: `TypeLengthEnforcer` ordinals (IGNORE creates no length fields).
const LENGTH_TRIM_PAD: jint = 1;
const LENGTH_ERROR: jint = 2;

fn ints(env: &mut JNIEnv, array: &JIntArray) -> CallResult<Vec<usize>> {
    let len = env.get_array_length(array)? as usize;
    let mut values = vec![0; len];
    env.get_int_array_region(array, 0, &mut values)?;
    Ok(values
        .into_iter()
        .map(|v| usize::try_from(v).map_err(|_| NativeError::InvalidArgument(format!("negative field value {v}"))))
        .collect::<Result<_, _>>()?)
}

/// Length fields as (position, length, pad 0/1) triples.
fn length_fields(env: &mut JNIEnv, array: &JIntArray) -> CallResult<Vec<LengthField>> {
    let values = ints(env, array)?;
    if !values.len().is_multiple_of(3) {
        return Err(NativeError::Internal(format!("{} ints do not describe whole length fields", values.len())).into());
    }
    Ok(values.chunks_exact(3).map(|f| LengthField { position: f[0], length: f[1], pad: f[2] != 0 }).collect())
}

/// Opens an enforcer of rows of `arity` fields.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_openSinkConstraints(
    mut env: JNIEnv,
    _class: JClass,
    arity: jint,
    not_null_fields: JIntArray,
    not_null_mode: jint,
    char_fields: JIntArray,
    binary_fields: JIntArray,
    length_mode: jint,
    variable_fields: JIntArray,
    batch_schema: jlong,
) -> jlong {
    call(&mut env, 0, |env| {
        check_schema(batch_schema, &batch_keys::batch_type())?;
        let spec = ConstraintSpec {
            arity: usize::try_from(arity).map_err(|_| NativeError::Internal(format!("row arity {arity}")))?,
            not_null: ints(env, &not_null_fields)?,
            not_null_mode: match not_null_mode {
                NOT_NULL_ERROR => NotNullMode::Error,
                NOT_NULL_DROP => NotNullMode::Drop,
                other => return Err(NativeError::Internal(format!("not-null mode {other}")).into()),
            },
            char_fields: length_fields(env, &char_fields)?,
            binary_fields: length_fields(env, &binary_fields)?,
            length_mode: match length_mode {
                LENGTH_TRIM_PAD => LengthMode::TrimPad,
                LENGTH_ERROR => LengthMode::Error,
                other => return Err(NativeError::Internal(format!("length mode {other}")).into()),
            },
            variable_fields: ints(env, &variable_fields)?,
        };
        Ok(into_handle::<SinkConstraintsHandle>(SinkConstraints::new(spec)?))
    })
}

/// Enforces the constraints on the batch exported at `batch_array` and exports the result into
/// `result_array` and `result_schema`.
#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_enforceSinkConstraints(
    mut env: JNIEnv,
    _class: JClass,
    constraints: jlong,
    batch_array: jlong,
    result_array: jlong,
    result_schema: jlong,
) {
    // SAFETY: Java passes the handle of its NativeSinkConstraints.
    unsafe {
        run_batch(
            &mut env,
            constraints,
            batch_array,
            result_array,
            result_schema,
            |constraints: &mut SinkConstraintsHandle, batch| constraints.enforce(batch),
        )
    }
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_closeSinkConstraints(
    mut env: JNIEnv,
    _class: JClass,
    constraints: jlong,
) {
    call(&mut env, (), |_| {
        unsafe { free::<SinkConstraintsHandle>(constraints) };
        Ok(())
    })
}
