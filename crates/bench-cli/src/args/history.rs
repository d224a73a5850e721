//! `abba history`'s arguments and `--record`'s flags (on `compare`, `suite`, `analyze`).

use std::path::PathBuf;

use clap::{Args, Subcommand};

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
    #[arg(long, allow_hyphen_values = true, value_name = "P", value_parser = bench_stats::analysis::parse_fraction)]
    pub threshold: Option<f64>,
    /// Confidence of the chain's interval.
    #[arg(long, allow_hyphen_values = true, default_value = "0.95", value_name = "C", value_parser = bench_stats::analysis::parse_fraction)]
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
    #[arg(long, allow_hyphen_values = true, value_name = "PCT", value_parser = bench_stats::analysis::parse_percent)]
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
