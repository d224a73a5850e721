//! The flags' value types and bounds (clap's), and the parsers of `--shell` and help
//! texts. The values people write (percentages, margins, durations, labels) are read by
//! the libraries: [`bench_stats::analysis::parse_percent`] and its kin,
//! [`bench_sched::parse_duration`], [`bench_sched::parse_label`].

use clap::ValueEnum;

/// The most blocks any count flag may plan (`--blocks`, `--max-blocks`, `plan --blocks`):
/// the schedule is built before the first run, one small record per run.
pub const MAX_BLOCKS: i64 = bench_sched::MAX_BLOCKS as i64;
/// The most runs per variant `--runs`, `--min-runs` and `--max-runs` may ask for.
pub const MAX_RUNS: i64 = 1_000_000;
/// The most runs of each variant in one block (`--runs-per-block`).
pub const MAX_RUNS_PER_BLOCK: i64 = bench_sched::MAX_RUNS_PER_BLOCK as i64;
/// The most untimed warm-up runs (`--warmup`, `--warmup-per-block`).
pub const MAX_WARMUP: i64 = bench_sched::MAX_WARMUP as i64;
/// The most bootstrap resamples per interval (`--resamples`): past it the Monte Carlo
/// error of a 95% bound is far below the interval's own width, and the cost only grows.
pub const MAX_RESAMPLES: i64 = 100_000;
/// `--style`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum StyleArg {
    /// Colour and Unicode when stdout is a terminal (and NO_COLOR is unset).
    Auto,
    /// ASCII, no colour.
    Basic,
    /// Unicode and colour.
    Full,
    /// Unicode without colour.
    Nocolor,
    /// Colour forced, Unicode.
    Color,
    /// Plain ASCII without colour or table borders.
    None,
}

/// `--shell`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ShellArg {
    /// Split the command like a POSIX shell would, without expansion, and run it directly.
    None,
    /// Run the command with `sh -c`.
    Sh,
}

impl From<ShellArg> for bench_sched::Shell {
    fn from(arg: ShellArg) -> Self {
        match arg {
            ShellArg::None => bench_sched::Shell::None,
            ShellArg::Sh => bench_sched::Shell::Sh,
        }
    }
}

/// `--layout`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum LayoutArg {
    /// A uniformly random environment padding of 0..4095 bytes per run.
    Random,
    /// The same padding for every run.
    Fixed,
}

impl From<LayoutArg> for bench_sched::Layout {
    fn from(arg: LayoutArg) -> Self {
        match arg {
            LayoutArg::Random => bench_sched::Layout::Random,
            LayoutArg::Fixed => bench_sched::Layout::Fixed(0),
        }
    }
}

/// A help text ending with its default as clap writes one: `TEXT [default: D]`.
pub(crate) fn help_default(text: &str, default: impl std::fmt::Display) -> String {
    format!("{text} [default: {default}]")
}

/// A long help text with its default on a paragraph of its own: `TEXT\n\n[default: D]`.
pub(crate) fn long_help_default(text: &str, default: impl std::fmt::Display) -> String {
    format!("{text}\n\n[default: {default}]")
}

/// `--shell` / `-S`: `none` or `sh`. hyperfine's other shells (`bash`, `zsh`, ...) are
/// refused with the way abba runs them: as the command, `bash -c '...'`.
pub fn parse_shell(text: &str) -> Result<ShellArg, String> {
    match text {
        "none" => Ok(ShellArg::None),
        "sh" => Ok(ShellArg::Sh),
        other => Err(format!(
            "abba runs commands directly (none, the default) or with `sh -c` (sh); for {other}, write the command as `{other} -c '...'` (with --shell none)"
        )),
    }
}
