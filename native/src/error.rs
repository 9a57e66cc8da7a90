//! Errors as values. The JNI layer turns each into a Java exception with this message.

use std::fmt;

/// Everything that can go wrong in the native core.
#[derive(Debug)]
pub enum NativeError {
    /// RocksDB returned a non-OK status; the text is RocksDB's own.
    RocksDb(rocksdb::Error),
    /// The Java and native sides were built from different versions.
    AbiMismatch { java: String, native: String },
    /// A caller passed something the native side cannot use.
    InvalidArgument(String),
    /// An invariant of the native side or of its Java caller broke: a bug, not bad input.
    Internal(String),
    /// An encoded batch did not follow the batch format.
    CorruptBatch(String),
    /// The bytes of a `BinaryRowData`, from a batch or from state, do not hold a valid row.
    CorruptRow(String),
    /// A stored state value does not have the layout of its state.
    CorruptState(String),
    /// A call back into the JVM (a TTL clock or list scanner) failed.
    Callback(String),
    /// Arrow refused data that crossed the C Data Interface, or that a kernel built.
    Arrow(arrow::error::ArrowError),
}

impl fmt::Display for NativeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NativeError::RocksDb(e) => write!(f, "RocksDB error: {e}"),
            NativeError::AbiMismatch { java, native } => write!(
                f,
                "StreamFusion ABI mismatch: the Java side has '{java}', the native library has \
                 '{native}'. Rebuild both from the same source tree (mvn package)."
            ),
            NativeError::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
            NativeError::Internal(m) => write!(f, "internal error in StreamFusion's native library: {m}"),
            NativeError::CorruptBatch(m) => write!(f, "corrupt entry batch: {m}"),
            NativeError::CorruptRow(m) => write!(f, "corrupt row bytes: {m}"),
            NativeError::CorruptState(m) => write!(
                f,
                "corrupt state entry: {m}. The stored state is damaged; restore the job from an earlier \
                 checkpoint or a savepoint"
            ),
            NativeError::Callback(m) => write!(f, "callback into the JVM failed: {m}"),
            NativeError::Arrow(e) => write!(f, "Arrow error: {e}"),
        }
    }
}

impl std::error::Error for NativeError {}

impl From<rocksdb::Error> for NativeError {
    fn from(e: rocksdb::Error) -> Self {
        NativeError::RocksDb(e)
    }
}

impl From<arrow::error::ArrowError> for NativeError {
    fn from(e: arrow::error::ArrowError) -> Self {
        NativeError::Arrow(e)
    }
}

pub type Result<T> = std::result::Result<T, NativeError>;
