//! The fastest-run estimator of the estimator grid through the whole `analyze()`: the CI
//! check beside the grid of `docs/estimator-grid.md`, which `cargo xtask estimator-grid`
//! prints (every paired estimator on every noise profile at 8 to 60 blocks;
//! `--runs-per-block` the runs-per-block table).
//!
//! - `the_fastest_run_holds_its_error_rates_on_every_profile` checks the figure of
//!   `docs/calibration.md`: false positives within alpha plus Monte Carlo error and
//!   coverage within 2 points of nominal, on every profile at 8 and 30 blocks, and the
//!   power on the shared VM against block means.
//!
//! The power line scores the Hodges-Lehmann estimators as the grid does (the signed-rank p
//! of the block log-ratios, the same seeds as `crates/bench-lab/src/estimator_grid.rs`'s `score`).

use bench_lab::sim::{Experiment, NoiseProfile, SimDesign, simulate, simulate_cycles};
use bench_stats::paired::BlockSummary;
use bench_stats::rank::wilcoxon_signed_rank;
use bench_stats::{AnalysisConfig, PairedEstimator, Verdict, analyze};

const ALPHA: f64 = 0.05;

/// Per block, the runs of variant `v`.
fn block_runs(e: &Experiment, blocks: usize, v: usize) -> Vec<Vec<f64>> {
    let mut out = vec![Vec::new(); blocks];
    for &(variant, b, _, value) in &e.runs {
        if variant == v && (b as usize) < blocks {
            out[b as usize].push(value);
        }
    }
    out
}

fn log_ratios(e: &Experiment, blocks: usize, summary: BlockSummary) -> Vec<f64> {
    let (a, b) = (block_runs(e, blocks, 0), block_runs(e, blocks, 1));
    a.iter()
        .zip(&b)
        .map(|(a, b)| (summary.of(b).expect("runs") / summary.of(a).expect("runs")).ln())
        .collect()
}

/// Power of the Hodges-Lehmann estimator on the block `summary` (its signed-rank p below
/// alpha) over `reps` sessions of `profile` with `effect`, `blocks` ABBA blocks of one
/// cycle: the effect sessions of the grid's `score` (seeds `1,000,000 blocks + 150,000`
/// on).
fn hl_power(
    profile: NoiseProfile,
    blocks: u32,
    effect: f64,
    reps: u32,
    summary: BlockSummary,
) -> u32 {
    let cfg = profile.config().with_effect(effect);
    let seed0 = 1_000_000 * u64::from(blocks) + 100_000;
    (0..u64::from(reps))
        .map(|r| {
            let e = simulate_cycles(&cfg, SimDesign::Abba, blocks, 1, seed0 + 50_000 + r);
            let l = log_ratios(&e, blocks as usize, summary);
            u32::from(wilcoxon_signed_rank(&l).map_or(1.0, |w| w.p_value) < ALPHA)
        })
        .sum()
}

fn pct(k: u32, n: u32) -> f64 {
    100.0 * f64::from(k) / f64::from(n)
}

/// `alpha + 3 sqrt(alpha (1 - alpha) / reps)`, as a percentage.
fn fp_bound(reps: u32) -> f64 {
    100.0 * (ALPHA + 3.0 * (ALPHA * (1.0 - ALPHA) / f64::from(reps)).sqrt())
}

/// The fastest-run estimator through the whole `analyze()`, as users get it: on every profile at
/// 8 and 30 blocks, A/A false positives within alpha plus three Monte Carlo SDs and
/// coverage of a 2 % effect within 2 points of nominal (minus the same Monte Carlo
/// allowance); and on the shared VM it has the power the grid promised over the block
/// means (same sessions).
#[test]
fn the_fastest_run_holds_its_error_rates_on_every_profile() {
    // The fastest-run estimator (`--estimator hl-min-log-ratio`); the default, the typical
    // run, is calibrated by `decision_grid` (and `cargo xtask decision-grid`).
    let config = AnalysisConfig {
        resamples: 200,
        paired_estimator: PairedEstimator::HodgesLehmannMinLogRatio,
        ..AnalysisConfig::default()
    };
    let mut fig = bench_docs::Figure::new(
        "docs/calibration.md",
        "cargo test -p bench-lab --test grid estimator_grid::the_fastest_run_holds -- --nocapture",
    );
    let reps = 150u32;
    let cov_floor = 93.0 - 300.0 * (0.05 * 0.95 / f64::from(reps)).sqrt();
    for profile in NoiseProfile::ALL {
        let cfg = profile.config();
        for blocks in [8u32, 30] {
            let (mut fp, mut covered) = (0u32, 0u32);
            for r in 0..u64::from(reps) {
                let null = simulate(&cfg, SimDesign::Abba, blocks, 40_000 + r);
                let a = analyze(&null.dataset, &config).expect("analysis");
                fp += u32::from(a.groups[0].comparisons[0].verdict == Verdict::Significant);
                let eff = simulate(&cfg.with_effect(1.02), SimDesign::Abba, blocks, 60_000 + r);
                let a = analyze(&eff.dataset, &config).expect("analysis");
                let ci = a.groups[0].comparisons[0].ratio_ci.expect("interval");
                covered += u32::from(ci[0] <= 1.02 && 1.02 <= ci[1]);
            }
            let (fp, cov) = (pct(fp, reps), pct(covered, reps));
            fig.line(format!(
                "{:<10} {blocks:>2} blocks: A/A false positives {fp:.1}%, coverage {cov:.1}%",
                profile.as_str()
            ));
            assert!(
                fp <= fp_bound(reps),
                "{profile} {blocks}: false positives {fp}%"
            );
            assert!(cov >= cov_floor, "{profile} {blocks}: coverage {cov}%");
        }
    }
    // Power on the shared VM, 30 blocks, 2 %: the block minima against the block means.
    let power = |summary| {
        pct(
            hl_power(NoiseProfile::SharedVm, 30, 1.02, 200, summary),
            200,
        )
    };
    let (min, mean) = (power(BlockSummary::Min), power(BlockSummary::Mean));
    fig.line(format!(
        "shared-vm 30 blocks, 2%: power {min:.1}% (block minima) vs {mean:.1}% (block means)"
    ));
    assert!(min > mean + 20.0, "{min} vs {mean}");
    fig.check();
}
