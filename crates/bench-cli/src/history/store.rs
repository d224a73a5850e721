//! The history store: one SQLite file (`rusqlite`, SQLite bundled), its schema and every
//! query. The schema lives in [`MIGRATIONS`], applied in order by `PRAGMA user_version`;
//! the file is marked as ours by `PRAGMA application_id` so a foreign database is refused
//! untouched. WAL mode and a busy timeout let two CI jobs record at once; each record is
//! one `BEGIN IMMEDIATE` transaction, so a crash mid-record leaves the store as it was.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::exit::usage;

/// `PRAGMA application_id` of an abba history: "abba" in ASCII.
pub const APPLICATION_ID: i32 = 0x6162_6261;

/// How long a writer waits for another one to finish its transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The schema, one entry per version: entry `k` takes `user_version` from `k` to `k + 1`.
/// Append a migration to change the schema; never edit one that has shipped.
pub const MIGRATIONS: &[&str] = &[
    // Version 1.
    "
    CREATE TABLE commits (
        id INTEGER PRIMARY KEY,
        sha TEXT NOT NULL UNIQUE,
        parent TEXT,
        branch TEXT,
        time INTEGER,
        subject TEXT
    );
    CREATE TABLE machines (
        id INTEGER PRIMARY KEY,
        fingerprint TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        cpu_model TEXT,
        cores INTEGER,
        kernel TEXT,
        memory_kib INTEGER
    );
    CREATE TABLE benchmarks (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        metric TEXT NOT NULL,
        unit TEXT NOT NULL,
        higher_is_better INTEGER NOT NULL,
        command TEXT,
        UNIQUE (name, metric)
    );
    CREATE TABLE experiments (
        id INTEGER PRIMARY KEY,
        content_hash TEXT NOT NULL UNIQUE,
        source TEXT NOT NULL,
        file TEXT,
        experiment TEXT,
        seed INTEGER NOT NULL,
        design TEXT NOT NULL,
        started_at TEXT,
        recorded_at TEXT NOT NULL,
        machine_id INTEGER NOT NULL REFERENCES machines (id),
        commit_id INTEGER NOT NULL REFERENCES commits (id),
        base_commit_id INTEGER REFERENCES commits (id),
        branch TEXT,
        header TEXT NOT NULL,
        raw BLOB NOT NULL
    );
    CREATE TABLE runs (
        experiment_id INTEGER NOT NULL REFERENCES experiments (id),
        run INTEGER NOT NULL,
        block INTEGER NOT NULL,
        position INTEGER NOT NULL,
        variant TEXT NOT NULL,
        benchmark TEXT,
        value REAL,
        wall_ns INTEGER NOT NULL,
        ok INTEGER NOT NULL,
        PRIMARY KEY (experiment_id, run)
    ) WITHOUT ROWID;
    CREATE TABLE levels (
        experiment_id INTEGER NOT NULL REFERENCES experiments (id),
        benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
        commit_id INTEGER NOT NULL REFERENCES commits (id),
        variant TEXT NOT NULL,
        n INTEGER NOT NULL,
        median REAL NOT NULL,
        low REAL NOT NULL,
        high REAL NOT NULL
    );
    CREATE INDEX levels_by_benchmark ON levels (benchmark_id);
    CREATE TABLE summaries (
        experiment_id INTEGER NOT NULL REFERENCES experiments (id),
        benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
        baseline TEXT NOT NULL,
        candidate TEXT NOT NULL,
        base_commit_id INTEGER NOT NULL REFERENCES commits (id),
        commit_id INTEGER NOT NULL REFERENCES commits (id),
        ratio REAL,
        low REAL,
        high REAL,
        confidence REAL NOT NULL,
        verdict TEXT NOT NULL,
        outcome TEXT NOT NULL,
        p_value REAL,
        estimator TEXT NOT NULL
    );
    CREATE INDEX summaries_by_benchmark ON summaries (benchmark_id);
    ",
];

/// The schema version this abba writes and reads.
pub fn schema_version() -> i32 {
    MIGRATIONS.len() as i32
}

/// Where the history is: `--history`, else `$ABBA_HISTORY`, else `.abba/history.db` at the
/// top of the git repository holding the current directory (or in it, outside git).
pub fn resolve_path(flag: Option<&Path>) -> PathBuf {
    if let Some(p) = flag {
        return p.to_path_buf();
    }
    if let Some(p) = std::env::var_os("ABBA_HISTORY").filter(|v| !v.is_empty()) {
        return PathBuf::from(p);
    }
    let top = super::git::toplevel().unwrap_or_else(|| PathBuf::from("."));
    top.join(".abba").join("history.db")
}

/// An open history.
#[derive(Debug)]
pub struct Store {
    /// The connection.
    pub conn: Connection,
    /// The file, for messages.
    pub path: PathBuf,
}

/// The first 16 bytes of every SQLite 3 database.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

fn not_ours(path: &Path, why: &str) -> anyhow::Error {
    usage(format!(
        "{}: {why}; it is left untouched (give another file with --history or ABBA_HISTORY)",
        path.display()
    ))
}

fn sql_error(path: &Path, e: rusqlite::Error) -> anyhow::Error {
    usage(format!(
        "{}: the history database cannot be read or written: {e}",
        path.display()
    ))
}

/// Checks, without writing anything, that `path` is an abba history (or an empty file):
/// the SQLite header, the application id, a schema version this abba knows.
fn check_ours(path: &Path) -> anyhow::Result<()> {
    let mut head = [0u8; 16];
    let len = std::fs::metadata(path)
        .map_err(|e| usage(format!("{}: {e}", path.display())))?
        .len();
    if len == 0 {
        return Ok(());
    }
    {
        use std::io::Read as _;
        let mut f = std::fs::File::open(path)
            .map_err(|e| usage(format!("{}: cannot be opened: {e}", path.display())))?;
        let got = f.read(&mut head).unwrap_or(0);
        if got < 16 || &head != SQLITE_MAGIC {
            return Err(not_ours(
                path,
                "not an abba history (not an SQLite database)",
            ));
        }
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| not_ours(path, &format!("not a readable SQLite database ({e})")))?;
    let _ = conn.busy_timeout(BUSY_TIMEOUT);
    let read = |pragma: &str| -> Result<i32, rusqlite::Error> {
        conn.query_row(&format!("PRAGMA {pragma}"), [], |r| r.get(0))
    };
    let app = read("application_id")
        .map_err(|e| not_ours(path, &format!("a damaged SQLite database ({e})")))?;
    let version = read("user_version")
        .map_err(|e| not_ours(path, &format!("a damaged SQLite database ({e})")))?;
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(|e| not_ours(path, &format!("a damaged SQLite database ({e})")))?;
    if app != APPLICATION_ID && !(app == 0 && tables == 0) {
        return Err(not_ours(
            path,
            &format!("an SQLite database of another program (application_id {app}, not abba's)"),
        ));
    }
    if version > schema_version() {
        return Err(not_ours(
            path,
            &format!(
                "written by a newer abba (history schema {version}; this abba knows up to {})",
                schema_version()
            ),
        ));
    }
    Ok(())
}

/// Checks, before anything runs and without writing anything, that `path` can be recorded
/// into: an abba history (or an empty file), or a new file whose nearest existing
/// directory is one.
///
/// # Errors
/// Exit 2 naming the file: a directory, a foreign, damaged or newer file, or a path under
/// something that is not a directory.
pub fn check_recordable(path: &Path) -> anyhow::Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(usage(format!(
            "{}: is a directory, not a history file",
            path.display()
        ))),
        Ok(_) => check_ours(path),
        Err(_) => {
            let mut dir = path.parent();
            while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
                match std::fs::metadata(d) {
                    Ok(m) if m.is_dir() => return Ok(()),
                    Ok(_) => {
                        return Err(usage(format!(
                            "{}: {} is not a directory, so the history cannot be created there",
                            path.display(),
                            d.display()
                        )));
                    }
                    Err(_) => dir = d.parent(),
                }
            }
            Ok(())
        }
    }
}

impl Store {
    /// Opens an existing history to read it. A missing file is an error naming it.
    ///
    /// # Errors
    /// Exit 2 for a missing, foreign, damaged or newer file (never modified).
    pub fn open_existing(path: &Path) -> anyhow::Result<Store> {
        if !path.exists() {
            return Err(usage(format!(
                "{}: no history there yet (record one with --record on compare, suite or analyze, or `abba history import FILE`)",
                path.display()
            )));
        }
        Store::open(path)
    }

    /// Opens (creating when missing) a history to record into, migrating it to the
    /// current schema.
    ///
    /// # Errors
    /// Exit 2 for a foreign, damaged or newer file (never modified), or one that cannot be
    /// created.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        if path.exists() {
            check_ours(path)?;
        } else if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                usage(format!(
                    "{}: cannot create the history's directory: {e}",
                    path.display()
                ))
            })?;
        }
        let conn = Connection::open(path).map_err(|e| sql_error(path, e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| sql_error(path, e))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.migrate()?;
        Ok(store)
    }

    fn migrate(&mut self) -> anyhow::Result<()> {
        let path = self.path.clone();
        let err = |e| sql_error(&path, e);
        let version: i32 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(err)?;
        if version < schema_version() {
            let tx = self
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(err)?;
            // Read again under the write lock: another process may have migrated meanwhile.
            let version: i32 = tx
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .map_err(err)?;
            for (k, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
                tx.execute_batch(sql).map_err(err)?;
                tx.execute_batch(&format!("PRAGMA user_version = {}", k + 1))
                    .map_err(err)?;
            }
            tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}"))
                .map_err(err)?;
            tx.commit().map_err(err)?;
        }
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(err)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(usage(format!(
                "{}: the history cannot use write-ahead logging (journal mode {mode})",
                path.display()
            )));
        }
        self.conn
            .execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")
            .map_err(err)?;
        Ok(())
    }

    /// An SQL error of this store as an exit-2 error naming the file.
    pub fn error(&self, e: rusqlite::Error) -> anyhow::Error {
        sql_error(&self.path, e)
    }

    /// Writes one record in one transaction. `Ok(None)` when an experiment with the same
    /// content hash is already stored (recording is idempotent), else its id.
    ///
    /// # Errors
    /// Exit 2 naming the store when SQLite fails; nothing of the record is then kept.
    pub fn insert(&mut self, rec: &super::record::Record) -> anyhow::Result<Option<i64>> {
        let path = self.path.clone();
        let err = |e| sql_error(&path, e);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        let known: Option<i64> = tx
            .query_row(
                "SELECT id FROM experiments WHERE content_hash = ?1",
                [&rec.content_hash],
                |r| r.get(0),
            )
            .optional()
            .map_err(err)?;
        if known.is_some() {
            return Ok(None);
        }
        let machine = upsert_machine(&tx, &rec.machine).map_err(err)?;
        // The base first: commits without a time keep the order they were first seen in.
        let base = match &rec.base_commit {
            Some(c) => Some(upsert_commit(&tx, c).map_err(err)?),
            None => None,
        };
        let commit = upsert_commit(&tx, &rec.commit).map_err(err)?;
        tx.execute(
            "INSERT INTO experiments (content_hash, source, file, experiment, seed, design,
                started_at, recorded_at, machine_id, commit_id, base_commit_id, branch, header, raw)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![
                rec.content_hash,
                rec.source,
                rec.file,
                rec.experiment,
                rec.seed as i64,
                rec.design,
                rec.started_at,
                rec.recorded_at,
                machine,
                commit,
                base,
                rec.commit.branch,
                rec.header_json,
                rec.raw_deflated,
            ],
        )
        .map_err(err)?;
        let id = tx.last_insert_rowid();
        insert_runs(&tx, id, rec).map_err(err)?;
        insert_levels_and_summaries(&tx, id, rec, base, commit).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(Some(id))
    }
}

/// The run rows of experiment `id`.
fn insert_runs(
    tx: &rusqlite::Transaction<'_>,
    id: i64,
    rec: &super::record::Record,
) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare(
        "INSERT INTO runs (experiment_id, run, block, position, variant, benchmark,
                value, wall_ns, ok) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for (k, run) in rec.runs.iter().enumerate() {
        super::record::crash_point(k);
        stmt.execute(params![
            id,
            run.run,
            run.block,
            run.position,
            run.variant,
            run.benchmark,
            run.value,
            run.wall_ns as i64,
            run.ok,
        ])?;
    }
    Ok(())
}

/// The level and summary rows of experiment `id`: a level at the base commit (or a
/// stepping summary) goes to `base`, the rest to `commit`.
fn insert_levels_and_summaries(
    tx: &rusqlite::Transaction<'_>,
    id: i64,
    rec: &super::record::Record,
    base: Option<i64>,
    commit: i64,
) -> rusqlite::Result<()> {
    for level in &rec.levels {
        let bench = upsert_benchmark(tx, &level.benchmark)?;
        let at = if level.at_base {
            base.unwrap_or(commit)
        } else {
            commit
        };
        tx.execute(
            "INSERT INTO levels (experiment_id, benchmark_id, commit_id, variant, n, median, low, high)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![id, bench, at, level.variant, level.n as i64, level.median, level.low, level.high],
        )
        ?;
    }
    for s in &rec.summaries {
        let bench = upsert_benchmark(tx, &s.benchmark)?;
        tx.execute(
            "INSERT INTO summaries (experiment_id, benchmark_id, baseline, candidate,
                base_commit_id, commit_id, ratio, low, high, confidence, verdict, outcome,
                p_value, estimator)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![
                id,
                bench,
                s.baseline,
                s.candidate,
                if s.stepping {
                    base.unwrap_or(commit)
                } else {
                    commit
                },
                commit,
                s.ratio,
                s.interval.map(|i| i[0]),
                s.interval.map(|i| i[1]),
                s.confidence,
                s.verdict,
                s.outcome,
                s.p_value,
                s.estimator,
            ],
        )?;
    }
    Ok(())
}

fn upsert_machine(
    tx: &rusqlite::Transaction<'_>,
    m: &super::record::MachineInfo,
) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO machines (fingerprint, name, cpu_model, cores, kernel, memory_kib)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (fingerprint) DO NOTHING",
        params![
            m.fingerprint,
            m.name,
            m.cpu_model,
            m.cores.map(|c| c as i64),
            m.kernel,
            m.memory_kib.map(|k| k as i64)
        ],
    )?;
    tx.query_row(
        "SELECT id FROM machines WHERE fingerprint = ?1",
        [&m.fingerprint],
        |r| r.get(0),
    )
}

fn upsert_commit(
    tx: &rusqlite::Transaction<'_>,
    c: &super::git::CommitInfo,
) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO commits (sha, parent, branch, time, subject) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (sha) DO UPDATE SET
            parent = coalesce(commits.parent, excluded.parent),
            branch = coalesce(commits.branch, excluded.branch),
            time = coalesce(commits.time, excluded.time),
            subject = coalesce(commits.subject, excluded.subject)",
        params![c.sha, c.parent, c.branch, c.time, c.subject],
    )?;
    tx.query_row("SELECT id FROM commits WHERE sha = ?1", [&c.sha], |r| {
        r.get(0)
    })
}

fn upsert_benchmark(
    tx: &rusqlite::Transaction<'_>,
    b: &super::record::BenchmarkKey,
) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO benchmarks (name, metric, unit, higher_is_better, command)
         VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (name, metric) DO NOTHING",
        params![b.name, b.metric, b.unit, b.higher_is_better, b.command],
    )?;
    tx.query_row(
        "SELECT id FROM benchmarks WHERE name = ?1 AND metric = ?2",
        params![b.name, b.metric],
        |r| r.get(0),
    )
}
