//! `abba history` and `--record`: the arguments, and their wiring to `bench-history` (the
//! store, records and series), `bench-report` (the documents) and the check's words
//! (`check`).

mod check;
mod read;

use std::path::{Path, PathBuf};

use bench_history::{Analysed, Context, HistoryError, Recorded, Store};
use bench_sched::{Experiment, read_raw};
use bench_stats::AnalysisConfig;
use bench_stats::suite::Correction;
use clap::{Args, Subcommand};

use crate::exit::usage;
use crate::output::stderr_line;

const HISTORY: &str = "History";

/// `abba history --help`'s examples.
pub const HISTORY_HELP: &str = "\
Examples:
  abba compare --record ./bench                        # a level of HEAD
  abba compare --record --bench parse --base-commit HEAD~1 'old/parse' 'new/parse'   # a step
  abba suite --record                                  # every benchmark of abba.toml
  abba history import results/*.jsonl --commit v1.2
  abba history list
  abba history show parse
  abba history check --fail-if-slower 3%               # CI: exit 1 on a slowdown
  abba history export --format bmf > bencher.json

The store is .abba/history.db at the top of the git repository (--history PATH or
$ABBA_HISTORY elsewhere): SQLite, written one transaction per record, so CI jobs may
record at once. See docs/history.md.";

/// `--record` and what it records with (on `compare`, `suite` and `analyze`).
#[derive(Debug, Args, Clone, Default)]
pub struct RecordArgs {
    /// Record the experiment into the history (see `abba history --help`).
    ///
    /// Record the experiment (its header, every run, each variant's level and each
    /// comparison's summary) into the history store, with its commit (`git rev-parse HEAD`,
    /// or --commit) and, when it compares two commits, its base commit (--base-commit, else
    /// the merge base of a pull request when $GITHUB_BASE_REF is set). Recording the same
    /// raw file twice keeps it once.
    #[arg(long, help_heading = HISTORY, hide_short_help = true)]
    pub record: bool,
    /// The history file [default: $ABBA_HISTORY, else .abba/history.db at the top of the
    /// git repository, or in the current directory outside git].
    #[arg(long, value_name = "PATH", requires = "record", help_heading = HISTORY, hide_short_help = true)]
    pub history: Option<PathBuf>,
    /// The commit measured (the candidate's) [default: git's HEAD].
    #[arg(long, value_name = "REV", requires = "record", help_heading = HISTORY, hide_short_help = true)]
    pub commit: Option<String>,
    /// The commit of the baseline variant, when the experiment compares two commits
    /// [default: the merge base with $GITHUB_BASE_REF when set, else none].
    #[arg(long, value_name = "REV", requires = "record", help_heading = HISTORY, hide_short_help = true)]
    pub base_commit: Option<String>,
    /// The branch recorded [default: git's current branch, else $GITHUB_HEAD_REF or
    /// $GITHUB_REF_NAME].
    #[arg(long, value_name = "NAME", requires = "record", help_heading = HISTORY, hide_short_help = true)]
    pub branch: Option<String>,
    /// The benchmark's name in the history [default: a suite benchmark's name, else the
    /// variant's (for two commits: the baseline variant's)].
    #[arg(long, value_name = "NAME", requires = "record", help_heading = HISTORY, hide_short_help = true)]
    pub bench: Option<String>,
}

/// `abba history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: HistoryCommand,
}

/// The filters and store of the reading subcommands.
#[derive(Debug, Args, Clone)]
pub struct ReadArgs {
    /// The history file [default: $ABBA_HISTORY, else .abba/history.db at the top of the
    /// git repository, or in the current directory].
    #[arg(long, value_name = "PATH")]
    pub history: Option<PathBuf>,
    /// Only this machine (its name, or a prefix of its fingerprint).
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
    /// Only experiments recorded on this branch.
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
    /// From this date (YYYY-MM-DD, by commit time) or this commit (a hash prefix) on.
    #[arg(long, value_name = "DATE|REV")]
    pub since: Option<String>,
    /// Only benchmarks of this metric (wall, cpu, json:FIELD, ...).
    #[arg(long, value_name = "METRIC")]
    pub metric: Option<String>,
    /// The smallest number of commits on each side of a change point.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub min_segment: Option<u32>,
    /// The significance threshold of a change point (permutation p).
    #[arg(long, allow_hyphen_values = true, value_name = "P", value_parser = crate::parse::parse_fraction)]
    pub threshold: Option<f64>,
    /// Confidence of the chain's interval.
    #[arg(long, allow_hyphen_values = true, default_value = "0.95", value_name = "C", value_parser = crate::parse::parse_fraction)]
    pub confidence: f64,
}

/// The subcommands of `abba history`.
#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Record existing raw files (abba compare --output) into the history.
    #[command(after_help = "\
Examples:
  abba history import runs.jsonl
  abba history import --commit v1.2 --bench parse old/*.jsonl
  abba history import --base-commit main~1 --commit main step.jsonl")]
    Import(Box<ImportArgs>),
    /// The benchmarks and machines in the history.
    List(ReadArgs),
    /// One benchmark's series: commit, subject, level, step, verdict, change points.
    #[command(after_help = "\
Examples:
  abba history show toy
  abba history show parse --machine ci-runner-3 --since 2026-11-01
  abba history show parse --export-html parse.html

The level of a commit is the median run of its experiments (with a distribution-free 95%
interval); the step is a paired comparison (abba compare) of the commit with an earlier
one. Change points of the levels come from e-divisive means with a permutation test;
the chain adds the steps' log ratios from the oldest linked commit to the newest.")]
    Show(ShowArgs),
    /// CI: exit 1 when the newest commits hold a slowdown (a change point, or a chain of
    /// steps beyond --fail-if-slower).
    #[command(after_help = "\
Examples:
  abba history check
  abba history check --fail-if-slower 3% --since main~20
  abba history check --recent 5 --machine ci-runner-3

Each change point is printed with the paired abba compare that confirms it; run it with
--record and the check reads its verdict: a change the paired comparison does not find
no longer fails the check.")]
    Check(CheckArgs),
    /// Write every series as CSV, JSON or Bencher Metric Format.
    #[command(after_help = "\
Examples:
  abba history export --format csv > history.csv
  abba history export --format json --output history.json
  abba history export --format bmf --since 2026-12-01    # for a Bencher server")]
    Export(ExportArgs),
}

/// `abba history import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Raw JSONL files (abba compare --output, abba suite --output).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The history file.
    #[arg(long, value_name = "PATH")]
    pub history: Option<PathBuf>,
    /// The commit measured [default: git's HEAD].
    #[arg(long, value_name = "REV")]
    pub commit: Option<String>,
    /// The baseline's commit, when the files compare two commits.
    #[arg(long, value_name = "REV")]
    pub base_commit: Option<String>,
    /// The branch recorded.
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
    /// The benchmark's name in the history.
    #[arg(long, value_name = "NAME")]
    pub bench: Option<String>,
}

/// `abba history show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The benchmark (see `abba history list`).
    #[arg(value_name = "BENCH")]
    pub bench: String,
    /// Filters and store.
    #[command(flatten)]
    pub read: ReadArgs,
    /// The series as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also write a self-contained HTML trend chart to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_html: Option<PathBuf>,
}

/// `abba history check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Only this benchmark (default: all).
    #[arg(value_name = "BENCH")]
    pub bench: Option<String>,
    /// Filters and store.
    #[command(flatten)]
    pub read: ReadArgs,
    /// A change point counts when it is among the newest N commits.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = parse_recent)]
    pub recent: usize,
    /// Exit 1 also when the chain of steps is significantly slower and may reach PCT.
    #[arg(long, allow_hyphen_values = true, value_name = "PCT", value_parser = crate::parse::parse_percent)]
    pub fail_if_slower: Option<f64>,
}

/// `abba history export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Only this benchmark (default: all).
    #[arg(value_name = "BENCH")]
    pub bench: Option<String>,
    /// Filters and store.
    #[command(flatten)]
    pub read: ReadArgs,
    /// csv, json or bmf (Bencher Metric Format: the newest commit's levels).
    #[arg(long, value_parser = ["csv", "json", "bmf"], default_value = "csv")]
    pub format: String,
    /// Write to FILE (atomically) instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `--recent N`: at least 1 (0 would look at no commit, so no change point could fail).
fn parse_recent(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1 (0 would check no commit for a change point)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("must be a whole number of commits, at least 1".into()),
    }
}

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

/// `abba history ...`.
pub fn run(args: HistoryArgs) -> anyhow::Result<u8> {
    match args.command {
        HistoryCommand::Import(a) => import(&a),
        HistoryCommand::List(a) => read::list(&a),
        HistoryCommand::Show(a) => read::show(&a),
        HistoryCommand::Check(a) => check::check(&a),
        HistoryCommand::Export(a) => read::export(&a),
    }
}

/// A history error as the binary says it: the library's fact, with the flag that helps.
fn said(e: &HistoryError) -> String {
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
fn word(e: HistoryError) -> anyhow::Error {
    usage(said(&e))
}

/// Where the history is: `--history`, else `$ABBA_HISTORY`, else the library's default
/// (`.abba/history.db` at the top of the git repository, or in the current directory).
fn resolve_path(flag: Option<&Path>) -> PathBuf {
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
fn is_default_path(flag: Option<&Path>) -> bool {
    flag.is_none() && std::env::var_os("ABBA_HISTORY").is_none_or(|v| v.is_empty())
}

/// The history at `path`, opened (created when missing) to record into; the default
/// store's directory is created when missing, any other must exist.
fn open_to_record(path: &Path, default: bool) -> anyhow::Result<Store> {
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
fn record_file(
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
fn context(
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

fn say_recorded(path: &Path, file: &str, new: bool, ctx: &Context, quiet: bool) {
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
fn history_role(given: bool, default: &'static str) -> &'static str {
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
    pub fn kept(&self) -> crate::paths::Kept<'_> {
        crate::paths::Kept {
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
                crate::paths::check_not_kept(flag, path, "the raw runs", &[self.kept()])?;
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

/// Refuses, before the store is read, an output of a history subcommand (`flag path`)
/// that is the history file itself under any spelling.
///
/// # Errors
/// Exit 2 naming both.
fn check_output_not_history(
    flag: &str,
    output: Option<&Path>,
    read: &ReadArgs,
) -> anyhow::Result<()> {
    let Some(output) = output else {
        return Ok(());
    };
    let history = resolve_path(read.history.as_deref());
    let kept = crate::paths::Kept {
        role: history_role(read.history.is_some(), "the history"),
        path: &history,
    };
    crate::paths::check_not_kept(flag, output, "the export", &[kept])
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

/// `abba history import`: every file read and checked before the store is touched, each
/// analysed with the library's defaults and its own seed, as `abba analyze` (or `abba
/// suite`, for a suite's file) would by default.
fn import(args: &ImportArgs) -> anyhow::Result<u8> {
    let ctx = context(
        "history import",
        "import",
        args.commit.as_deref(),
        args.base_commit.as_deref(),
        args.branch.as_deref(),
        args.bench.as_deref(),
    )?;
    let mut raws = Vec::with_capacity(args.files.len());
    for f in &args.files {
        let raw = read_raw(f).map_err(|e| usage(e.to_string()))?;
        raws.push(raw);
    }
    let path = resolve_path(args.history.as_deref());
    let mut store = open_to_record(&path, is_default_path(args.history.as_deref()))?;
    for raw in &raws {
        let config = bench_history::default_config(raw);
        let new = record_file(&mut store, raw, &config, Correction::default(), &ctx)?;
        say_recorded(&path, &raw.file, new, &ctx, false);
    }
    Ok(0)
}
