//! `cargo xtask`: project tasks that measure abba with abba.
//!
//! - `reproduce-appendix`: Appendix F's experiments re-run on this machine beside the
//!   appendix's own figures ([`appendix`]); `--check` recomputes the published figures
//!   from the fixtures (also run by `cargo test`).
//! - `chain-sweep`: chains 1..8 in randomized blocks, analysed and confirmed through the
//!   library calls of `abba compare -P ... --confirm` ([`sweep`]).
//! - `scipy-timing`: bench-stats' rank tests timed against SciPy's.
//! - `scale`: `abba analyze` at 10^4-10^6 runs, the default beside the fastest-run
//!   estimator, and the rank tests beside SciPy ([`scale`]).
//! - `browser-check`: the demo's HTML report in headless Chromium, and the size and
//!   render time of a 10,000-run report ([`browser`]).
//! - `calibrate`: real A/A and A/B false-positive and detection rates ([`calibrate`]);
//!   `--noise` measures under `neighbour`, a seeded noisy neighbour ([`neighbour`]).
//! - `replay`: every paired estimator scored on the real recordings ([`replay`]).
//! - `plan-check`: `abba plan` from 30-block pilots of the real recordings against the
//!   power and blocks needed the rest of each recording shows ([`plan_check`]).
//! - `sequential`: the calibration grid of `--until decided` on simulated noise profiles.
//! - `decision-grid`, `until-decided-grid`: the whole decision through `analyze()` on the
//!   simulated noise profiles, per estimator, for shifts and changes that are not shifts,
//!   and the same under `--until decided` ([`decision_grid`]).
//! - `estimator-grid`: every paired estimator on the simulated noise profiles by false
//!   positives, coverage and power; `--runs-per-block` the runs-per-block table
//!   ([`estimator_grid`]).
//! - `counters`: instruction counts (valgrind) against wall time under the noisy
//!   neighbour: a +0.5% fixed-work change and A/A pairs ([`counters`]).
//! - `history-calibrate`: false change points, detection and delay of `abba history` on
//!   simulated commit histories, for levels and paired steps ([`history_calibrate`]).
//! - `check-figures`: re-runs the commands of the figures marked in the README and
//!   `docs/` and fails on a stale one ([`figures`]; the fast ones are checked by the tests).
//! - `history-demo`, `history-scale`: the history store on a toy git repository measured
//!   here, and the speed of `abba history show` on 10,000 experiments ([`history`]).

// A match on one of our enums names every variant, so a new variant is a compile (or
// clippy) error wherever it needs a decision.
#![deny(
    clippy::wildcard_enum_match_arm,
    clippy::match_wildcard_for_single_variants
)]

mod appendix;
mod browser;
mod calibrate;
mod counters;
mod decision_grid;
mod estimator_grid;
mod figures;
mod history;
mod history_calibrate;
mod neighbour;
mod plan_check;
mod replay;
mod run;
mod scale;
mod scipy_timing;
mod sequential;
mod sweep;
mod table;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// Project tasks of the abba workspace (run as `cargo xtask <TASK>`).
#[derive(Parser, Debug)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand, Debug)]
enum Task {
    /// Re-run Appendix F (chains=1 vs chains=2, a null pair, an unpaired contrast) through
    /// abba's scheduler and kernel, and print it beside the appendix's own figures.
    ///
    /// Builds `abba` in release mode, runs `abba compute --op int --threads 1 --json`
    /// as child processes in randomized blocks, and writes `target/appendix/REPORT.md`
    /// plus the raw JSONL of every experiment under `target/appendix/`.
    ReproduceAppendix(AppendixArgs),
    /// Sweep chains 1..8 in randomized blocks and analyse it as `abba compare -P ...
    /// --confirm` does (Friedman omnibus, Page's trend, Holm-adjusted post-hoc tests
    /// against chains=1), then rerun the standout against chains=1 (`--confirm`'s
    /// rerun) before calling it a finding.
    ChainSweep(sweep::SweepArgs),
    /// Time bench-stats' Mann-Whitney U and Kruskal-Wallis against SciPy on 10^6 values
    /// (skipped when python3 cannot import SciPy).
    ScipyTiming,
    /// `abba analyze` of synthetic raw ABBA files of 10^4, 10^5 and 10^6 runs, the
    /// default and `--estimator hl-min-log-ratio` side by side (time, CPU per run, peak
    /// memory), then the rank tests against SciPy, in one run.
    Scale(scale::ScaleArgs),
    /// Real A/A and A/B comparisons through `abba compare` (default ABBA design and
    /// `--design sequential`, same number of runs): false-positive and detection rates
    /// side by side, written to `target/calibrate/REPORT.md`.
    ///
    /// With `--noise`, runs `cargo xtask neighbour` meanwhile and puts abba's default
    /// beside sequential runs analysed with Welch's t and Mann-Whitney, and hyperfine.
    Calibrate(calibrate::CalibrateArgs),
    /// Run the demo with --export-html, load the report in headless Chromium (screenshot,
    /// console, chart sizes), and time a 10,000-run report; `--update-docs` refreshes
    /// docs/demo-report.png.
    BrowserCheck(browser::BrowserArgs),
    /// Score every paired estimator on the real recordings under fixtures/recordings/
    /// (A/A and known effects, quiet and under the noisy neighbour), cut into disjoint
    /// windows of 8, 15, 30 and 60 blocks: false positives, power and bias.
    Replay(replay::ReplayArgs),
    /// `abba plan` from short pilots cut from the real recordings (fixtures/recordings/)
    /// against the rest of each recording: predicted blocks and range, power at the
    /// predicted count on the rest, and the blocks the rest needs (a Markdown table).
    PlanCheck(plan_check::PlanCheckArgs),
    /// A seeded noisy neighbour: phases of 1-4 s with 0-3 busy threads and short bursts,
    /// until `--duration` has passed or its parent exits (or SIGTERM).
    Neighbour(neighbour::NeighbourArgs),
    /// The calibration grid of `--until decided` on the simulated noise profiles: A/A false
    /// positives under continuous monitoring up to 500 blocks and blocks to a decision, for
    /// the sign sequence and the asymptotic mean sequence (Markdown tables).
    Sequential(sequential::SequentialArgs),
    /// The whole decision through `analyze()` on every simulated noise profile, for the
    /// default (`typical-run`), the fastest run, block means and an oracle: A/A claims,
    /// coverage and a 2% shift, then changes that are not shifts (Markdown tables of
    /// docs/estimator-grid.md; seeded).
    DecisionGrid(decision_grid::DecisionGridArgs),
    /// The default under `--until decided` (at most 60 blocks) on every simulated noise
    /// profile, for no change, 2% and 10% shifts and changes that are not shifts: outcomes
    /// and median blocks to the stop (a Markdown table; seeded).
    UntilDecidedGrid(decision_grid::UntilDecidedArgs),
    /// Every paired estimator on the same simulated sessions of every noise profile: A/A
    /// false positives, coverage of the true ratio and power at 8 to 60 blocks for a 2% and
    /// a 1% effect (Markdown tables of docs/estimator-grid.md; seeded).
    EstimatorGrid(estimator_grid::EstimatorGridArgs),
    /// Instruction counts against wall time under the noisy neighbour: `--reps` A/B
    /// experiments of a fixed-work +0.5% instructions change and `--reps` A/A pairs, each
    /// counted with valgrind (`--until decided --max-blocks 8`) and timed natively over as
    /// many blocks; the valgrind slowdown; chains=1 against chains=2 at equal work.
    Counters(counters::CountersArgs),
    /// The calibration of `abba history` on simulated histories of 200 commits (no change,
    /// a step of 1/2/5%, a creep of 0.1%/commit): false change points per 100 commits,
    /// detection and delay for e-divisive on levels and for paired steps (Markdown tables).
    HistoryCalibrate(history_calibrate::HistoryArgs),
    /// A toy git repository of 30 commits of a fixed-work benchmark (+2% at commit 15,
    /// +0.3% at 25), each compared with its parent by `abba compare --record`; prints
    /// `abba history show` and `check` and whether the change point and the chain of
    /// paired steps were found.
    HistoryDemo(history::DemoArgs),
    /// Build a history of 10,000 experiments (1,000,000 runs) with `abba history import`
    /// and time `abba history show` and `list` on it; states the store size per 1,000 runs.
    HistoryScale(history::ScaleArgs),
    /// Re-run the commands that print the figures marked in the README and docs/
    /// (`<!-- abba-figure: COMMAND -->`) and fail unless each figure appears in what its
    /// command printed; by default the slow ones, which the tests do not run.
    CheckFigures(figures::FiguresArgs),
}

/// Flags of `reproduce-appendix`.
#[derive(clap::Args, Debug)]
struct AppendixArgs {
    /// Run no kernel: recompute every statistic from fixtures/appendix/ and fail (listing
    /// each mismatch) unless each matches the published figure within its tolerance.
    #[arg(long)]
    check: bool,
    /// Print one JSON object (`real`, `null`, `unpaired`, `appendix`) instead of the report.
    #[arg(long, conflicts_with = "check")]
    json: bool,
    /// Blocks of each paired experiment, and runs of each unpaired session.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(2..=1000))]
    blocks: u32,
    /// Seed of the run orders, layout padding and bootstrap resampling.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seconds per kernel run.
    #[arg(long, default_value_t = 0.3)]
    duration: f64,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let root = run::workspace_root();
    match cli.task {
        Task::ReproduceAppendix(a) if a.check => appendix::run_check(&root, a.seed),
        Task::ReproduceAppendix(a) => appendix::reproduce(
            &root,
            &appendix::ReproduceConfig {
                blocks: a.blocks,
                seed: a.seed,
                duration: a.duration,
                output: if a.json {
                    appendix::OutputFormat::Json
                } else {
                    appendix::OutputFormat::Console
                },
            },
        ),
        Task::ChainSweep(a) => sweep::run(&root, &a.config()?),
        Task::ScipyTiming => scipy_timing::run(&root),
        Task::Scale(args) => scale::run(&root, &args),
        Task::Calibrate(a) => calibrate::run(&root, &a),
        Task::BrowserCheck(a) => browser::run(&root, &a),
        Task::Replay(a) => replay::run(&root, &a),
        Task::Neighbour(a) => neighbour::run(&a),
        Task::PlanCheck(a) => plan_check::run(&root, &a),
        Task::Sequential(a) => sequential::run(&a),
        Task::DecisionGrid(a) => decision_grid::run(&a),
        Task::UntilDecidedGrid(a) => decision_grid::run_until_decided(&a),
        Task::EstimatorGrid(a) => estimator_grid::run(&a),
        Task::Counters(a) => counters::run(&root, &a),
        Task::HistoryCalibrate(a) => history_calibrate::run(&a),
        Task::HistoryDemo(a) => history::demo(&root, &a),
        Task::HistoryScale(a) => history::scale(&root, &a),
        Task::CheckFigures(a) => figures::run(&root, &a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn check_and_json_conflict() {
        assert!(Cli::try_parse_from(["xtask", "reproduce-appendix", "--check", "--json"]).is_err());
        assert!(Cli::try_parse_from(["xtask", "reproduce-appendix", "--blocks", "1"]).is_err());
    }

    #[test]
    fn grid_flags_are_checked() {
        let ok = [
            "xtask",
            "decision-grid",
            "--reps",
            "20",
            "--profile",
            "shared-vm",
        ];
        assert!(Cli::try_parse_from(ok).is_ok());
        let only = ["xtask", "decision-grid", "--only", "oracle,default"];
        assert!(Cli::try_parse_from(only).is_ok());
        assert!(Cli::try_parse_from(["xtask", "decision-grid", "--only", "median"]).is_err());
        assert!(Cli::try_parse_from(["xtask", "decision-grid", "--profile", "vm"]).is_err());
        assert!(Cli::try_parse_from(["xtask", "until-decided-grid", "--reps", "0"]).is_err());
        let rpb = [
            "xtask",
            "estimator-grid",
            "--runs-per-block",
            "--reps",
            "10",
        ];
        assert!(Cli::try_parse_from(rpb).is_ok());
    }
}
