//! The native objects Java holds by `jlong` handles, each kind named once here, and the
//! conversions between handles and the objects they own.

use std::sync::Arc;

use jni::sys::jlong;

use crate::error::NativeError;
use crate::memory::SlotMemory;
use crate::scan::KeyGroupScan;
use crate::store::{KeyedStore, StateColumnFamily};

/// `NativeSlotMemory`: a slot's block cache and write-buffer manager, shared by its stores.
pub(super) type SlotMemoryHandle = Arc<SlotMemory>;
/// `NativeStore`: one keyed backend's RocksDB instance.
pub(super) type StoreHandle = Arc<KeyedStore>;
/// `NativeColumnFamily`: one registered state's column family.
pub(super) type ColumnFamilyHandle = StateColumnFamily;
/// `NativeKeyGroupScan`: a point-in-time scan in key-group order.
pub(super) type ScanHandle = KeyGroupScan;
/// `NativeTop1Ranker`: one Top-1 operator instance's ranker, with its statistics block.
pub(super) type Top1RankerHandle = super::columnar_entry_points::WithStats<crate::columnar::top1::Top1Ranker>;
/// `NativeGroupAggregator`: one group aggregate operator instance's aggregator, with its statistics block.
pub(super) type GroupAggregatorHandle =
    super::columnar_entry_points::WithStats<crate::columnar::group_agg::GroupAggregator>;
/// `NativeUpsertMaterializer`: one sink upsert materializer instance.
pub(super) type UpsertMaterializerHandle = crate::columnar::upsert::UpsertMaterializer;
/// `NativeSinkConstraints`: one constraint enforcer instance.
pub(super) type SinkConstraintsHandle = crate::columnar::constraints::SinkConstraints;

/// Moves `value` to the heap and returns its address as a handle.
pub(super) fn into_handle<T>(value: T) -> jlong {
    Box::into_raw(Box::new(value)) as jlong
}

/// Borrows the object behind a live handle.
///
/// # Safety
/// `handle` must come from [`into_handle::<T>`] and not have been passed to [`free`]. The Java
/// side guarantees this: `NativeHandle` refuses use after close and closes once.
pub(super) unsafe fn borrow<'a, T>(handle: jlong) -> Result<&'a T, NativeError> {
    if handle == 0 {
        return Err(NativeError::Internal("null native handle".to_owned()));
    }
    Ok(&*(handle as *const T))
}

/// Like [`borrow`], mutably. The Java owner serialises calls on the same handle.
///
/// # Safety
/// As for [`borrow`], and no other reference to the object may be live.
pub(super) unsafe fn borrow_mut<'a, T>(handle: jlong) -> Result<&'a mut T, NativeError> {
    if handle == 0 {
        return Err(NativeError::Internal("null native handle".to_owned()));
    }
    Ok(&mut *(handle as *mut T))
}

/// Drops the object behind a handle. A zero handle is ignored.
///
/// # Safety
/// `handle` must come from [`into_handle::<T>`] and must not be used afterwards.
pub(super) unsafe fn free<T>(handle: jlong) {
    if handle != 0 {
        drop(Box::from_raw(handle as *mut T));
    }
}
