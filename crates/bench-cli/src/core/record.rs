//! `--record`: the commits and the history file settled before anything runs
//! ([`prepare`]), the experiment recorded after ([`record_after`], [`record_file_after`]),
//! and the history's errors as the binary says them.

use std::path::{Path, PathBuf};

use bench_history::{Analysed, Context, HistoryError, Recorded, Store};
use bench_sched::{Experiment, read_raw};
use bench_stats::AnalysisConfig;
use bench_stats::suite::Correction;

use crate::args::history::RecordArgs;
use crate::core::exit::usage;
use crate::core::output::stderr_line;

/// Refuses a label of the record (`--commit`, `--base-commit`, `--branch`, `--bench`) that
/// is empty or holds a control character, naming the flag (the value is shown escaped).
fn check_label(flag: &str, value: Option<&str>) -> anyhow::Result<()> {
    let Some(v) = value else { return Ok(()) };
    let why = if v.trim().is_empty() {
        "must not be empty"
    } else if v.chars().any(char::is_control) {
        "must not contain control characters (newlines, tabs, escapes)"
    } else {
        return Ok(());
    };
    Err(usage(format!(
        "{flag} '{}': {why}",
        bench_report::escape_terminal(v)
    )))
}

/// A history error as the binary says it: the library's fact, with the flag that helps.
pub fn said(e: &HistoryError) -> String {
    match e {
        HistoryError::NotOurs { .. } => {
            format!("{e} (give another file with --history or ABBA_HISTORY)")
        }
        HistoryError::Missing { .. } => format!(
            "{e} (record one with --record on compare, suite or analyze, or `abba history import FILE`)"
        ),
        HistoryError::UnknownSince { .. } => format!("--since {e}"),
        HistoryError::NoCommit => format!("{e}: give --commit"),
        HistoryError::Empty { .. } => format!(
            "{e} (record into it with --record on compare, suite or analyze, or `abba history import FILE`)"
        ),
        HistoryError::IsDirectory { .. }
        | HistoryError::NotADirectory { .. }
        | HistoryError::Metadata { .. }
        | HistoryError::Open { .. }
        | HistoryError::CreateDirectory { .. }
        | HistoryError::NoDirectory { .. }
        | HistoryError::ReadOnly { .. }
        | HistoryError::Sql { .. }
        | HistoryError::NoWriteAheadLog { .. }
        | HistoryError::UnknownBenchmark { .. }
        | HistoryError::ChangePoints(_)
        | HistoryError::NothingToRecord { .. }
        | HistoryError::Analysis { .. }
        | _ => e.to_string(),
    }
}

/// A history error as exit 2 ([`said`]).
pub fn word(e: HistoryError) -> anyhow::Error {
    usage(said(&e))
}

/// Where the history is: `--history`, else `$ABBA_HISTORY`, else the library's default
/// (`.abba/history.db` at the top of the git repository, or in the current directory).
pub fn resolve_path(flag: Option<&Path>) -> PathBuf {
    if let Some(p) = flag {
        return p.to_path_buf();
    }
    if let Some(p) = std::env::var_os("ABBA_HISTORY").filter(|v| !v.is_empty()) {
        return PathBuf::from(p);
    }
    bench_history::default_path()
}

/// A fault-injection point for the crash test: with `ABBA_HISTORY_CRASH_AFTER_RUNS=N` set,
/// the recording process aborts (no unwinding, no cleanup: as `kill -9` would stop it)
/// while inserting run `N` of a record, inside its open transaction.
fn crash_point(run_index: usize) {
    thread_local! {
        static AT: Option<usize> = std::env::var("ABBA_HISTORY_CRASH_AFTER_RUNS")
            .ok()
            .and_then(|v| v.parse().ok());
    }
    if AT.with(|at| *at == Some(run_index)) {
        std::process::abort();
    }
}

/// Whether the history is the default one (neither `--history` nor `$ABBA_HISTORY`): only
/// its directory (`.abba/`) is created when missing; a directory the user named must exist.
pub fn is_default_path(flag: Option<&Path>) -> bool {
    flag.is_none() && std::env::var_os("ABBA_HISTORY").is_none_or(|v| v.is_empty())
}

/// The history at `path`, opened (created when missing) to record into; the default
/// store's directory is created when missing, any other must exist.
pub fn open_to_record(path: &Path, default: bool) -> anyhow::Result<Store> {
    if let (true, Some(dir)) = (default, path.parent()) {
        if !dir.as_os_str().is_empty() && !dir.exists() {
            std::fs::create_dir_all(dir).map_err(|e| {
                usage(format!(
                    "{}: cannot create the history's directory: {e}",
                    path.display()
                ))
            })?;
        }
    }
    Ok(Store::open(path).map_err(word)?.with_run_hook(crash_point))
}

/// Records a raw file read back (`history import`, `analyze --record`): its benchmarks
/// analysed with `config` ([`bench_history::analyse`]), then kept. Returns whether it was
/// new.
pub fn record_file(
    store: &mut Store,
    raw: &Experiment,
    config: &AnalysisConfig,
    correction: Correction,
    ctx: &Context,
) -> anyhow::Result<bool> {
    let analysed = bench_history::analyse(raw, config, correction).map_err(word)?;
    let units: Vec<Analysed<'_>> = analysed.iter().map(|a| a.as_analysed()).collect();
    let recorded = store.record(raw, &units, ctx).map_err(word)?;
    Ok(matches!(recorded, Recorded::New(_)))
}

/// The record's commits and names. `who` starts an error (`--record`, `history import`).
pub fn context(
    who: &str,
    source: &str,
    commit: Option<&str>,
    base: Option<&str>,
    branch: Option<&str>,
    bench: Option<&str>,
) -> anyhow::Result<Context> {
    check_label("--commit", commit)?;
    check_label("--base-commit", base)?;
    check_label("--branch", branch)?;
    check_label("--bench", bench)?;
    let (commit, base_commit) = bench_history::git::resolve(commit, base, branch)
        .map_err(|e| usage(format!("{who}: {}", said(&e))))?;
    if let (None, Some(base_ref)) = (
        &base_commit,
        bench_history::git::missing_pull_request_base(),
    ) {
        stderr_line(format_args!(
            "abba: warning: {who}: $GITHUB_BASE_REF is {} but git finds no merge base of HEAD with origin/{} (a shallow clone?), so the record has no base commit: both variants are kept as series at {} instead of a step; fetch the history (actions/checkout with fetch-depth: 0) or give --base-commit",
            bench_report::escape_terminal(&base_ref),
            bench_report::escape_terminal(&base_ref),
            bench_report::escape_terminal(&commit.sha.chars().take(10).collect::<String>()),
        ));
    }
    Ok(Context {
        source: source.to_owned(),
        bench: bench.map(str::to_owned),
        commit,
        base_commit,
    })
}

pub fn say_recorded(path: &Path, file: &str, new: bool, ctx: &Context, quiet: bool) {
    if quiet {
        return;
    }
    let short = |s: &str| s.chars().take(10).collect::<String>();
    let at = match &ctx.base_commit {
        Some(b) if b.sha != ctx.commit.sha => {
            format!("{} -> {}", short(&b.sha), short(&ctx.commit.sha))
        }
        _ => short(&ctx.commit.sha),
    };
    if new {
        stderr_line(format_args!(
            "abba: recorded {file} at {at} into {}",
            path.display()
        ));
    } else {
        stderr_line(format_args!(
            "abba: {file} is already in {} (kept once)",
            path.display()
        ));
    }
}

/// How the user named a history: `--history` when given, else the default store.
pub fn history_role(given: bool, default: &'static str) -> &'static str {
    if given { "--history" } else { default }
}

/// `--record`'s settings, settled before anything runs: the commits (resolved now) and the
/// history file (checked read-only now, written only after the experiment).
#[derive(Debug, Clone)]
pub struct Recording {
    ctx: Context,
    path: PathBuf,
    role: &'static str,
    default: bool,
}

impl Recording {
    /// The history file as a file no export and no raw file may replace.
    pub fn kept(&self) -> crate::core::paths::Kept<'_> {
        crate::core::paths::Kept {
            role: self.role,
            path: &self.path,
        }
    }

    /// Refuses a raw runs' file (`flag`, path when given) that is the history file.
    ///
    /// # Errors
    /// Exit 2 naming both.
    pub fn refuse_as_raw(&self, raw: &[(&str, Option<&Path>)]) -> anyhow::Result<()> {
        for (flag, path) in raw {
            if let Some(path) = path {
                crate::core::paths::check_not_kept(flag, path, "the raw runs", &[self.kept()])?;
            }
        }
        Ok(())
    }
}

/// Checks `--record` of `compare`, `suite` or `analyze` (`source`) before anything runs:
/// the commit is resolved (outside git it needs `--commit`), and the history file must be
/// an abba history, an empty file or a new path. `None` without `--record`.
///
/// # Errors
/// Exit 2 naming `--record` or `--history`; nothing is written.
pub fn prepare(args: &RecordArgs, source: &str) -> anyhow::Result<Option<Recording>> {
    if !args.record {
        return Ok(None);
    }
    let ctx = context(
        "--record",
        source,
        args.commit.as_deref(),
        args.base_commit.as_deref(),
        args.branch.as_deref(),
        args.bench.as_deref(),
    )?;
    let path = resolve_path(args.history.as_deref());
    let role = history_role(args.history.is_some(), "the history of --record");
    let default = is_default_path(args.history.as_deref());
    // The default store's directory (.abba/) is created when the record is written.
    let new_default_dir = default && path.parent().is_some_and(|d| !d.exists());
    if !new_default_dir {
        bench_history::check_recordable(&path).map_err(|e| match args.history {
            Some(_) => usage(format!("--history {}", said(&e))),
            None => usage(format!("--record: the history {}", said(&e))),
        })?;
    }
    Ok(Some(Recording {
        ctx,
        path,
        role,
        default,
    }))
}

/// `--record` after `compare` or `suite`: the experiment just run, with the analyses the
/// command made of it (`benchmarks`), recorded with the commits [`prepare`] resolved.
/// Nothing is read back or analysed again; the record names the raw file `raw_path`.
///
/// # Errors
/// Exit 2 naming the store.
pub fn record_after(
    recording: Option<&Recording>,
    experiment: &mut Experiment,
    raw_path: &Path,
    benchmarks: &[Analysed<'_>],
    quiet: bool,
) -> anyhow::Result<()> {
    let Some(Recording {
        ctx, path, default, ..
    }) = recording
    else {
        return Ok(());
    };
    let mut store = open_to_record(path, *default)?;
    experiment.file = raw_path.display().to_string();
    let recorded = store.record(experiment, benchmarks, ctx).map_err(word)?;
    let new = matches!(recorded, Recorded::New(_));
    say_recorded(path, &experiment.file, new, ctx, quiet);
    Ok(())
}

/// `--record` after `analyze`: its one raw file read back and analysed with the
/// command's settings (`analyze` may have changed metric or read several views of it).
///
/// # Errors
/// Exit 2 naming the store or the file.
pub fn record_file_after(
    recording: Option<&Recording>,
    raw_path: &Path,
    config: &AnalysisConfig,
    quiet: bool,
) -> anyhow::Result<()> {
    let Some(Recording {
        ctx, path, default, ..
    }) = recording
    else {
        return Ok(());
    };
    let mut store = open_to_record(path, *default)?;
    let raw = read_raw(raw_path).map_err(|e| usage(e.to_string()))?;
    let new = record_file(&mut store, &raw, config, Correction::default(), ctx)?;
    say_recorded(path, &raw_path.display().to_string(), new, ctx, quiet);
    Ok(())
}

/// Checks `--record` on `analyze` before anything runs: one raw file.
pub fn check_record_inputs(args: &RecordArgs, files: &[PathBuf]) -> anyhow::Result<()> {
    if args.record && files.len() != 1 {
        return Err(usage(
            "--record: give one raw file (abba history import FILE... records several)",
        ));
    }
    if args.record && files.first().is_some_and(|f| f == Path::new("-")) {
        return Err(usage(
            "--record: standard input cannot be recorded (its content is gone once read); save it to a file",
        ));
    }
    if let (true, Some(f)) = (args.record, files.first()) {
        // Only a raw file holds an experiment to record; said before any report.
        let head = read_head(f);
        if !matches!(
            bench_sched::detect_format(&head),
            bench_sched::InputFormat::Raw
        ) {
            return Err(usage(format!(
                "--record: {} is not an abba raw file (abba compare --output writes one); CSV and hyperfine data hold no experiment to record",
                f.display()
            )));
        }
    }
    Ok(())
}

/// The first 64 KiB of a file (empty when it cannot be read: the reader names the error).
fn read_head(path: &Path) -> Vec<u8> {
    use std::io::Read as _;
    let mut head = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(64 * 1024).read_to_end(&mut head);
    }
    head
}
