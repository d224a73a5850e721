//! Recording from a command (`--record` of `compare`, `suite` and `analyze`, `history
//! import`): where the history is ([`history_path`]), the record's commits and names
//! settled before anything runs ([`Context::resolve`], [`Recording::prepare`]), and the
//! experiment kept after it ran, with the analyses its command already made
//! ([`Recording::record`]; for a file it read, [`Recording::record_printed`]).

use std::path::{Path, PathBuf};

use bench_sched::Experiment;
use bench_stats::AnalysisConfig;
use bench_stats::suite::Correction;

use crate::{Analysed, Context, HistoryError, Recorded, Store};

/// The environment variable naming the history when none is given.
pub const HISTORY_ENV: &str = "ABBA_HISTORY";

/// Where the history is: `given`, else `$ABBA_HISTORY` (when set and not empty), else
/// [`crate::default_path`]. The second value says whether it is the default one, whose
/// directory (`.abba/`) is created when missing; a directory the user named must exist.
pub fn history_path(given: Option<&Path>) -> (PathBuf, bool) {
    if let Some(p) = given {
        return (p.to_path_buf(), false);
    }
    match std::env::var_os(HISTORY_ENV).filter(|v| !v.is_empty()) {
        Some(p) => (PathBuf::from(p), false),
        None => (crate::default_path(), true),
    }
}

/// The labels a record is given: the commits, the branch and the benchmark's name.
#[derive(Debug, Clone, Copy, Default)]
pub struct Labels<'a> {
    /// The commit measured (else git's `HEAD`).
    pub commit: Option<&'a str>,
    /// The baseline's commit (else the pull request's base, when known).
    pub base_commit: Option<&'a str>,
    /// The branch (else git's).
    pub branch: Option<&'a str>,
    /// The benchmark's name.
    pub bench: Option<&'a str>,
}

impl Context {
    /// The context of a record by `source` with `labels`, the commits resolved by git
    /// ([`crate::git::resolve`]). The second value is `$GITHUB_BASE_REF` when it is set
    /// but git finds no merge base with it (a shallow clone): the record then has no base
    /// commit, which the caller should say.
    ///
    /// # Errors
    /// [`HistoryError::Label`] for an empty label or one holding a control character;
    /// [`HistoryError::NoCommit`] outside git without a commit.
    pub fn resolve(
        source: &str,
        labels: Labels<'_>,
    ) -> Result<(Context, Option<String>), HistoryError> {
        for (which, value) in [
            ("commit", labels.commit),
            ("base-commit", labels.base_commit),
            ("branch", labels.branch),
            ("bench", labels.bench),
        ] {
            check_label(which, value)?;
        }
        let (commit, base_commit) =
            crate::git::resolve(labels.commit, labels.base_commit, labels.branch)?;
        let shallow = match &base_commit {
            None => crate::git::missing_pull_request_base(),
            Some(_) => None,
        };
        let ctx = Context {
            source: source.to_owned(),
            bench: labels.bench.map(str::to_owned),
            commit,
            base_commit,
        };
        Ok((ctx, shallow))
    }
}

/// Refuses a label that is empty or holds a control character.
fn check_label(which: &'static str, value: Option<&str>) -> Result<(), HistoryError> {
    let Some(v) = value else { return Ok(()) };
    let reason = if v.trim().is_empty() {
        "must not be empty"
    } else if v.chars().any(char::is_control) {
        "must not contain control characters (newlines, tabs, escapes)"
    } else {
        return Ok(());
    };
    Err(HistoryError::Label {
        which,
        value: v.to_owned(),
        reason,
    })
}

/// A record settled before anything runs: its context (the commits resolved now) and the
/// history file (checked now, written only after the experiment).
#[derive(Debug, Clone)]
pub struct Recording {
    /// The record's commits and names.
    pub context: Context,
    /// The history file.
    pub path: PathBuf,
    /// Whether its directory is created when missing (the default history's `.abba/`).
    pub create_dir: bool,
}

impl Recording {
    /// A record of `context` into the history at `path`, checked to be an abba history,
    /// an empty file or a new path ([`crate::check_recordable`]; a missing directory of
    /// the default history is created when the record is written). Nothing is written.
    ///
    /// # Errors
    /// [`HistoryError`] naming the file.
    pub fn prepare(
        context: Context,
        path: PathBuf,
        create_dir: bool,
    ) -> Result<Recording, HistoryError> {
        let new_dir = create_dir && path.parent().is_some_and(|d| !d.exists());
        if !new_dir {
            crate::check_recordable(&path)?;
        }
        Ok(Recording {
            context,
            path,
            create_dir,
        })
    }

    /// The history opened (created when missing) to record into; with `create_dir` its
    /// directory is created first. `hook` sees each run as it is inserted (a test's
    /// fault-injection point).
    ///
    /// # Errors
    /// [`HistoryError::CreateDirectory`], or [`Store::open`]'s.
    pub fn open(&self, hook: Option<fn(usize)>) -> Result<Store, HistoryError> {
        open_to_record(&self.path, self.create_dir, hook)
    }

    /// Keeps `experiment` (just run, its raw file `raw_path`) with the analyses its command
    /// made of it (`analysed`): nothing is read back or analysed again.
    ///
    /// # Errors
    /// [`HistoryError`] naming the store.
    pub fn record(
        &self,
        experiment: &mut Experiment,
        raw_path: &Path,
        analysed: &[Analysed<'_>],
        hook: Option<fn(usize)>,
    ) -> Result<Recorded, HistoryError> {
        let mut store = self.open(hook)?;
        experiment.file = raw_path.display().to_string();
        store.record(experiment, analysed, &self.context)
    }

    /// Keeps a suite's `experiment` (just run, its raw file `raw_path`) with each
    /// benchmark's analysis as its report said it (`analysed`, of
    /// [`bench_sched::analyze_suite_run`]) and each wall-time benchmark's CPU-time series
    /// beside it ([`crate::suite_cpu_twins`] under `config` and `correction`, from the runs
    /// in memory): the raw file is not read back, each benchmark analysed once.
    ///
    /// # Errors
    /// [`HistoryError`] naming the store.
    pub fn record_suite(
        &self,
        experiment: &mut Experiment,
        raw_path: &Path,
        analysed: &bench_sched::SuiteAnalysis,
        (config, correction): (&AnalysisConfig, Correction),
        hook: Option<fn(usize)>,
    ) -> Result<Recorded, HistoryError> {
        let twins = crate::suite_cpu_twins(experiment, config, correction);
        let units: Vec<Analysed<'_>> = analysed
            .report
            .benchmarks
            .iter()
            .zip(&analysed.datasets)
            .map(|(b, (name, dataset))| Analysed::suite_benchmark(name, dataset, &b.analysis))
            .chain(twins.iter().map(crate::AnalysedBenchmark::as_analysed))
            .collect();
        self.record(experiment, raw_path, &units, hook)
    }

    /// Keeps `experiment` (its raw file `raw_path`) whose command made no analysis of each
    /// benchmark (a suite's one cross-class table): each is analysed here, once, from the
    /// runs in memory ([`crate::analyse`]).
    ///
    /// # Errors
    /// [`HistoryError`]: an analysis that fails, the store's.
    pub fn record_analysing(
        &self,
        experiment: &mut Experiment,
        raw_path: &Path,
        (config, correction): (&AnalysisConfig, Correction),
        hook: Option<fn(usize)>,
    ) -> Result<Recorded, HistoryError> {
        let analysed = crate::analyse(experiment, config, correction)?;
        let units: Vec<Analysed<'_>> = analysed.iter().map(|a| a.as_analysed()).collect();
        self.record(experiment, raw_path, &units, hook)
    }
}

impl Recorded {
    /// What a record did, in one line: `recorded FILE at COMMIT into STORE` (`BASE ->
    /// COMMIT` for a step), or that `file` was kept already.
    pub fn describe(&self, store: &Path, file: &str, context: &Context) -> String {
        let short = |s: &str| s.chars().take(10).collect::<String>();
        let at = match &context.base_commit {
            Some(b) if b.sha != context.commit.sha => {
                format!("{} -> {}", short(&b.sha), short(&context.commit.sha))
            }
            _ => short(&context.commit.sha),
        };
        match self {
            Recorded::New(_) => format!("recorded {file} at {at} into {}", store.display()),
            Recorded::AlreadyKept => {
                format!("{file} is already in {} (kept once)", store.display())
            }
        }
    }
}

/// The history at `path` opened (created when missing) to record into, its directory
/// created first with `create_dir`; `hook` as [`Store::with_run_hook`].
///
/// # Errors
/// [`HistoryError::CreateDirectory`], or [`Store::open`]'s.
pub fn open_to_record(
    path: &Path,
    create_dir: bool,
    hook: Option<fn(usize)>,
) -> Result<Store, HistoryError> {
    if let (true, Some(dir)) = (create_dir, path.parent()) {
        if !dir.as_os_str().is_empty() && !dir.exists() {
            std::fs::create_dir_all(dir).map_err(|source| HistoryError::CreateDirectory {
                path: path.to_path_buf(),
                source,
            })?;
        }
    }
    let store = Store::open(path)?;
    Ok(match hook {
        Some(h) => store.with_run_hook(h),
        None => store,
    })
}

impl Store {
    /// Keeps a raw file read back (`history import`, `analyze --record`): its benchmarks
    /// analysed with `config` and `correction` ([`crate::analyse`], the CPU-time series
    /// included), then recorded with `context`.
    ///
    /// # Errors
    /// [`HistoryError`]: nothing to record, an analysis that fails, the store's.
    pub fn record_file(
        &mut self,
        raw: &Experiment,
        config: &AnalysisConfig,
        correction: Correction,
        context: &Context,
    ) -> Result<Recorded, HistoryError> {
        let analysed = crate::analyse(raw, config, correction)?;
        let units: Vec<Analysed<'_>> = analysed.iter().map(|a| a.as_analysed()).collect();
        self.record(raw, &units, context)
    }
}
