//! `bench-lab`: the research drivers that measure abba with abba (`cargo run -p bench-lab
//! -- <command>`; `cargo xtask <command>` forwards here, so the commands beside the
//! figures of the README and `docs/` keep working).
//!
//! - `chain-sweep`: chains 1..8 in randomized blocks, analysed and confirmed through the
//!   library calls of `abba compare -P ... --confirm` ([`sweep`]).
//! - `scipy-timing`: bench-stats' rank tests timed against SciPy's.
//! - `calibrate`: real A/A and A/B false-positive and detection rates ([`calibrate`]);
//!   `--noise` measures under `neighbour`, a seeded noisy neighbour ([`neighbour`]).
//! - `replay`: every paired estimator scored on the real recordings ([`replay`]).
//! - `plan-check`: `abba plan` from 30-block pilots of the real recordings against the
//!   power and blocks needed the rest of each recording shows ([`plan_check`]).
//! - `sequential`: the calibration grid of `--until decided` on simulated noise profiles.
//! - `suite-sequential`: the calibration of `abba suite --until decided` (A/A suites).
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
//! - `history-demo`, `history-scale`: the history store on a toy git repository measured
//!   here, and the speed of `abba history show` on 10,000 experiments ([`history`]).

// A match on one of our enums names every variant, so a new variant is a compile (or
// clippy) error wherever it needs a decision.
#![deny(
    clippy::wildcard_enum_match_arm,
    clippy::match_wildcard_for_single_variants
)]

mod autocorr_grid;
mod calibrate;
mod carryover_grid;
mod counters;
mod decision_grid;
mod equivalence_disturbed;
mod equivalence_grid;
mod estimator_grid;
mod history;
mod history_calibrate;
mod neighbour;
mod plan_check;
mod replay;
mod scale;
mod scipy_timing;
mod sequential;
mod suite_sequential;
mod sweep;

// The drivers name the shared harness as `crate::run` and `crate::table`.
use bench_lab::{run, table};

use anyhow::Result;
use clap::{Parser, Subcommand};

/// The research drivers of the abba workspace (`cargo run -p bench-lab -- <COMMAND>`, or
/// `cargo xtask <COMMAND>`).
#[derive(Parser, Debug)]
#[command(name = "bench-lab", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand, Debug)]
enum Task {
    /// Sweep chains 1..8 in randomized blocks and analyse it as `abba compare -P ...
    /// --confirm` does (Friedman omnibus, Page's trend, Holm-adjusted post-hoc tests
    /// against chains=1), then rerun the standout against chains=1 (`--confirm`'s
    /// rerun) before calling it a finding.
    #[command(
        after_help = "Example: cargo xtask chain-sweep --blocks 10 --max-chains 4 --svg target/sweep.svg"
    )]
    ChainSweep(sweep::SweepArgs),
    /// Time bench-stats' Mann-Whitney U and Kruskal-Wallis against SciPy on 10^6 values
    /// (skipped when python3 cannot import SciPy).
    #[command(after_help = "Example: cargo run --release -p bench-lab -- scipy-timing")]
    ScipyTiming,
    /// The default analysis at scale: seeded ABBA raw files of 10^4, 10^5 and 10^6 runs
    /// (4 a block, B 1% slower) analysed by `abba analyze -q` with the default and the
    /// fastest-run estimator side by side (CPU time and peak memory), then the rank tests
    /// against SciPy.
    #[command(after_help = "Example: cargo xtask scale --runs 10000,100000 --repeat 3 --no-scipy")]
    Scale(scale::ScaleArgs),
    /// Real A/A and A/B comparisons through `abba compare` (default ABBA design and
    /// `--design sequential`, same number of runs): false-positive and detection rates
    /// side by side, written to `target/calibrate/REPORT.md`.
    ///
    /// With `--noise`, runs `cargo xtask neighbour` meanwhile and puts abba's default
    /// beside sequential runs analysed with Welch's t and Mann-Whitney, and hyperfine.
    #[command(after_help = "Example: cargo xtask calibrate --reps 20 --noise")]
    Calibrate(calibrate::CalibrateArgs),
    /// Score every paired estimator on the real recordings under fixtures/recordings/
    /// (A/A and known effects, quiet and under the noisy neighbour), cut into disjoint
    /// windows of 8, 15, 30 and 60 blocks: false positives, power and bias.
    #[command(after_help = "Example: cargo xtask replay --resamples 1000")]
    Replay(replay::ReplayArgs),
    /// `abba plan` from short pilots cut from the real recordings (fixtures/recordings/)
    /// against the rest of each recording: predicted blocks and range, power at the
    /// predicted count on the rest, and the blocks the rest needs (a Markdown table).
    #[command(after_help = "Example: cargo xtask plan-check --condition quiet --pilots 9")]
    PlanCheck(plan_check::PlanCheckArgs),
    /// A seeded noisy neighbour: phases of 1-4 s with 0-3 busy threads and short bursts,
    /// until `--duration` has passed or its parent exits (or SIGTERM).
    #[command(after_help = "Example: cargo xtask neighbour --seed 1 --duration 90s")]
    Neighbour(neighbour::NeighbourArgs),
    /// The calibration grid of `--until decided` on the simulated noise profiles: A/A false
    /// positives under continuous monitoring up to 500 blocks and blocks to a decision, for
    /// the sign sequence and the asymptotic mean sequence (Markdown tables).
    #[command(after_help = "Example: cargo xtask sequential --reps 200 --alpha 0.05")]
    Sequential(sequential::SequentialArgs),
    /// The calibration of `abba suite --until decided`: A/A suites of 2, 5 and 10
    /// benchmarks on every simulated noise profile, each benchmark's sign sequence at
    /// alpha over the benchmarks (the suite's rule) and at alpha: the share of suites with
    /// any FASTER/SLOWER and the blocks until all stopped (a Markdown table; seeded).
    #[command(after_help = "Example: cargo xtask suite-sequential --reps 400 --max-blocks 200")]
    SuiteSequential(suite_sequential::SuiteSequentialArgs),
    /// The whole decision through `analyze()` on every simulated noise profile, for the
    /// default (`typical-run`), the fastest run, block means and an oracle: A/A claims,
    /// coverage and a 2% shift, then changes that are not shifts (Markdown tables of
    /// docs/estimator-grid.md; seeded).
    #[command(
        after_help = "Example: cargo xtask decision-grid --reps 100 --only default,oracle --profile shared-vm"
    )]
    DecisionGrid(decision_grid::DecisionGridArgs),
    /// The default under `--until decided` (at most 60 blocks) on every simulated noise
    /// profile, for no change, 2% and 10% shifts and changes that are not shifts: outcomes
    /// and median blocks to the stop (a Markdown table; seeded).
    #[command(after_help = "Example: cargo xtask until-decided-grid --reps 60 --profile shared-vm")]
    UntilDecidedGrid(decision_grid::UntilDecidedArgs),
    /// Each part of the typical-run check (p10, p50, p90, mean run) against its true ratio
    /// on every simulated noise profile: coverage of its interval beside its nominal level,
    /// and how often it is significant, for no change, a shift, changes that are not shifts
    /// and spread up and down (a Markdown table; seeded).
    #[command(
        after_help = "Example: cargo xtask part-coverage --reps 40 --blocks 30 --profile quiet"
    )]
    PartCoverage(decision_grid::PartCoverageArgs),
    /// The audit's cases through `analyze()` on the simulated noise profiles: runs right
    /// after B 5% slower with B unchanged, at 6 to 60 blocks; spread up and down with the
    /// `--fail-if-slower 5%` gate (Markdown tables; seeded).
    #[command(after_help = "Example: cargo xtask audit-grid --reps 50 --profile bursty")]
    AuditGrid(decision_grid::AuditGridArgs),
    /// Carryover through `analyze()` on the simulated noise profiles, `B` unchanged: runs
    /// after B 5% slower, 5% faster, and every switch of version 5% slower, at 6 to 60
    /// blocks; then the carryover hold's cost on a 2% shift (claims withheld beside the
    /// claims left; Markdown tables; seeded).
    #[command(after_help = "Example: cargo xtask carryover-grid --reps 400 --no-cost")]
    CarryoverGrid(carryover_grid::CarryoverGridArgs),
    /// The autocorrelation warning of blocked runs on the simulated noise profiles: how
    /// often the within-block check fires on A/A sessions at 10, 30 and 60 blocks (beside
    /// the stream's lag-1 check it replaced), and on the same sessions with AR(1) noise of
    /// 0.3 and 0.5 added; `--screen` varies the span that leaves a block out, `--no-bursts`
    /// takes the profiles' bursts out, `--audit` runs the audit's A/A cases of issue 42
    /// instead of the profiles, `--precision` measures what more runs a block buy under
    /// that dependence (a Markdown table; seeded).
    #[command(
        after_help = "Example: cargo xtask autocorrelation-grid --precision --reps 1000 (or --audit --reps 400)"
    )]
    AutocorrelationGrid(autocorr_grid::AutocorrGridArgs),
    /// Which parts EQUIVALENT requires, calibrated: P(EQUIVALENT) at ±1% under four rules
    /// (every part at ±1%; the typical run at ±1%, the mean run at ±2% and the tails at ±2%
    /// or ±3%, the default; the tails free) on the simulated profiles and a stable metric, for no change, shifts of 1% and
    /// 2% and tail regressions, with tail-only claims; `--real N` adds real A/A and +2%
    /// experiments on this machine on CPU and wall time (Markdown tables).
    #[command(after_help = "Example: cargo xtask equivalence-grid --reps 400 --blocks 20")]
    EquivalenceGrid(equivalence_grid::EquivalenceGridArgs),
    /// EQUIVALENT on a machine that disturbs some runs (issue 42, item 4): each part's
    /// equivalence interval on A/A sessions at 30, 60 and 150 blocks (`--parts`),
    /// P(EQUIVALENT) on no change, ±2% shifts and tail regressions (`--changes`), and
    /// A/A under `--until decided` (`--sequential N`), on every simulated noise profile
    /// and the disturbed machine (Markdown tables; seeded).
    #[command(
        after_help = "Example: cargo xtask equivalence-disturbed --parts --changes --blocks 30,60 --profile disturbed"
    )]
    EquivalenceDisturbed(equivalence_disturbed::EquivalenceDisturbedArgs),
    /// Every paired estimator on the same simulated sessions of every noise profile: A/A
    /// false positives, coverage of the true ratio and power at 8 to 60 blocks for a 2% and
    /// a 1% effect (Markdown tables of docs/estimator-grid.md; seeded).
    #[command(after_help = "Example: cargo xtask estimator-grid --runs-per-block --reps 1000")]
    EstimatorGrid(estimator_grid::EstimatorGridArgs),
    /// Instruction counts against wall time under the noisy neighbour: `--reps` A/B
    /// experiments of a fixed-work +0.5% instructions change and `--reps` A/A pairs, each
    /// counted with valgrind (`--until decided --max-blocks 8`) and timed natively over as
    /// many blocks; the valgrind slowdown; chains=1 against chains=2 at equal work.
    #[command(
        after_help = "Example: cargo xtask counters --reps 10 --steps 2000000 --effect-pct 0.5 --blocks 10 --seed 1"
    )]
    Counters(counters::CountersArgs),
    /// The calibration of `abba history` on simulated histories of 200 commits (no change,
    /// a step of 1/2/5%, a creep of 0.1%/commit): false change points per 100 commits,
    /// detection and delay for e-divisive on levels and for paired steps (Markdown tables).
    #[command(after_help = "Example: cargo xtask history-calibrate --reps 100 --defaults-only")]
    HistoryCalibrate(history_calibrate::HistoryArgs),
    /// A toy git repository of 30 commits of a fixed-work benchmark (+2% at commit 15,
    /// +0.3% at 25), each compared with its parent by `abba compare --record`; prints
    /// `abba history show` and `check` and whether the change point and the chain of
    /// paired steps were found.
    #[command(
        after_help = "Example: cargo xtask history-demo --metric instructions --counter valgrind --blocks 2 --warmup 0"
    )]
    HistoryDemo(history::DemoArgs),
    /// Build a history of 10,000 experiments (1,000,000 runs) with `abba history import`
    /// and time `abba history show` and `list` on it; states the store size per 1,000 runs.
    #[command(after_help = "Example: cargo xtask history-scale --benchmarks 50 --seed 1")]
    HistoryScale(history::ScaleArgs),
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let root = run::workspace_root();
    match cli.task {
        Task::ChainSweep(a) => sweep::run(&root, &a.config()?),
        Task::ScipyTiming => scipy_timing::run(&root),
        Task::Scale(args) => scale::run(&root, &args),
        Task::Calibrate(a) => calibrate::run(&root, &a),
        Task::Replay(a) => replay::run(&root, &a),
        Task::Neighbour(a) => neighbour::run(&a),
        Task::PlanCheck(a) => plan_check::run(&root, &a),
        Task::Sequential(a) => sequential::run(&a),
        Task::SuiteSequential(a) => suite_sequential::run(&a),
        Task::DecisionGrid(a) => decision_grid::run(&a),
        Task::UntilDecidedGrid(a) => decision_grid::run_until_decided(&a),
        Task::PartCoverage(a) => decision_grid::run_part_coverage(&a),
        Task::AuditGrid(a) => decision_grid::run_audit_grid(&a),
        Task::CarryoverGrid(a) => carryover_grid::run(&a),
        Task::AutocorrelationGrid(a) => autocorr_grid::run(&a),
        Task::EquivalenceGrid(a) => equivalence_grid::run(&a),
        Task::EquivalenceDisturbed(a) => equivalence_disturbed::run(&a),
        Task::EstimatorGrid(a) => estimator_grid::run(&a),
        Task::Counters(a) => counters::run(&root, &a),
        Task::HistoryCalibrate(a) => history_calibrate::run(&a),
        Task::HistoryDemo(a) => history::demo(&root, &a),
        Task::HistoryScale(a) => history::scale(&root, &a),
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

    /// Every command's help ends with one example that parses (`cargo xtask X ...` and
    /// `cargo run ... -p bench-lab -- X ...` are the same command), using its flags.
    #[test]
    fn every_command_shows_an_example_that_parses() {
        let cli = Cli::command();
        for sub in cli.get_subcommands().filter(|c| c.get_name() != "help") {
            let name = sub.get_name();
            let help = sub.get_after_help().map(ToString::to_string);
            let example = help
                .as_deref()
                .and_then(|h| h.strip_prefix("Example: "))
                .unwrap_or_else(|| panic!("{name}: no `Example: ` after its help"));
            let line = example.split(" (or ").next().unwrap();
            let args = line
                .strip_prefix("cargo xtask ")
                .or_else(|| line.strip_prefix("cargo run --release -p bench-lab -- "))
                .unwrap_or_else(|| panic!("{name}: {line}"));
            let argv: Vec<&str> = std::iter::once("bench-lab")
                .chain(args.split_whitespace())
                .collect();
            assert_eq!(argv[1], name, "{name}: {line}");
            if let Err(e) = Cli::try_parse_from(&argv) {
                panic!("{name}: {line}: {e}");
            }
            // The alternative after "(or", when there is one, parses too.
            if let Some(alt) = example.split(" (or ").nth(1) {
                let alt = alt.trim_end_matches(')');
                let argv: Vec<&str> = ["bench-lab", name]
                    .into_iter()
                    .chain(alt.split_whitespace())
                    .collect();
                assert!(Cli::try_parse_from(&argv).is_ok(), "{name}: {alt}");
            }
        }
    }

    #[test]
    fn grid_flags_are_checked() {
        let ok = [
            "bench-lab",
            "decision-grid",
            "--reps",
            "20",
            "--profile",
            "shared-vm",
        ];
        assert!(Cli::try_parse_from(ok).is_ok());
        let only = ["bench-lab", "decision-grid", "--only", "oracle,default"];
        assert!(Cli::try_parse_from(only).is_ok());
        assert!(Cli::try_parse_from(["bench-lab", "decision-grid", "--only", "median"]).is_err());
        assert!(Cli::try_parse_from(["bench-lab", "decision-grid", "--profile", "vm"]).is_err());
        assert!(Cli::try_parse_from(["bench-lab", "until-decided-grid", "--reps", "0"]).is_err());
        let rpb = [
            "bench-lab",
            "estimator-grid",
            "--runs-per-block",
            "--reps",
            "10",
        ];
        assert!(Cli::try_parse_from(rpb).is_ok());
    }
}
