//! The arguments of `abba suite`.
//!
//! The field docs are `abba suite --help` (clap's text, where `[variants]` is the suite
//! file's table), not rustdoc links.
#![allow(rustdoc::broken_intra_doc_links)]

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueHint};

use crate::args::parse::{MAX_BLOCKS, MAX_RESAMPLES, MAX_WARMUP};
use bench_sched::parse_duration_with_unit;
use bench_stats::PairedEstimator;
use bench_stats::analysis::{parse_estimator, parse_fraction, parse_margin};

pub const SUITE_HELP: &str = "\
The suite file (TOML; default abba.toml):
  [variants]                  # name = value of {variant}; the first is the baseline
  base = \"./build-base/bin\"
  head = \"./build-head/bin\"

  [settings]                  # optional defaults; the flags override them
  blocks = 20
  timeout = \"60s\"

  [[benchmark]]
  name = \"parse-small\"
  command = \"{variant}/parser data/small.json\"

  [[benchmark]]
  name = \"parse-large\"
  command = \"{variant}/parser data/large.json\"
  runs-per-block = 4          # also: metric, unit, higher-is-better, timeout,
                              # setup, prepare, conclude, cleanup

`{variant}` is the variant's value, `{name}` its name; a command with neither gets the value
as a prefix (`base = \"env LD_LIBRARY_PATH=build-base\"`). Every block runs every benchmark's
variants in counterbalanced order (ABBA, BAAB), the benchmarks in a fresh random order, so
drift cannot line up with one benchmark. One raw file holds it all.

Examples:
  abba suite                                   # run abba.toml
  abba suite --list                            # the benchmarks and their commands
  abba suite --dry-run --blocks 10             # the schedule, nothing run
  abba suite --only 'parse-*' --blocks 30      # a subset (globs)
  abba suite --fail-if-slower 5% --fail-if-slower parse-large=10%
  abba suite --export-pr-comment comment.md --export-bmf bencher.json
  abba suite --shard 2/3 --seed 7 -o shard-2.jsonl   # one CI job's share
  abba suite --merge shard-*.jsonl             # the shards as one suite report

Significance across the suite: Benjamini-Hochberg by default (false discovery rate at
--alpha), or --suite-correction holm (family-wise) or none. Under GitHub Actions the report
is appended to $GITHUB_STEP_SUMMARY (--no-step-summary turns it off).";

/// `abba suite`: every benchmark of a suite file, compared between its variants in one
/// interleaved experiment.
#[derive(Debug, Args)]
pub struct SuiteArgs {
    /// The suite file.
    #[arg(default_value = "abba.toml", value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub file: PathBuf,
    /// List the benchmarks and the command of every variant, then exit.
    #[arg(long, help_heading = "Running")]
    pub list: bool,
    /// Print the schedule and the number of runs, then exit.
    #[arg(long, help_heading = "Running")]
    pub dry_run: bool,
    /// Only the benchmarks whose names match one of these globs (`*`, `?`).
    #[arg(long, value_name = "GLOB", num_args = 1.., help_heading = "Running")]
    pub only: Vec<String>,
    /// Run shard K of N: only the benchmarks whose name hashes to K (FNV-1a of the name,
    /// modulo N), into the --output raw file that `--merge` reads back with the others.
    #[arg(long, value_name = "K/N", value_parser = <bench_sched::Shard as std::str::FromStr>::from_str, conflicts_with = "resume", help_heading = "Running")]
    pub shard: Option<bench_sched::Shard>,
    /// Merge the raw files of every shard of one suite (`--shard K/N`) into the suite's
    /// one report, one correction across every benchmark; nothing is run.
    #[arg(long, value_name = "FILE", num_args = 1.., value_hint = ValueHint::FilePath, conflicts_with_all = ["file", "list", "dry_run", "only", "blocks", "warmup", "timeout", "seed", "metric", "runs_per_block", "shell", "ignore_failure", "show_output", "output", "force", "resume", "shard"], help_heading = "Output")]
    pub merge: Vec<PathBuf>,
    /// Number of blocks [default: the file's `blocks`, else 20].
    #[arg(long, short = 'b', value_parser = clap::value_parser!(u32).range(1..=MAX_BLOCKS), value_name = "N", help_heading = "Running")]
    pub blocks: Option<u32>,
    /// Untimed runs of every variant before the first block [default: the file's, else 1].
    #[arg(long, short = 'w', value_parser = clap::value_parser!(u32).range(0..=MAX_WARMUP), value_name = "N", help_heading = "Running")]
    pub warmup: Option<u32>,
    /// Per-run timeout (`30s`) [default: the file's, else none].
    #[arg(long, allow_hyphen_values = true, value_name = "DURATION", value_parser = parse_duration_with_unit, help_heading = "Running")]
    pub timeout: Option<Duration>,
    /// Seed of the run order and layouts [default: fresh, printed].
    #[arg(long, value_name = "N", help_heading = "Running")]
    pub seed: Option<u64>,
    /// What every benchmark is decided on: wall, cpu (user + sys), ... [default: the
    /// file's `metric`, else wall]. Overrides `[settings]` and each benchmark's own metric
    /// (with its unit and direction).
    #[arg(long, value_name = "METRIC", help_heading = "Running")]
    pub metric: Option<String>,
    /// Runs of each variant of every benchmark per block, a multiple of 2 (each ABBA cycle
    /// runs each variant twice) [default: the file's, else 2]. Overrides `[settings]` and
    /// each benchmark's own `runs-per-block`.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=crate::args::parse::MAX_RUNS_PER_BLOCK), value_name = "N", help_heading = "Running")]
    pub runs_per_block: Option<u32>,
    /// Run the commands through `sh -c` (`sh`) or split them without a shell (`none`)
    /// [default: the file's, else none].
    #[arg(long, value_name = "SHELL", help_heading = "Running")]
    pub shell: Option<String>,
    /// Record a failing run and go on.
    #[arg(long, short = 'i', help_heading = "Running")]
    pub ignore_failure: bool,
    /// Show the commands' output.
    #[arg(long, help_heading = "Running")]
    pub show_output: bool,
    /// Stream the raw runs to FILE (JSONL, flushed run by run).
    #[arg(long, short = 'o', value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,
    /// Overwrite an existing --output file.
    #[arg(long, help_heading = "Output")]
    pub force: bool,
    /// Continue an interrupted suite from its raw file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["output", "only"], help_heading = "Output")]
    pub resume: Option<PathBuf>,
    /// The suite's analysis JSON (`abba.suite/1`) on stdout instead of the report.
    #[arg(long, help_heading = "Output")]
    pub json: bool,
    /// Write the suite's analysis JSON to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub export_json: Option<PathBuf>,
    /// Write the suite report as Markdown to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub export_markdown: Option<PathBuf>,
    /// Write the body of one pull-request comment to FILE (Markdown, at most 65,536
    /// characters, starting with the hidden marker `<!-- abba:ID -->`).
    #[arg(long, value_name = "FILE", help_heading = "CI")]
    pub export_pr_comment: Option<PathBuf>,
    /// The ID of the comment's marker [default: the experiment id].
    #[arg(long, value_name = "ID", help_heading = "CI")]
    pub comment_id: Option<String>,
    /// Write Bencher Metric Format JSON to FILE (each benchmark's candidate median and
    /// its interval).
    #[arg(long, value_name = "FILE", help_heading = "CI")]
    pub export_bmf: Option<PathBuf>,
    /// Write github-action-benchmark JSON (`customSmallerIsBetter` /
    /// `customBiggerIsBetter`) to FILE.
    #[arg(long, value_name = "FILE", help_heading = "CI")]
    pub export_github_benchmark: Option<PathBuf>,
    /// Do not append the report to $GITHUB_STEP_SUMMARY.
    #[arg(long, help_heading = "CI")]
    pub no_step_summary: bool,
    /// Exit 1 when a benchmark's corrected verdict is a slowdown that may reach PCT;
    /// NAME=PCT sets one benchmark's threshold (repeatable).
    #[arg(long, value_name = "[NAME=]PCT", help_heading = "Gate")]
    pub fail_if_slower: Vec<String>,
    /// Control significance across the benchmarks: `bh` (Benjamini-Hochberg, false
    /// discovery rate), `holm` (family-wise error rate) or `none`.
    #[arg(
        long,
        default_value = "bh",
        value_name = "RULE",
        help_heading = "Analysis"
    )]
    pub suite_correction: String,
    /// Error rate of the suite's decisions.
    #[arg(long, allow_hyphen_values = true, default_value = "0.05", value_parser = parse_fraction, value_name = "A", help_heading = "Analysis")]
    pub alpha: f64,
    /// Bootstrap resamples.
    #[arg(
        long,
        value_parser = clap::value_parser!(u32).range(1..=MAX_RESAMPLES),
        default_value_t = 2000,
        value_name = "N",
        help_heading = "Analysis"
    )]
    pub resamples: u32,
    /// Equivalence margin.
    #[arg(long, allow_hyphen_values = true, default_value = "1%", value_name = "PCT", value_parser = parse_margin, help_heading = "Analysis")]
    pub equivalence_margin: f64,
    /// The paired estimator that decides.
    #[arg(long, value_name = "NAME", value_parser = parse_estimator, help_heading = "Analysis")]
    pub estimator: Option<PairedEstimator>,
    /// The baseline variant [default: the first in [variants]].
    #[arg(long, value_name = "NAME", help_heading = "Analysis")]
    pub baseline: Option<String>,
    /// One table of every variant of every benchmark against the suite's first series,
    /// with a class column (NBenchmark's cross-class mode), instead of one comparison per
    /// benchmark (its exports: --export-json, --export-markdown and the step summary; the
    /// per-benchmark gate and CI documents are refused with it).
    #[arg(long, help_heading = "Analysis", conflicts_with_all = ["fail_if_slower", "export_pr_comment", "export_bmf", "export_github_benchmark"])]
    pub cross_class: bool,
    /// Progress and notes off.
    #[arg(long, short = 'q', help_heading = "Output")]
    pub quiet: bool,
    /// `--until`, `--min-blocks`, `--max-blocks`, `--time-budget` and `--variant`.
    #[command(flatten)]
    pub stop: SuiteStopArgs,
    /// `--record` into the history.
    #[command(flatten)]
    pub record: super::history::RecordArgs,
}

/// How long a suite runs, and which commands its variants stand for (issue 38).
#[derive(Debug, Args)]
pub struct SuiteStopArgs {
    /// Replace the value of variant NAME in the file's [variants] (repeatable): an A/A run
    /// (`--variant head=./build-base/bin`) or another build needs no edited copy of the
    /// file.
    #[arg(long, value_name = "NAME=VALUE", help_heading = "Running")]
    pub variant: Vec<String>,
    /// Stop each benchmark as soon as its answer is clear (`decided`): after every block
    /// each benchmark still running looks at its anytime-valid confidence sequence (as
    /// `compare --until decided`), at the suite's alpha over the number of benchmarks
    /// (Bonferroni, so no false claim anywhere in the suite at --alpha); a decided
    /// benchmark runs in no further block, and the suite stops when all are decided or at
    /// --max-blocks. Two variants.
    #[arg(
        long,
        value_name = "RULE",
        value_parser = ["decided"],
        hide_possible_values = true,
        conflicts_with = "blocks",
        help_heading = "Running"
    )]
    pub until: Option<String>,
    /// With --until decided: the most blocks [default: 200].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_BLOCKS), value_name = "N", requires = "until", help_heading = "Running")]
    pub max_blocks: Option<u32>,
    /// With --until decided: no decision before this many blocks [default: the fewest at
    /// which each benchmark's sequence can decide at its level].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_BLOCKS), value_name = "N", requires = "until", help_heading = "Running")]
    pub min_blocks: Option<u32>,
    /// A cap on the wall time (`10min`): after a block, when one more at the last one's
    /// pace would end past it, the suite stops there and reports what was decided; the raw
    /// file stays valid and `--resume` continues it.
    #[arg(long, allow_hyphen_values = true, value_name = "DURATION", value_parser = parse_duration_with_unit, help_heading = "Running")]
    pub time_budget: Option<Duration>,
}
