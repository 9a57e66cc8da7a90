//! `native` methods of `NativeMethods` for TTL background cleanup.

use std::sync::Arc;

use jni::objects::{JClass, JObject};
use jni::sys::{jint, jlong};
use jni::JNIEnv;

use super::guard::call;
use super::handles::{borrow, ColumnFamilyHandle};
use super::ttl_callbacks::{JavaClock, JavaListScanner};
use crate::abi::ttl_layout;
use crate::error::NativeError;
use crate::ttl::{ListElementScanner, TtlFilterConfig, TtlStateLayout};

/// Layout codes of `TtlCompactionFilterSpec.Layout`, defined in `abi`; 0 switches the filter off.
fn layout(code: jint, element_bytes: jint) -> Result<Option<TtlStateLayout>, NativeError> {
    Ok(Some(match code {
        ttl_layout::NONE => return Ok(None),
        ttl_layout::VALUE => TtlStateLayout::Value,
        ttl_layout::MAP => TtlStateLayout::Map,
        ttl_layout::FIXED_ELEMENT_LIST => TtlStateLayout::FixedElementList {
            element_bytes: usize::try_from(element_bytes)
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| NativeError::InvalidArgument(format!("list element length {element_bytes}")))?,
        },
        ttl_layout::VARIABLE_ELEMENT_LIST => TtlStateLayout::VariableElementList,
        other => return Err(NativeError::Internal(format!("unknown TTL layout code {other}"))),
    }))
}

/// `periodic_seconds` below zero leaves RocksDB's periodic compaction setting as it is.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_configureTtlCompactionFilter(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
    layout_code: jint,
    element_bytes: jint,
    ttl_millis: jlong,
    query_time_after_entries: jlong,
    periodic_seconds: jlong,
    clock: JObject,
    list_scanner: JObject,
) {
    call(&mut env, (), |env| {
        let column = unsafe { borrow::<ColumnFamilyHandle>(column)? };
        let config = match layout(layout_code, element_bytes)? {
            None => None,
            Some(layout) => {
                let list_scanner: Option<Arc<dyn ListElementScanner>> = if list_scanner.is_null() {
                    None
                } else {
                    Some(Arc::new(JavaListScanner::new(env, &list_scanner)?))
                };
                if layout == TtlStateLayout::VariableElementList && list_scanner.is_none() {
                    return Err(NativeError::Internal("a variable-length list needs a list scanner".into()).into());
                }
                Some(TtlFilterConfig {
                    layout,
                    ttl_millis,
                    query_time_after_entries: query_time_after_entries.max(1) as u64,
                    clock: Arc::new(JavaClock::new(env, &clock)?),
                    list_scanner,
                })
            }
        };
        let periodic = u64::try_from(periodic_seconds).ok();
        Ok(column.store().configure_ttl(column.name(), config, periodic)?)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_streamfusion_backend_nativelib_NativeMethods_compactColumnFamily(
    mut env: JNIEnv,
    _class: JClass,
    column: jlong,
) {
    call(&mut env, (), |_| Ok(unsafe { borrow::<ColumnFamilyHandle>(column)? }.compact()?))
}
