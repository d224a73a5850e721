//! Command-line arguments. Everything here is turned into plain configs once, in `main`.

pub mod compute;
pub mod history;
pub mod parse;
pub mod suite;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum, ValueHint};

use crate::args::compute::ComputeArgs;
pub use crate::args::parse::{
    LayoutArg, MAX_BLOCKS, MAX_RESAMPLES, MAX_RUNS, MAX_RUNS_PER_BLOCK, MAX_WARMUP, ShellArg,
    StyleArg,
};
use crate::args::parse::{help_default, long_help_default, parse_shell};
use bench_sched::{parse_duration_with_unit, parse_label};
use bench_stats::analysis::{
    parse_estimator, parse_fraction, parse_margin, parse_percent, parse_practical,
};
use bench_stats::{AnalysisConfig, PairedEstimator, PracticalRule};

/// The headings `--help` groups the options under (`-h` shows the common ones of each).
const RUNNING: &str = "Running";
const DESIGN: &str = "Design";
const OUTPUT: &str = "Output";
const ANALYSIS: &str = "Analysis";
const GATE: &str = "Gate";
const HOOKS: &str = "Hooks";
const MACHINES: &str = "Many machines";

const ABOUT: &str =
    "Paired, blocked, layout-randomized benchmark comparisons with honest statistics.";

const LONG_ABOUT: &str = "\
abba tells you whether version B is faster than version A, and by how much. It runs the
variants inside the same blocks in ABBA/BAAB (or randomized) order, gives every run a random
environment size to move the stack, and reports paired intervals (Hodges-Lehmann of the
per-block ratios, block bootstrap), effect sizes and a plain-words verdict.

Run `abba` with no arguments for a 15-second demo on the built-in kernel.";

const AFTER_HELP: &str = "\
Examples:
  abba                                          # the built-in demo (chains=1 vs chains=2)
  abba --export-html demo.html                  # the demo, and its report with charts
  abba --verbose                                # the demo's full report (per-block tables, ...)
  abba compare 'old/bin --flag' 'new/bin --flag'
  abba compare --blocks 30 --output runs.jsonl './a.out' './b.out'
  abba analyze runs.jsonl --export-markdown report.md
  abba compute --op int --chains 2 --duration 0.3

Exit codes: 0 success, 1 a --fail-if-* gate tripped, 2 bad usage or input,
3 a benchmarked command failed or timed out, 130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP (raw data kept).";

/// The `abba` command line.
#[derive(Debug, Parser)]
#[command(name = "abba", version, about = ABOUT, long_about = LONG_ABOUT, after_help = AFTER_HELP)]
pub struct Cli {
    /// What to do; without one, run the built-in demo.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Demo options (used when no subcommand is given).
    #[command(flatten)]
    pub demo: DemoArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the chain-count integer kernel and print its throughput.
    #[command(after_help = "\
Examples:
  abba compute --op int --chains 1 --duration 0.3
  abba compute --chains=2 --threads=1 --json
  abba compute --steps 20000000        # fixed work: slower when the machine is busy

One dependency chain is limited by the latency of its multiply-add; two independent
chains overlap in the pipeline, so chains=2 runs at nearly twice the throughput.")]
    Compute(ComputeArgs),
    /// Run a blocked experiment over two or more commands and report the comparison.
    #[command(after_help = COMPARE_SHORT_HELP, after_long_help = COMPARE_HELP)]
    Compare(Box<CompareArgs>),
    /// Analyze saved data: abba raw JSONL, CSV, or hyperfine --export-json files.
    #[command(after_help = ANALYZE_SHORT_HELP, after_long_help = ANALYZE_HELP)]
    Analyze(Box<AnalyzeArgs>),
    /// Plan an experiment: blocks needed for a power, the smallest detectable change, the
    /// blocks `--until decided` is expected to take, and how many runs per block pay off.
    #[command(after_help = PLAN_HELP)]
    Plan(Box<PlanArgs>),
    /// Run a suite of benchmarks (a TOML file) between a base and candidate builds in one
    /// interleaved experiment: one table, significance controlled across the suite, and the
    /// outputs CI shows (job summary, pull-request comment, Bencher/github-benchmark JSON).
    #[command(after_help = crate::args::suite::SUITE_HELP)]
    Suite(Box<crate::args::suite::SuiteArgs>),
    /// Every result kept by commit: record experiments (--record, import), show a
    /// benchmark's levels and paired steps with their change points, check CI, export.
    #[command(after_help = history::HISTORY_HELP)]
    History(history::HistoryArgs),
    /// Print a shell completion script.
    #[command(
        after_help = "Example:\n  abba completions bash > ~/.local/share/bash-completion/completions/abba"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

const PLAN_HELP: &str = "\
Examples:
  abba plan pilot.jsonl --effect 2%                 # blocks for 80% power against a 2% change
  abba plan pilot.jsonl --effect 2% --blocks 30     # ... and the smallest change 30 blocks detect
  abba plan pilot.jsonl --effect 5% --time 10m      # ... in a budget of ten minutes
  abba plan --profile shared-vm --effect 2% --json  # a calibrated noise profile instead of a pilot

A pilot is any raw file of two variants (abba compare --output), e.g. 12 blocks of the
real commands. Its block log-ratios, centred, are resampled to predict the power of the
default verdict (the signed-rank test of the block log-ratios) and the blocks that
abba compare --until decided takes at no change, the margin, and 2x and 5x the margin.
Profiles: quiet, shared-vm, bursty, drift (simulated 50 ms commands).";

const COMPARE_SHORT_HELP: &str = "\
Examples:
  abba compare 'sleep 0.01'                                 # one command: its summary
  abba compare -N -w 3 -r 40 'sleep 0.01' 'sleep 0.012'     # two, with hyperfine's flags
--help: every option (scans -P/-L, --resume, estimators, exports), examples, the gate rule.";

const ANALYZE_SHORT_HELP: &str = "\
Examples:
  abba analyze runs.jsonl
  abba analyze hyperfine.json --export-html report.html
--help: every option, more examples and the CSV format.";

const COMPARE_HELP: &str = "\
Examples:
  abba compare 'sleep 0.01'                                   # one command alone: hyperfine's summary
  abba compare 'old/bin --input x' 'new/bin --input x'
  abba compare --blocks 30 --design random --output runs.jsonl ./a ./b ./c
  abba compare --shell sh 'make -s test | wc -l' 'make -s test2 | wc -l'
  abba compare --metric json:items_per_sec --higher-is-better './bench --json' './bench2 --json'
  abba compare --kernel chains=1 --kernel chains=2
  abba compare --fail-if-slower 5% ./baseline ./candidate     # CI gate
  abba compare --confirm ./a ./b ./c                          # rerun the standout
  abba compare --runs 40 ./a ./b                              # 20 ABBA blocks: 40 runs each
  abba compare --time-budget 2min ./a ./b                     # as many blocks as fit
  abba compare --until decided --max-blocks 100 ./a ./b       # stop when the answer is clear
  abba compare --resume runs.jsonl --blocks 40                # extend an ended run (a further look)
  abba compare --shell sh --prepare 'sync; echo 3 > /proc/sys/vm/drop_caches' './a' './b'
  abba compare --setup 'make a' --setup 'make b' --cleanup 'make clean' ./a ./b
  abba compare --warmup-per-block 1 ./a ./b                   # untimed run of each per block
  abba compare --export-csv runs.csv --export-csv-summary summary.csv ./a ./b
  abba compare --export-html report.html --export-svg charts/ ./a ./b   # pictures
  abba compare -L t 1,2,4 './prog --threads {t}'              # one variant per value
  abba compare -P chains 1 8 --kernel 'chains={chains}'        # a scan of the kernel
  abba compare --experiment pr-123 --output results/$HOST-1.jsonl ./a ./b  # one host of many

One command is measured alone and summarized as hyperfine does (mean ± σ, min … max, user
and system, and the median with its distribution-free interval), with no verdict. With two
or more, the first command is the baseline unless --baseline names another. Each block runs every
variant (twice, in ABBA/BAAB order, for two variants); runs are written to --output as they end,
so an interrupted experiment can be analyzed or continued with --resume.

Scans (-P NAME MIN MAX [-D STEP], or -L NAME a,b,c, several -L for the cross product) make
one variant per value (at most 64), named by the substituted command or --name; 3+
variants run in a Williams design inside each block (--design random: a fresh order per
block). The report gives Friedman across the values, each value against the first (or
--baseline) with Holm's correction, and, for one numeric parameter, Page's trend test.

Gate rule (--fail-if-slower PCT): exit 1 when the verdict is significant, the candidate is
worse than the baseline, and its ratio interval reaches a slowdown of PCT (for times: upper
end >= 1 + PCT; for higher-is-better metrics: lower end <= 1 - PCT). Also exit 1, saying
so, when the gate cannot decide (no test could run: too few blocks). Otherwise 0. Its
measured operating characteristic is in docs/calibration.md.";

const ANALYZE_HELP: &str = "\
Examples:
  abba analyze runs.jsonl
  abba analyze timings.csv --unit ms
  abba analyze hyperfine.json --json
  abba analyze runs.jsonl --export-csv runs.csv   # one row per run; abba analyze runs.csv reads it
  abba analyze monday.jsonl tuesday.jsonl     # two sessions of one experiment: paired
                                              # in each, pooled over the sessions
  abba analyze runs.jsonl --export-html r.html    # one HTML file: verdicts, charts, report
  abba analyze runs.jsonl --export-svg charts/    # the charts as SVG files, for READMEs
  abba analyze results/*.jsonl                # one experiment on many hosts: by host,
                                              # session and block (same --experiment)
  abba analyze a.jsonl b.jsonl --force-unpaired   # different experiments: unpaired

CSV: a header row with columns `variant` and `value` (required), `block` (pairs the data by
block) and `class` (optional). Empty cells, non-numbers, NaN and infinities are errors naming
the file, line and column.";

/// Options shared by `compare`, `analyze` and the demo: how to analyze and report.
#[derive(Debug, Args, Clone)]
pub struct AnalysisArgs {
    /// The baseline variant's name (default: the first).
    #[arg(long, value_name = "NAME", help_heading = ANALYSIS)]
    pub baseline: Option<String>,
    /// Significance level.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_fraction, value_name = "A", help_heading = ANALYSIS, hide_short_help = true,
        help = help_default("Significance level", AnalysisConfig::DEFAULT_ALPHA),
        long_help = long_help_default("Significance level", AnalysisConfig::DEFAULT_ALPHA))]
    pub alpha: Option<f64>,
    /// Confidence level of every interval [default: 1 - alpha, so that the interval
    /// beside a verdict excludes no change exactly when the verdict is significant].
    ///
    /// Another level is printed with its level named beside the verdict. Equivalence is
    /// always the 1 - 2*alpha interval (two one-sided tests at alpha), whatever this says.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_fraction, value_name = "C", help_heading = ANALYSIS, hide_short_help = true)]
    pub confidence: Option<f64>,
    /// Bootstrap resamples per interval.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_RESAMPLES), value_name = "N", help_heading = ANALYSIS, hide_short_help = true,
        help = help_default("Bootstrap resamples per interval", AnalysisConfig::DEFAULT_RESAMPLES),
        long_help = long_help_default("Bootstrap resamples per interval", AnalysisConfig::DEFAULT_RESAMPLES))]
    pub resamples: Option<u32>,
    /// Minimum practical effect where the Cliff rule applies.
    #[arg(long, value_name = "X", help_heading = ANALYSIS, hide_short_help = true,
        help = help_default(MIN_PRACTICAL_EFFECT_HELP, AnalysisConfig::DEFAULT_MIN_PRACTICAL_EFFECT),
        long_help = long_help_default(MIN_PRACTICAL_EFFECT_HELP, AnalysisConfig::DEFAULT_MIN_PRACTICAL_EFFECT))]
    pub min_practical_effect: Option<f64>,
    /// Equivalence margin of the ratio [default: 1%; 0.1% for counts].
    ///
    /// A candidate whose 1 - 2*alpha ratio interval lies inside 1 ± margin is EQUIVALENT (two one-sided
    /// tests); under the ratio rule also the size a significant change must exceed to count
    /// as faster or slower [default: 1%; 0.1% when the metric is a count such as
    /// instructions, which resolve a hundredth of a percent].
    #[arg(long, allow_hyphen_values = true, value_name = "PCT", value_parser = parse_margin, help_heading = ANALYSIS)]
    pub equivalence_margin: Option<f64>,
    /// Which practical-size rule applies.
    #[arg(long, value_name = "RULE", value_parser = parse_practical, help_heading = ANALYSIS, hide_short_help = true,
        help = help_default(PRACTICAL_HELP, AnalysisConfig::default().practical.to_text()),
        long_help = long_help_default(PRACTICAL_HELP, AnalysisConfig::default().practical.to_text()))]
    pub practical: Option<PracticalRule>,
    /// The estimator that decides a two-variant comparison of blocked data (default
    /// typical-run; every sentence names what its ratio is about): typical-run (each
    /// variant's median run, every run counted, session noise divided out per block, with
    /// the fast (p10) and slow (p90) runs checked beside it by a randomization test; a
    /// change of only some runs is seen), hl-min-log-ratio (each variant's fastest run per
    /// block, Hodges-Lehmann of the block log-ratios, signed-rank test: more power on pure
    /// shifts, blind to a change of the slow runs), hl-median-log-ratio (the median run per block),
    /// hl-log-ratio (the block mean), pooled-median-ratio (each variant's median over all
    /// runs, block bootstrap), median-log-ratio, ratio-of-means, mean-difference (block
    /// bootstrap of block means). The JSON names the one used (`paired_estimator`).
    #[arg(long, value_name = "NAME", value_parser = parse_estimator, help_heading = ANALYSIS, hide_short_help = true)]
    pub estimator: Option<PairedEstimator>,
    /// Compare across classes in one table instead of per class.
    #[arg(long, help_heading = ANALYSIS, hide_short_help = true)]
    pub cross_class: bool,
    /// Print the analysis JSON on stdout instead of the report.
    ///
    /// Print the analysis JSON (abba.analysis/1) on stdout instead of the report.
    #[arg(long, help_heading = OUTPUT)]
    pub json: bool,
    /// Also write the analysis JSON to FILE (atomically).
    #[arg(long, value_name = "FILE", help_heading = OUTPUT, hide_short_help = true)]
    pub export_json: Option<PathBuf>,
    /// Also write the report as Markdown to FILE.
    ///
    /// Also write the report as GitHub-flavoured Markdown to FILE (atomically). `--export-md`
    /// is accepted as the same flag.
    #[arg(long, value_name = "FILE", help_heading = OUTPUT, alias = "export-md")]
    pub export_markdown: Option<PathBuf>,
    /// Also write a self-contained HTML report with charts to FILE.
    ///
    /// Written atomically: the verdicts, the charts (paired effect per block, run-order trace, distributions, the estimate's
    /// uncertainty, the shape of the change) as inline SVG, and the full report; no script, no network.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, help_heading = OUTPUT)]
    pub export_html: Option<PathBuf>,
    /// Also write each chart of the HTML report as a standalone SVG file in DIR (created
    /// when missing): paired-effect.svg, run-order.svg, distributions.svg,
    /// uncertainty.svg, shape.svg; a chart the data cannot support is left out.
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath, help_heading = OUTPUT, hide_short_help = true)]
    pub export_svg: Option<PathBuf>,
    /// Exit 1 if a candidate is significantly slower, by up to PCT.
    ///
    /// Exit 1 when a candidate is significantly slower and its slowdown may reach PCT (e.g.
    /// `2%` or `0.02`): see the README's gate rule for its exact definition and
    /// `docs/calibration.md` for its measured operating characteristic.
    #[arg(long, allow_hyphen_values = true, value_name = "PCT", value_parser = parse_percent, help_heading = GATE)]
    pub fail_if_slower: Option<f64>,
    /// Do not append the Markdown report to `$GITHUB_STEP_SUMMARY` (GitHub Actions sets it
    /// for every step; abba appends to it when it is set).
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub no_step_summary: bool,
    /// No progress output.
    #[arg(long, short, help_heading = OUTPUT)]
    pub quiet: bool,
    /// The CSV exports.
    #[command(flatten)]
    pub csv: CsvExportArgs,
    /// Print every section of the report in full.
    ///
    /// Print every section in full: the controls one per line, the per-block tables, the
    /// alternative estimates and every note (default: a compact report).
    #[arg(long, short, help_heading = OUTPUT)]
    pub verbose: bool,
    /// The unit of times in the report: s, ms, us, ns (default: scaled).
    ///
    /// The unit of time values in the report's tables and lines (default: each scaled to
    /// fit). Other metrics are unaffected.
    #[arg(long, short = 'u', value_enum, value_name = "UNIT", hide_possible_values = true, help_heading = OUTPUT)]
    pub time_unit: Option<TimeUnitArg>,
    /// How the report is drawn, as hyperfine's --style.
    ///
    /// How the report is drawn, as hyperfine spells it: auto (colour and Unicode on a
    /// terminal), basic (ASCII, no colour), full (Unicode and colour), nocolor (Unicode,
    /// no colour), color (colour forced), none (plain ASCII, no colour, no table borders).
    #[arg(long, value_enum, default_value = "auto", value_name = "STYLE", hide_possible_values = true, help_heading = OUTPUT)]
    pub style: StyleArg,
    /// Wrap the report at N columns (default: the terminal's width; not wrapped when stdout
    /// is not a terminal, as hyperfine; COLUMNS sets it too).
    #[arg(long, value_name = "N", hide_short_help = true, help_heading = OUTPUT)]
    pub width: Option<usize>,
}

/// `--min-practical-effect`'s help, before its default.
const MIN_PRACTICAL_EFFECT_HELP: &str = "Minimum practical effect where the Cliff rule applies (unpaired data by default, or `--practical cliff`): |Cliff's delta| a significant result must reach, in [0, 1] (0 turns the gate off; 0.147 is the negligible/small boundary)";

/// `--practical`'s help, before its default.
const PRACTICAL_HELP: &str = "Which practical-size rule applies: `ratio` (a significant change inside the equivalence margin is EQUIVALENT, not FASTER/SLOWER), `cliff:X` (a significant change with |Cliff's delta| < X, i.e. distributions that overlap that much, is downgraded to not significant), or `auto` (ratio for blocked data, cliff at --min-practical-effect for unpaired data)";

impl AnalysisArgs {
    /// `base` (the one [`AnalysisConfig`] builder's defaults, with what the caller knows:
    /// the seed, the metric's margin) overridden by every analysis flag given; `--alpha`
    /// moves the interval's confidence to `1 - alpha` unless `--confidence` is given. For
    /// every command that analyses (compare, analyze, suite, history).
    pub fn apply(&self, base: AnalysisConfig) -> AnalysisConfig {
        let base = match self.alpha {
            Some(alpha) => base.with_alpha(alpha),
            None => base,
        };
        AnalysisConfig {
            confidence: self.confidence.unwrap_or(base.confidence),
            resamples: self.resamples.unwrap_or(base.resamples),
            baseline: self.baseline.clone().or(base.baseline.clone()),
            min_practical_effect: self
                .min_practical_effect
                .unwrap_or(base.min_practical_effect),
            equivalence_margin: self.equivalence_margin.unwrap_or(base.equivalence_margin),
            practical: self.practical.unwrap_or(base.practical),
            grouping: if self.cross_class {
                bench_stats::Grouping::CrossClass
            } else {
                base.grouping
            },
            paired_estimator: self.estimator.unwrap_or(base.paired_estimator),
            ..base
        }
    }

    /// The significance level: `--alpha`, else the builder's default.
    pub fn alpha(&self) -> f64 {
        self.alpha.unwrap_or(AnalysisConfig::DEFAULT_ALPHA)
    }
}

/// `--time-unit`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum TimeUnitArg {
    /// Seconds.
    S,
    /// Milliseconds.
    Ms,
    /// Microseconds.
    Us,
    /// Nanoseconds.
    Ns,
}

/// `abba compare`.
///
/// Settings a `--resume` file records are `Option`s here: left out, they come from the
/// file's header (or take the default written in their help); given, they must match it.
#[derive(Debug, Args, Clone)]
// --max-blocks and --min-blocks need a stop rule: --until's, or the one a --resume file
// records (a sequential file extended to more blocks).
#[command(group = clap::ArgGroup::new("stop_rule").multiple(true).args(["until", "resume"]))]
pub struct CompareArgs {
    /// The commands to time (one) or compare (the first is the baseline).
    ///
    /// The commands to time (one) or compare (the first is the baseline unless --baseline
    /// says otherwise; with --resume: the file's).
    #[arg(value_name = "CMD", value_hint = ValueHint::CommandString)]
    pub commands: Vec<String>,
    /// A built-in kernel variant, e.g. `chains=2` or `op=fp,chains=4,duration=0.1`
    /// (runs `abba compute ... --json`, metric json:ops_per_sec, higher is better).
    #[arg(long, value_name = "SPEC", help_heading = RUNNING, hide_short_help = true)]
    pub kernel: Vec<String>,
    /// Names for the variants, in order.
    ///
    /// Names for the variants, in order (default: the command text; with --resume: the
    /// file's). hyperfine's --command-name is accepted as well.
    #[arg(long, short = 'n', alias = "command-name", value_name = "NAME", help_heading = RUNNING)]
    pub name: Vec<String>,
    /// Number of blocks; each block runs every variant [default: 20].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_BLOCKS), value_name = "N", help_heading = RUNNING)]
    pub blocks: Option<u32>,
    /// Run order inside blocks: abba, random or sequential [default: abba].
    ///
    /// Run order inside blocks: abba (ABBA/BAAB, Williams for 3+), random (fresh
    /// permutation per block), sequential (all of A then all of B: unpaired, for contrast)
    /// [default: abba].
    #[arg(long, value_name = "DESIGN", value_parser = ["abba", "random", "sequential"], hide_possible_values = true, help_heading = DESIGN)]
    pub design: Option<String>,
    /// Warm-up runs of each variant before the first block [default: 1].
    ///
    /// Untimed warm-up runs of every variant before the first block [default: 1].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_WARMUP), short = 'w', value_name = "N", help_heading = RUNNING)]
    pub warmup: Option<u32>,
    /// Pause between runs, with its unit: `200ms`, `1s`, `2min` (a bare number is refused,
    /// `0` aside) [default: 0s].
    #[arg(long, allow_hyphen_values = true, value_parser = parse_duration_with_unit, value_name = "DURATION", help_heading = RUNNING, hide_short_help = true)]
    pub settle: Option<Duration>,
    /// Memory layout: `random` gives each run a random environment size (moves the stack),
    /// `fixed` holds it at one size [default: random].
    #[arg(long, value_enum, help_heading = DESIGN, hide_short_help = true)]
    pub layout: Option<LayoutArg>,
    /// Seed of every random choice (default: a fresh one, printed and stored).
    ///
    /// Seed of every random choice (run order, layout, bootstrap). Default: a fresh one,
    /// printed in the report and stored in the raw file.
    #[arg(long, value_name = "N", help_heading = DESIGN)]
    pub seed: Option<u64>,
    /// Stream the raw runs to FILE.jsonl (kept; default: a temporary file).
    ///
    /// Stream the raw runs to FILE.jsonl (flushed run by run; the file is locked while the
    /// experiment runs). An existing file is refused: continue it with --resume, or pass
    /// --force to overwrite it. Without --output the runs go to a file in $TMPDIR (or /tmp),
    /// named on any failure and removed after the report. Not hyperfine's --output (where
    /// the commands' output goes): abba discards it unless --show-output.
    #[arg(long, short, value_name = "FILE.jsonl", value_hint = ValueHint::FilePath, help_heading = OUTPUT)]
    pub output: Option<PathBuf>,
    /// Overwrite an existing --output file.
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub force: bool,
    /// The experiment id, to analyze many hosts' files as one.
    ///
    /// The experiment this run belongs to, recorded in the raw header: `abba analyze`
    /// merges files of one experiment (from many hosts) by host, session and block, and
    /// refuses to pool files of different experiments. Default: an id derived from the
    /// variants' names and commands, the metric and the design (`auto-` + 16 hex digits).
    #[arg(long, value_name = "ID", value_parser = parse_label, help_heading = MACHINES)]
    pub experiment: Option<String>,
    /// The name this machine goes by in a many-host analysis, recorded in the raw header.
    /// Default: the hostname (/proc/sys/kernel/hostname, else $HOSTNAME).
    #[arg(long, value_name = "NAME", value_parser = parse_label, help_heading = MACHINES, hide_short_help = true)]
    pub host: Option<String>,
    /// With 3+ variants: when one candidate stands out (the significant one with the largest
    /// change), rerun it against the baseline as a fresh experiment with a fresh seed and
    /// report both; the standout of a sweep is a hypothesis until an independent run agrees.
    /// Its raw runs go beside --output (FILE.confirm.jsonl) or to a temporary file.
    #[arg(long, help_heading = DESIGN, hide_short_help = true)]
    pub confirm: bool,
    /// Kill a run after DURATION (`30s`) and count it as a failure.
    ///
    /// Kill a run (and its process group) after DURATION and count it as a failure, with
    /// its unit: `500ms`, `30s`, `10min`, `1h`.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_duration_with_unit, value_name = "DURATION", help_heading = RUNNING)]
    pub timeout: Option<Duration>,
    /// `sh` (run `sh -c CMD`) or `none` (run directly, the default).
    ///
    /// Run commands through a shell (`sh`: `sh -c CMD`) or directly, split like a POSIX
    /// shell would split them, without expansion (`none`) [default: none]. Other shells
    /// are not run by name: write `bash -c '...'` as the command.
    #[arg(long, short = 'S', value_name = "SHELL", value_parser = parse_shell, help_heading = RUNNING)]
    pub shell: Option<ShellArg>,
    /// No shell, as hyperfine's -N: --shell none (the default).
    #[arg(short = 'N', conflicts_with = "shell", help_heading = RUNNING)]
    pub no_shell: bool,
    /// What to measure: wall, cpu, max-rss, json:FIELD, instructions, ...
    ///
    /// What to measure: wall, user, sys, cpu, max-rss, or json:FIELD (a number in the last
    /// JSON object the command prints on stdout), or a count of the command's processes
    /// from exec to exit: instructions (PMU or valgrind), cycles, branches, branch-misses,
    /// cache-misses (PMU only) [default: wall].
    #[arg(long, value_name = "METRIC", help_heading = ANALYSIS)]
    pub metric: Option<String>,
    /// What counts instructions: auto, pmu, valgrind.
    ///
    /// What counts a count metric: auto (the CPU's counters where the kernel allows them,
    /// else valgrind, saying why), pmu, or valgrind (cachegrind: exact instruction counts,
    /// much slower; the times are then valgrind's) [default: auto]. With a time metric and
    /// pmu, the runs record their counts beside the times.
    #[arg(long, value_name = "COUNTER", help_heading = ANALYSIS, hide_short_help = true)]
    pub counter: Option<String>,
    /// Blocks timed natively after a count under valgrind (0: none).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_BLOCKS), value_name = "N", help_heading = ANALYSIS, hide_short_help = true,
        help = help_default("Blocks timed natively after a count under valgrind (0: none)", bench_sched::NATIVE_BLOCKS),
        long_help = help_default("Under `--counter valgrind` (whose times are valgrind's), N blocks of the same commands run natively, uncounted, on CPU time after the counted ones, into FILE.native.jsonl beside the raw file, to warn when the counts and time disagree (docs/metrics.md); 0 turns them off. No effect with any other counter", bench_sched::NATIVE_BLOCKS))]
    pub native_blocks: Option<u32>,
    /// Larger values are better (throughput metrics).
    #[arg(long, help_heading = ANALYSIS, hide_short_help = true)]
    pub higher_is_better: bool,
    /// Unit of a json:FIELD metric for the report (e.g. `items/s`, `MiB`); times and RSS
    /// know their own.
    #[arg(long, value_name = "UNIT", help_heading = ANALYSIS, hide_short_help = true)]
    pub unit: Option<String>,
    /// A reference workload run right beside every variant run (R A B R R B A R), for the
    /// ratio-of-ratios estimate; doubles the runs. Under ABBA it does not narrow the
    /// estimate (ABBA already cancels a level that holds over a block); it is for
    /// sequential runs and for results to compare across machines.
    #[arg(long, value_name = "CMD", value_hint = ValueHint::CommandString, help_heading = DESIGN, hide_short_help = true)]
    pub reference: Option<String>,
    /// Pin every run to these cores, e.g. `2` or `0,2-3`.
    #[arg(long, value_name = "CPUS", help_heading = RUNNING, hide_short_help = true)]
    pub pin: Option<String>,
    /// Show the commands' stdout and stderr.
    #[arg(long, help_heading = RUNNING)]
    pub show_output: bool,
    /// Record failing runs and carry on instead of stopping with exit 3.
    #[arg(long, short = 'i', help_heading = RUNNING)]
    pub ignore_failure: bool,
    /// Continue an interrupted experiment from its raw file.
    ///
    /// Continue an interrupted experiment from its raw file: `abba compare --resume
    /// FILE.jsonl` alone takes the commands, names, blocks, design, seed and run settings
    /// from the file's header; any of them given as well must match it.
    #[arg(long, value_name = "FILE.jsonl", value_hint = ValueHint::FilePath, help_heading = RUNNING, hide_short_help = true)]
    pub resume: Option<PathBuf>,
    /// Stop as soon as the answer is clear (`decided`).
    ///
    /// Stop as soon as the answer is clear: `--until decided` looks after every block at an
    /// anytime-valid confidence sequence for the ratio (the median block log-ratio; its
    /// error rate holds however often it is looked at) and stops at the first block where
    /// it lies above or below 1 (SLOWER/FASTER) or inside ±--equivalence-margin
    /// (EQUIVALENT); at --max-blocks it stops INCONCLUSIVE. Two variants, blocked design.
    #[arg(
        long,
        value_name = "RULE",
        value_parser = ["decided"],
        hide_possible_values = true,
        conflicts_with_all = ["blocks", "runs"],
        help_heading = RUNNING
    )]
    pub until: Option<String>,
    /// With --until decided: the most blocks to run [default: 200]. With --resume, more
    /// blocks than the file planned extend it (every added block is a further look).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_BLOCKS), value_name = "N", requires = "stop_rule", help_heading = RUNNING, hide_short_help = true)]
    pub max_blocks: Option<u32>,
    /// With --until decided: no decision before this many blocks [default: the fewest at
    /// which the sequence can decide at --alpha: 7 at 0.05].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_BLOCKS), value_name = "N", requires = "stop_rule", help_heading = RUNNING, hide_short_help = true)]
    pub min_blocks: Option<u32>,
    /// Print the schedule and exit without running anything.
    #[arg(long, help_heading = RUNNING, hide_short_help = true)]
    pub dry_run: bool,
    /// Hooks, warm-ups per block, and the run count as hyperfine users spell them.
    #[command(flatten)]
    pub hooks: HookArgs,
    /// Parameter scans (-P, -D, -L).
    #[command(flatten)]
    pub scan: ScanArgs,
    /// Analysis and report options.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// `--record` into the history.
    #[command(flatten)]
    pub record: history::RecordArgs,
    /// hyperfine's options that abba does not have (each refused with what abba does).
    #[command(flatten)]
    pub hyperfine_only: HyperfineOnlyArgs,
}

/// hyperfine options abba does not have, accepted by the parser (hidden) so that each is
/// refused with what abba does instead (`crate::cmd::compare::hyperfine`), not with a guess at a
/// similarly spelled abba flag.
#[derive(Debug, Args, Clone, Default)]
pub struct HyperfineOnlyArgs {
    /// hyperfine's AsciiDoc export.
    #[arg(long, value_name = "FILE", hide = true)]
    pub export_asciidoc: Option<PathBuf>,
    /// hyperfine's Emacs org-mode export.
    #[arg(long, value_name = "FILE", hide = true)]
    pub export_orgmode: Option<PathBuf>,
    /// hyperfine's order of the results.
    #[arg(long, value_name = "METHOD", hide = true)]
    pub sort: Option<String>,
    /// hyperfine's standard input of the commands.
    #[arg(long, value_name = "WHERE", hide = true)]
    pub input: Option<String>,
    /// hyperfine's shell-spawning time correction.
    #[arg(long, hide = true)]
    pub debug_mode: bool,
}

/// Parameter scans, as hyperfine spells them: every `{NAME}` in the commands (or
/// `--kernel` specs) and `--name` values takes each value in turn, one variant per value.
/// Each occurrence of -P adds exactly 3 values and of -L exactly 2 (clap checks the
/// count), so the flat lists split into occurrences by 3 and by 2.
#[derive(Debug, Args, Clone, Default)]
pub struct ScanArgs {
    /// Scan NAME from MIN to MAX: one variant per value.
    ///
    /// Scan NAME from MIN to MAX (integers, step 1, unless -D says otherwise), e.g.
    /// `-P t 1 8 'prog --threads {t}'`; at most once, not with -L. The report adds Page's
    /// trend test across the values.
    #[arg(short = 'P', long, num_args = 3, value_names = ["NAME", "MIN", "MAX"], allow_hyphen_values = true, help_heading = DESIGN, hide_short_help = true)]
    pub parameter_scan: Vec<String>,
    /// The step of -P, e.g. `2` or `0.25` (decimal bounds need one).
    #[arg(short = 'D', long, value_name = "STEP", allow_hyphen_values = true, help_heading = DESIGN, hide_short_help = true)]
    pub parameter_step_size: Option<String>,
    /// Scan NAME over a comma-separated list, e.g. `-L opt O1,O2,O3`.
    ///
    /// Scan NAME over a comma-separated list, e.g. `-L opt O1,O2,O3`; several -L give
    /// every combination (the first varies slowest).
    #[arg(short = 'L', long, num_args = 2, value_names = ["NAME", "VALUES"], help_heading = DESIGN, hide_short_help = true)]
    pub parameter_list: Vec<String>,
}

/// `abba analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// Raw JSONL, CSV or hyperfine JSON files. Raw files of one experiment (one per host
    /// or session) are analysed together with host and session as levels; files of
    /// different experiments are refused (see --force-unpaired); any other mix is compared
    /// unpaired. `-` reads standard input (its format detected from the content).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Unit of CSV values (e.g. ns, ms, s, ops/s).
    #[arg(long, default_value = "ns", value_name = "UNIT", help_heading = ANALYSIS)]
    pub unit: String,
    /// Larger values are better (for CSV data).
    #[arg(long, help_heading = ANALYSIS)]
    pub higher_is_better: bool,
    /// Seed of the bootstrap (default: the raw file's seed, else 1).
    #[arg(long, value_name = "N", help_heading = ANALYSIS, hide_short_help = true)]
    pub seed: Option<u64>,
    /// Re-decide a raw file on another metric it records.
    ///
    /// Re-decide one raw file on another metric its runs record: wall, user, sys, cpu,
    /// max-rss (every run), or a count it was counted with (instructions, cycles, ...)
    /// [default: the file's own metric]. A file counted under valgrind has valgrind's
    /// times, so only its counts can decide.
    #[arg(long, value_name = "METRIC", help_heading = ANALYSIS)]
    pub metric: Option<String>,
    /// Compare raw files of different experiments unpaired instead of refusing them.
    ///
    /// Compare several raw files unpaired (blocks dropped, with a warning) even when they
    /// belong to different experiments, instead of refusing them.
    #[arg(long, help_heading = MACHINES)]
    pub force_unpaired: bool,
    /// Analysis and report options.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// `--record` into the history.
    #[command(flatten)]
    pub record: history::RecordArgs,
}

/// `abba plan`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("source").required(true).args(["pilot", "profile"]))]
pub struct PlanArgs {
    /// A pilot raw file of two variants (abba compare --output), or CSV with blocks.
    #[arg(value_name = "PILOT.jsonl", value_hint = ValueHint::FilePath)]
    pub pilot: Option<PathBuf>,
    /// A calibrated noise profile instead of a pilot: quiet, shared-vm, bursty, drift.
    #[arg(long, value_name = "NAME", value_parser = ["quiet", "shared-vm", "bursty", "drift"])]
    pub profile: Option<String>,
    /// The change to detect, e.g. `5%` or `0.05`.
    #[arg(long, allow_hyphen_values = true, default_value = "5%", value_name = "PCT", value_parser = parse_margin)]
    pub effect: f64,
    /// The power wanted, e.g. `80%` or `0.9`.
    #[arg(long, allow_hyphen_values = true, default_value = "80%", value_name = "P", value_parser = parse_fraction)]
    pub power: f64,
    /// A budget in blocks: report the smallest change it detects with --power.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_BLOCKS), value_name = "N", conflicts_with = "time")]
    pub blocks: Option<u32>,
    /// A budget in time (`10m`, `90s`): blocks that fit, from the pilot's run times.
    #[arg(long, allow_hyphen_values = true, value_name = "DURATION", value_parser = parse_duration_with_unit)]
    pub time: Option<Duration>,
    /// Significance level.
    #[arg(long, default_value_t = 0.05, value_name = "A")]
    pub alpha: f64,
    /// Equivalence margin of --until decided.
    #[arg(long, allow_hyphen_values = true, default_value = "1%", value_name = "PCT", value_parser = parse_margin)]
    pub equivalence_margin: f64,
    /// The most blocks considered (the --max-blocks of --until decided).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_BLOCKS), default_value_t = 200, value_name = "N")]
    pub max_blocks: u32,
    /// The pilot's baseline variant (default: the first).
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// Seed of the resampling (and of the profile's simulation).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub seed: u64,
    /// Plan on another metric the pilot records (cpu, user, sys, a count, ...) [default:
    /// the pilot's own].
    #[arg(long, value_name = "METRIC", conflicts_with = "profile")]
    pub metric: Option<String>,
    /// The plan as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// The demo's options (no subcommand).
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Blocks of the demo experiment.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_BLOCKS), default_value_t = 12, value_name = "N", hide = true)]
    pub demo_blocks: u32,
    /// Seconds each kernel run lasts in the demo.
    #[arg(long, default_value_t = 0.3, value_name = "S", hide = true)]
    pub demo_duration: f64,
    /// Write the demo's report as a self-contained HTML file with its charts.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, help_heading = OUTPUT)]
    pub export_html: Option<PathBuf>,
    /// Write the demo's charts as standalone SVG files in DIR.
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath, help_heading = OUTPUT)]
    pub export_svg: Option<PathBuf>,
    /// The demo's full report: per-block tables, alternative estimates, every control.
    #[arg(long, help_heading = OUTPUT)]
    pub verbose: bool,
}

/// `compare`: hyperfine's hooks, warm-ups per block, and `--runs` / `--time-budget`.
///
/// Each hook takes one command for every variant, or exactly one per variant (in order),
/// as hyperfine accepts; hooks run untimed, with the commands' `--shell` setting, and a
/// failing hook fails its run (exit 3) unless `--ignore-failure`.
#[derive(Debug, Args, Clone, Default)]
pub struct HookArgs {
    /// Run CMD once per variant before its first run.
    ///
    /// Run CMD once per variant before its first run (warm-ups included), e.g. to build
    /// or copy its input. Once for all variants or once per variant.
    #[arg(long, short = 's', value_name = "CMD", value_hint = ValueHint::CommandString, help_heading = HOOKS)]
    pub setup: Vec<String>,
    /// Run CMD before every run of a variant, untimed.
    ///
    /// Run CMD before every run of a variant, untimed (e.g. `sync; echo 3 >
    /// /proc/sys/vm/drop_caches` with --shell sh); its wall time is recorded in the raw
    /// file (`prepare_ns`). Once for all variants or once per variant.
    #[arg(long, short = 'p', value_name = "CMD", value_hint = ValueHint::CommandString, help_heading = HOOKS)]
    pub prepare: Vec<String>,
    /// Run CMD after every run of a variant, untimed.
    ///
    /// Run CMD after every run of a variant, untimed (recorded as `conclude_ns`). Once for
    /// all variants or once per variant.
    #[arg(long, short = 'C', value_name = "CMD", value_hint = ValueHint::CommandString, help_heading = HOOKS)]
    pub conclude: Vec<String>,
    /// Run CMD once per variant after its last run.
    ///
    /// Run CMD once per variant after its last run. Once for all variants or once per
    /// variant.
    #[arg(long, short = 'c', value_name = "CMD", value_hint = ValueHint::CommandString, help_heading = HOOKS)]
    pub cleanup: Vec<String>,
    /// Untimed warm-up runs of every variant at the start of every block, so each block
    /// starts from a comparable state (besides --warmup before the first block)
    /// [default: 0].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_WARMUP), value_name = "N", help_heading = DESIGN, hide_short_help = true)]
    pub warmup_per_block: Option<u32>,
    /// Runs of each variant in every block: a multiple of the design's own (2 for two
    /// variants in ABBA, 1 otherwise); the block repeats its order, e.g. 4 makes
    /// `A B B A A B B A`, then `B A A B B A A B`. With `--estimator hl-min-log-ratio` (each
    /// variant's fastest run in the block) 15 blocks of 4 find a small change more often
    /// than 30 of 2 on a shared machine (docs/estimator-grid.md) [default: the design's].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_RUNS_PER_BLOCK), value_name = "N", help_heading = DESIGN, hide_short_help = true)]
    pub runs_per_block: Option<u32>,
    /// Measure about N runs per variant (--blocks from N).
    ///
    /// Measure about N runs per variant: chooses --blocks as N divided by the design's
    /// runs per variant per block (2 for two variants in ABBA), rounded up; the actual
    /// count is stated on stderr.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_RUNS), short = 'r', value_name = "N", conflicts_with_all = ["blocks", "time_budget"], help_heading = RUNNING)]
    pub runs: Option<u32>,
    /// At least N runs per variant (blocks rise to fit).
    ///
    /// At least N runs per variant, as hyperfine's --min-runs: the block count (20 by
    /// default, or the --time-budget's, or with --until decided its --min-blocks) rises to
    /// N divided by the runs of each variant per block, rounded up.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_RUNS), short = 'm', value_name = "N", conflicts_with_all = ["blocks", "runs", "min_blocks"], help_heading = RUNNING)]
    pub min_runs: Option<u32>,
    /// At most N runs per variant (blocks fall to fit).
    ///
    /// At most N runs per variant, as hyperfine's --max-runs: the block count (20 by
    /// default, or the --time-budget's, or with --until decided its --max-blocks) falls to
    /// N divided by the runs of each variant per block, rounded down (at least 1).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_RUNS), short = 'M', value_name = "N", conflicts_with_all = ["blocks", "runs", "max_blocks"], help_heading = RUNNING)]
    pub max_runs: Option<u32>,
    /// Fit the experiment into DURATION (`30s`, `5min`).
    ///
    /// Fit the experiment into DURATION (`30s`, `5min`): one pilot block is run (not
    /// recorded), then as many blocks as fit into the rest of the budget; the choice is
    /// stated on stderr. With --until decided it is a cap instead: after a block, when
    /// one more at the last one's pace would end past it, the experiment stops there (end
    /// status and `sequential.stop` `time-budget`; `--resume` continues it).
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_duration_with_unit,
        allow_hyphen_values = true,
        conflicts_with_all = ["blocks", "resume", "dry_run"],
        help_heading = RUNNING
    )]
    pub time_budget: Option<Duration>,
}

/// The CSV exports (`compare`, and `analyze` of a raw file).
#[derive(Debug, Args, Clone, Default)]
pub struct CsvExportArgs {
    /// Also write one CSV row per analysed run to FILE (atomically): block, position,
    /// variant, wall_ns, user_ns, sys_ns, max_rss_kib, exit_code, timed_out, env_pad,
    /// metric, value. `abba analyze FILE` reads it back to the same paired verdict. Needs
    /// runs: not available when analyzing CSV or hyperfine input.
    #[arg(long, value_name = "FILE", help_heading = OUTPUT, hide_short_help = true)]
    pub export_csv: Option<PathBuf>,
    /// Also write one CSV row per benchmark to FILE (atomically): class, name, n, mean,
    /// stddev, median, min, max, p90 (in the analysis's unit), unit, user_mean_ns,
    /// system_mean_ns (empty without runs).
    #[arg(long, value_name = "FILE", help_heading = OUTPUT, hide_short_help = true)]
    pub export_csv_summary: Option<PathBuf>,
}
