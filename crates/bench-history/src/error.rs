//! What can go wrong with a history, as facts (the binary words the remedies).

use std::path::PathBuf;

/// An error of the history store, its records or its queries. Every message names the
/// file; none names a command-line flag.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// The file is not an abba history (or one this version cannot read); it was not
    /// modified.
    #[error("{}: {reason}; it is left untouched", path.display())]
    NotOurs {
        /// The file.
        path: PathBuf,
        /// What it is instead: not SQLite, another program's database, damaged, newer.
        reason: String,
    },
    /// Reading needs a store and there is none at the path.
    #[error("{}: no history there yet", path.display())]
    Missing {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The file is empty (0 bytes, or an SQLite database without abba's schema): no
    /// history has been recorded into it.
    #[error("{}: an empty file, not a history (nothing recorded into it yet)", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The directory a new history would be created in does not exist (it is not created).
    #[error("{}: its directory {} does not exist (create it first)", path.display(), parent.display())]
    NoDirectory {
        /// The path.
        path: PathBuf,
        /// Its missing parent directory.
        parent: PathBuf,
    },
    /// The store (or its directory) cannot be written: read-only storage. Reading it works.
    #[error(
        "{}: the history is on read-only storage (the file or its directory cannot be written){}; reading it works",
        path.display(),
        migrate_from.map(|v| format!(", and it needs migrating from schema {v} to {} before this abba can record into it", crate::schema_version())).unwrap_or_default()
    )]
    ReadOnly {
        /// The store.
        path: PathBuf,
        /// The schema version of a store that needed migrating first.
        migrate_from: Option<i32>,
    },
    /// The path is a directory.
    #[error("{}: is a directory, not a history file", path.display())]
    IsDirectory {
        /// The path.
        path: PathBuf,
    },
    /// A component of the path that should be a directory is a file.
    #[error("{}: {} is not a directory, so the history cannot be created there", path.display(), parent.display())]
    NotADirectory {
        /// The path.
        path: PathBuf,
        /// Its ancestor that is not a directory.
        parent: PathBuf,
    },
    /// The file's metadata cannot be read.
    #[error("{}: {source}", path.display())]
    Metadata {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file cannot be opened to check it.
    #[error("{}: cannot be opened: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The store's directory cannot be created.
    #[error("{}: cannot create the history's directory: {source}", path.display())]
    CreateDirectory {
        /// The store.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// SQLite failed; a record in progress is not kept.
    #[error("{}: the history database cannot be read or written: {source}", path.display())]
    Sql {
        /// The store.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// The store's file system does not allow write-ahead logging.
    #[error("{}: the history cannot use write-ahead logging (journal mode {mode})", path.display())]
    NoWriteAheadLog {
        /// The store.
        path: PathBuf,
        /// The journal mode SQLite kept.
        mode: String,
    },
    /// No benchmark of that name (and metric) is recorded.
    #[error(
        "{}: no benchmark {name}{} in the history (it has: {})",
        path.display(),
        metric.as_deref().map(|m| format!(" of metric {m}")).unwrap_or_default(),
        if known.is_empty() { "none".to_owned() } else { known.join(", ") }
    )]
    UnknownBenchmark {
        /// The store.
        path: PathBuf,
        /// The name asked for.
        name: String,
        /// The metric asked for, if any.
        metric: Option<String>,
        /// Every benchmark it has.
        known: Vec<String>,
    },
    /// A series' start is neither a date nor one of its recorded commits.
    #[error("{since}: neither a date (YYYY-MM-DD) nor a recorded commit of {benchmark}")]
    UnknownSince {
        /// The start asked for.
        since: String,
        /// The benchmark.
        benchmark: String,
    },
    /// The change points' options or values are invalid.
    #[error("change points: {0}")]
    ChangePoints(#[source] bench_stats::StatsError),
    /// A raw file with nothing to record.
    #[error("{file}: no successful runs to record")]
    NothingToRecord {
        /// The raw file, as named.
        file: String,
    },
    /// A raw file whose analysis failed.
    #[error("{file}: {message}")]
    Analysis {
        /// The raw file, as named.
        file: String,
        /// The analysis' error.
        message: String,
    },
    /// No commit is known: outside git (or before the first commit) with none given.
    #[error("no git commit here (not in a git repository, or no commit yet)")]
    NoCommit,
    /// A record's label (a commit, base commit, branch or benchmark name) cannot be kept.
    #[error("{which} {value:?}: {reason}")]
    Label {
        /// Which label (`commit`, `base-commit`, `branch`, `bench`).
        which: &'static str,
        /// The label as given.
        value: String,
        /// Why: empty, or holding a control character.
        reason: &'static str,
    },
}
