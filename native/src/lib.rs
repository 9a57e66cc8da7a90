//! Native core of the StreamFusion state backend for Apache Flink.
//!
//! Everything except [`jni`] is plain Rust with no JVM dependency, so it is tested with
//! `cargo test`. The [`jni`] module is the only place that knows about Java: it converts
//! arguments, turns errors and panics into Java exceptions, and owns the handle protocol.

pub mod abi;
pub mod batch;
pub mod checkpoint;
pub mod columnar;
pub mod error;
pub mod index_layout;
pub mod jni;
pub mod kept_iterator;
pub mod memory;
pub mod rescale;
pub mod scan;
pub mod store;
pub mod ttl;
pub mod word_hash;
pub mod write_back;

#[cfg(test)]
mod point_read_throughput;
#[cfg(test)]
mod test_support;

pub use error::NativeError;
