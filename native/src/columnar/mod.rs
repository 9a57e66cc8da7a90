//! Columnar kernels: whole Arrow batches against keyed state, one call per batch.
//!
//! The modules read Flink's binary formats directly: [`binary_row`] the bytes of a
//! `BinaryRowData`, [`key_groups`] Flink's hash of such a row and the key group and canonical
//! state key it gives, [`sort_key`] the comparison of Flink's generated sort-key comparators.
//! [`winner_cache`] is a byte-bounded cache of decoded rows, whose writes [`state_writes`] gathers,
//! [`top1`] the Top-1 ranker.
//! [`batch_keys`] finds a batch's distinct keys; [`upsert`] is the sink upsert materializer, over
//! the entries of a candidate index ([`candidate_entries`]) and Flink's notion of the same
//! candidate ([`row_identity`]).

pub mod batch_keys;
pub mod binary_row;
pub mod candidate_entries;
pub mod constraints;
pub mod emitted_guard;
pub mod frequency_sketch;
pub mod group_agg;
pub mod key_groups;
pub mod row_identity;
pub mod sort_key;
pub mod state_writes;
pub mod stored_rows;
pub mod top1;
pub mod upsert;
pub mod winner_cache;
