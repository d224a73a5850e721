//! The schema of a history, one migration per version.

/// The schema, one entry per version: entry `k` takes `PRAGMA user_version` from `k` to
/// `k + 1`. Append a migration to change the schema; never edit one that has shipped.
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
    // Version 2: the deflated copy of each raw file goes. Its header and runs are the
    // `header` column and the `runs` rows already, and nothing read it back.
    "
    ALTER TABLE experiments DROP COLUMN raw;
    ",
];

/// The schema version this crate writes and reads.
pub fn schema_version() -> i32 {
    MIGRATIONS.len() as i32
}
