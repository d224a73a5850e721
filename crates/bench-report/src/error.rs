//! The one error type of this crate.

use std::io;
use std::path::PathBuf;

/// Why an export could not be produced or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The analysis holds a NaN or infinity in a field, which JSON cannot represent
    /// (serde_json would silently write `null`).
    #[error("cannot export the analysis: field {field} is not a finite number")]
    NonFinite {
        /// Path of the offending field, e.g. `groups[0].benchmarks[1].mean`.
        field: String,
    },
    /// The JSON serializer failed.
    #[error("cannot serialize the analysis to JSON: {0}")]
    Serialize(#[source] serde_json::Error),
    /// The destination path has no file name (it is empty, `/`, or ends in `..`).
    #[error("cannot write {}: the path does not name a file", path.display())]
    NotAFile {
        /// The path given.
        path: PathBuf,
    },
    /// An I/O step of the atomic write failed; nothing was left behind at `path`.
    #[error("cannot write {}: {action} failed: {source}", path.display())]
    Io {
        /// The destination the caller asked for.
        path: PathBuf,
        /// Which step failed: `create temporary file`, `write`, `sync`, `rename`.
        action: &'static str,
        /// The operating-system error.
        #[source]
        source: io::Error,
    },
}
