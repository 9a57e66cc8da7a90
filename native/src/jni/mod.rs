//! The JNI boundary: the only module that knows about Java.
//!
//! Every entry point goes through [`guard::call`], which converts errors into Java
//! exceptions and stops panics from unwinding into the JVM. Handles are `Box` pointers cast
//! to `jlong`; the Java object that holds one frees it exactly once (see `NativeHandle`).

mod columnar_entry_points;
mod constraint_entry_points;
mod entry_points;
mod group_agg_entry_points;
mod guard;
mod handles;
mod snapshot_entry_points;
mod ttl_callbacks;
mod ttl_entry_points;
mod upsert_entry_points;
