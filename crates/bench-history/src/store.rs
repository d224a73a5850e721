//! The history store: one SQLite file (`rusqlite`, SQLite bundled), opened, checked and
//! migrated. The schema lives in [`MIGRATIONS`](crate::MIGRATIONS), applied in order by
//! `PRAGMA user_version`; the file is marked as ours by `PRAGMA application_id` so a
//! foreign database is refused untouched. WAL mode and a busy timeout let two CI jobs
//! record at once; each record is one `BEGIN IMMEDIATE` transaction, so a crash mid-record
//! leaves the store as it was.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::HistoryError;
use crate::migrations::{MIGRATIONS, schema_version};

/// `PRAGMA application_id` of an abba history: "abba" in ASCII.
pub const APPLICATION_ID: i32 = 0x6162_6261;

/// How long a writer waits for another one to finish its transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The schema version that dropped the deflated copy of each raw file.
const BLOB_DROPPED: i32 = 2;

/// The first 16 bytes of every SQLite 3 database.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// An open history: read series from it ([`Store::all_series`]), record experiments into
/// it ([`Store::record`]).
pub struct Store {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    /// Called with each run's index before its row is written, inside the record's
    /// transaction ([`Store::with_run_hook`]).
    pub(crate) run_hook: Option<fn(usize)>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// `.abba/history.db` at the top of the git work tree holding the current directory (in
/// the current directory outside git): where a history is by default.
pub fn default_path() -> PathBuf {
    let top = crate::git::toplevel().unwrap_or_else(|| PathBuf::from("."));
    top.join(".abba").join("history.db")
}

fn not_ours(path: &Path, reason: impl Into<String>) -> HistoryError {
    HistoryError::NotOurs {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

pub(crate) fn sql_error(path: &Path, source: rusqlite::Error) -> HistoryError {
    if is_read_only(&source) && path.exists() {
        return HistoryError::ReadOnly {
            path: path.to_path_buf(),
            migrate_from: None,
        };
    }
    HistoryError::Sql {
        path: path.to_path_buf(),
        source,
    }
}

/// Checks, without writing anything, that `path` is an abba history (or an empty file):
/// the SQLite header, the application id, a schema version this crate knows.
fn check_ours(path: &Path) -> Result<(), HistoryError> {
    let mut head = [0u8; 16];
    let len = std::fs::metadata(path)
        .map_err(|source| HistoryError::Metadata {
            path: path.to_path_buf(),
            source,
        })?
        .len();
    if len == 0 {
        return Ok(());
    }
    {
        use std::io::Read as _;
        let mut f = std::fs::File::open(path).map_err(|source| HistoryError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        let got = f.read(&mut head).unwrap_or(0);
        if got < 16 || &head != SQLITE_MAGIC {
            return Err(not_ours(
                path,
                "not an abba history (not an SQLite database)",
            ));
        }
    }
    let conn = read_connection(path)
        .map_err(|e| not_ours(path, format!("not a readable SQLite database ({e})")))?;
    let read = |pragma: &str| -> Result<i32, rusqlite::Error> {
        conn.query_row(&format!("PRAGMA {pragma}"), [], |r| r.get(0))
    };
    let damaged = |e: rusqlite::Error| not_ours(path, format!("a damaged SQLite database ({e})"));
    let app = read("application_id").map_err(damaged)?;
    let version = read("user_version").map_err(damaged)?;
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(damaged)?;
    if app != APPLICATION_ID && !(app == 0 && tables == 0) {
        return Err(not_ours(
            path,
            format!("an SQLite database of another program (application_id {app}, not abba's)"),
        ));
    }
    if version > schema_version() {
        return Err(not_ours(
            path,
            format!(
                "written by a newer abba (history schema {version}; this abba knows up to {})",
                schema_version()
            ),
        ));
    }
    Ok(())
}

/// Whether SQLite failed because the file or its directory cannot be written (read-only
/// storage, or a WAL store whose shared-memory file cannot be created beside it).
pub(crate) fn is_read_only(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(f.code, rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::CannotOpen)
    )
}

/// `path` as an SQLite URI (`file:...`, every byte outside the unreserved set and `/`
/// percent-encoded) with `query`.
fn sqlite_uri(path: &Path, query: &str) -> String {
    use std::os::unix::ffi::OsStrExt as _;
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push('?');
    uri.push_str(query);
    uri
}

/// A connection that can only read `path`: `SQLITE_OPEN_READ_ONLY` (and `query_only`), or,
/// when that cannot read the store because nothing can be written beside it (a WAL store
/// on read-only storage needs its shared-memory file), the `immutable=1` URI: SQLite then
/// reads the file as it is, without locks, which only holds because no process can write
/// there either.
fn read_connection(path: &Path) -> Result<Connection, rusqlite::Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let conn = match conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    }) {
        Ok(_) => conn,
        Err(e) if is_read_only(&e) => {
            drop(conn);
            Connection::open_with_flags(
                sqlite_uri(path, "immutable=1"),
                flags | OpenFlags::SQLITE_OPEN_URI,
            )?
        }
        Err(e) => return Err(e),
    };
    conn.execute_batch("PRAGMA query_only = ON")?;
    Ok(conn)
}

/// Checks, without changing the store, that `path` can be recorded into: an abba history
/// (or an empty file) that can be opened for writing, or a new file whose nearest existing
/// ancestor is a directory; in both cases a directory a file can be created in (a probe
/// file is created and removed). A binary calls it before an experiment runs, so a bad
/// store is said before the runs.
///
/// # Errors
/// [`HistoryError`] naming the file: a directory, a foreign, damaged or newer file, a
/// path under something that is not a directory, or read-only storage.
pub fn check_recordable(path: &Path) -> Result<(), HistoryError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(HistoryError::IsDirectory {
            path: path.to_path_buf(),
        }),
        Ok(_) => {
            check_ours(path)?;
            // Opened for writing, not truncated: nothing in the file changes.
            let writable = std::fs::OpenOptions::new().write(true).open(path).is_ok();
            match writable {
                true => check_directory_writable(path, path.parent()),
                false => Err(HistoryError::ReadOnly {
                    path: path.to_path_buf(),
                    migrate_from: older_schema(path),
                }),
            }
        }
        Err(_) => match path.parent().filter(|d| !d.as_os_str().is_empty()) {
            None => check_directory_writable(path, None),
            Some(d) => match std::fs::metadata(d) {
                Ok(m) if m.is_dir() => check_directory_writable(path, Some(d)),
                Ok(_) => Err(HistoryError::NotADirectory {
                    path: path.to_path_buf(),
                    parent: d.to_path_buf(),
                }),
                Err(_) => Err(HistoryError::NoDirectory {
                    path: path.to_path_buf(),
                    parent: d.to_path_buf(),
                }),
            },
        },
    }
}

/// The schema version of the store at `path` when it is older than this abba's (it would
/// need migrating before recording), read without writing.
fn older_schema(path: &Path) -> Option<i32> {
    let conn = read_connection(path).ok()?;
    let version: i32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .ok()?;
    (1..schema_version()).contains(&version).then_some(version)
}

/// Whether a file can be created in the directory of the history `path` (`dir`, the
/// current directory when `None` or empty), as SQLite's journal must be beside the store:
/// a probe file is created and removed. Checked before any run, so that a history on
/// read-only storage (or in a directory abba may not write, such as `/proc`) is refused
/// before the runs it would lose its record of.
fn check_directory_writable(path: &Path, dir: Option<&Path>) -> Result<(), HistoryError> {
    let dir = dir
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    bench_stats::probe::probe_writable_dir(dir).map_err(|_| HistoryError::ReadOnly {
        path: path.to_path_buf(),
        migrate_from: None,
    })
}

impl Store {
    /// Opens an existing history to read it, read-only: nothing is created, migrated or
    /// written (a store of an older schema is read as it is), and a history on read-only
    /// storage reads as well as any other.
    ///
    /// # Errors
    /// [`HistoryError::Missing`] (no file), [`HistoryError::Empty`] (a 0-byte file, or an
    /// SQLite database without a schema), [`HistoryError::IsDirectory`]; a foreign,
    /// damaged or newer file as [`Store::open`].
    pub fn open_existing(path: &Path) -> Result<Store, HistoryError> {
        let meta = std::fs::metadata(path).map_err(|_| HistoryError::Missing {
            path: path.to_path_buf(),
        })?;
        if meta.is_dir() {
            return Err(HistoryError::IsDirectory {
                path: path.to_path_buf(),
            });
        }
        if meta.len() == 0 {
            return Err(HistoryError::Empty {
                path: path.to_path_buf(),
            });
        }
        check_ours(path)?;
        let conn = read_connection(path).map_err(|e| sql_error(path, e))?;
        let version: i32 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| sql_error(path, e))?;
        if version == 0 {
            return Err(HistoryError::Empty {
                path: path.to_path_buf(),
            });
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            run_hook: None,
        })
    }

    /// Opens (creating when missing) a history to record into, migrating it to the current
    /// schema under a write lock. Its directory must exist.
    ///
    /// # Errors
    /// [`HistoryError`] for a foreign, damaged or newer file (never modified), a missing
    /// directory, or a store that cannot be created or written
    /// ([`HistoryError::ReadOnly`] on read-only storage).
    pub fn open(path: &Path) -> Result<Store, HistoryError> {
        check_recordable(path)?;
        let conn = Connection::open(path).map_err(|e| sql_error(path, e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| sql_error(path, e))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
            run_hook: None,
        };
        store.migrate()?;
        Ok(store)
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Calls `hook` with each run's index just before its row is written, inside the
    /// record's open transaction: a fault-injection point (a test aborts the process there
    /// to show that a record is all or nothing).
    #[must_use]
    pub fn with_run_hook(mut self, hook: fn(usize)) -> Store {
        self.run_hook = Some(hook);
        self
    }

    /// The schema version of the open store (after migration: [`crate::MIGRATIONS`]'s
    /// length).
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub fn schema_version(&self) -> Result<i32, HistoryError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.error(e))
    }

    fn migrate(&mut self) -> Result<(), HistoryError> {
        let path = self.path.clone();
        let err = |e| sql_error(&path, e);
        let version: i32 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(err)?;
        if version < schema_version() {
            // On read-only storage, a store that needs migrating says so.
            let fail = |e: rusqlite::Error| match version {
                1.. if is_read_only(&e) => HistoryError::ReadOnly {
                    path: path.clone(),
                    migrate_from: Some(version),
                },
                _ => sql_error(&path, e),
            };
            let tx = self
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(fail)?;
            // Read again under the write lock: another process may have migrated meanwhile.
            let version: i32 = tx
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .map_err(fail)?;
            for (k, sql) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
                tx.execute_batch(sql).map_err(fail)?;
                tx.execute_batch(&format!("PRAGMA user_version = {}", k + 1))
                    .map_err(fail)?;
            }
            tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}"))
                .map_err(fail)?;
            tx.commit().map_err(fail)?;
            if (1..BLOB_DROPPED).contains(&version) {
                // The dropped copies' pages are given back to the file system once; when
                // another process holds the file meanwhile, later records reuse them.
                let _ = self.conn.execute_batch("VACUUM");
            }
        }
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(err)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(HistoryError::NoWriteAheadLog {
                path: path.clone(),
                mode,
            });
        }
        self.conn
            .execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")
            .map_err(err)?;
        Ok(())
    }

    /// An SQL error of this store, naming its file.
    pub(crate) fn error(&self, e: rusqlite::Error) -> HistoryError {
        sql_error(&self.path, e)
    }
}
