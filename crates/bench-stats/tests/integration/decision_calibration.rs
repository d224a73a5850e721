//! Calibration of the decision rules users act on, by simulation (`sim`): the CI gate's
//! operating characteristic, the equivalence test's error rates, and the A/A rate of the
//! verdict, on two noise profiles (`bursty`, the hard case fitted to a busy shared VM, and
//! `shared-vm`, a quieter one) at the default 20 blocks and at 30.
//!
//! `cargo test -p bench-stats --test integration decision_calibration:: -- --nocapture` prints the
//! tables; `docs/calibration.md` quotes them, and each test fails when its table there
//! differs from what it printed (`bench_docs::Figure`; `ABBA_UPDATE_FIGURES=1` rewrites it). Bounds allow 3 Monte Carlo standard deviations.

use crate::sim::{Design, NoiseProfile, SimConfig, simulate};
#[allow(dead_code)] // each test binary uses part of the simulator
use bench_docs::Figure;
use bench_stats::analysis::regressions;
use bench_stats::{AnalysisConfig, Outcome, Verdict, analyze};

const ALPHA: f64 = 0.05;
const REPS: u64 = 300;
/// Where the tables are quoted; each is marked with the command that prints it alone.
const DOC: &str = "docs/calibration.md";

fn config() -> AnalysisConfig {
    // The gate and the equivalence test read the signed-rank interval, not the bootstrap:
    // few resamples keep the bootstrap estimators printed beside it cheap.
    AnalysisConfig {
        resamples: 200,
        ..AnalysisConfig::default()
    }
}

fn mc_sd(p: f64, reps: u64) -> f64 {
    (p.max(0.01) * (1.0 - p.max(0.01)) / reps as f64).sqrt()
}

fn profiles() -> [(&'static str, SimConfig); 2] {
    [
        ("bursty", SimConfig::default()),
        ("shared-vm", NoiseProfile::SharedVm.config()),
    ]
}

/// The share of `REPS` simulated experiments for which `hit` holds, analysed with
/// `config`.
fn rate_with(
    config: &AnalysisConfig,
    cfg: &SimConfig,
    blocks: u32,
    seed: u64,
    hit: impl Fn(&bench_stats::Analysis) -> bool,
) -> f64 {
    let hits = (0..REPS)
        .filter(|rep| {
            let e = simulate(cfg, Design::Abba, blocks, seed + rep);
            hit(&analyze(&e.dataset, config).expect("simulated data analyze"))
        })
        .count();
    hits as f64 / REPS as f64
}

/// [`rate_with`] the default calibration config.
fn rate(
    cfg: &SimConfig,
    blocks: u32,
    seed: u64,
    hit: impl Fn(&bench_stats::Analysis) -> bool,
) -> f64 {
    rate_with(&config(), cfg, blocks, seed, hit)
}

#[test]
fn the_gate_trips_at_most_at_alpha_without_a_slowdown_and_more_often_the_larger_it_is() {
    let mut fig = Figure::new(
        DOC,
        "cargo test -p bench-stats --test integration decision_calibration::the_gate -- --nocapture",
    );
    fig.line(format!(
        "P(exit 1) of --fail-if-slower PCT, {REPS} experiments per cell (Monte Carlo SD <= 0.029)"
    ));
    fig.line(format!(
        "{:<10} {:>5} {:>7} | {:>7} {:>7} {:>7} {:>7}",
        "profile", "PCT", "blocks", "0", "PCT/2", "PCT", "2 PCT"
    ));
    for (name, profile) in profiles() {
        for pct in [0.02, 0.05] {
            for blocks in [20, 30] {
                let curve: Vec<f64> = [0.0, 0.5, 1.0, 2.0]
                    .iter()
                    .map(|m| {
                        let cfg = profile.with_effect(1.0 + m * pct);
                        rate(&cfg, blocks, 7_000, |a| !regressions(a, pct).is_empty())
                    })
                    .collect();
                fig.line(format!(
                    "{name:<10} {:>4.0}% {blocks:>7} | {:>7.3} {:>7.3} {:>7.3} {:>7.3}",
                    pct * 100.0,
                    curve[0],
                    curve[1],
                    curve[2],
                    curve[3]
                ));
                assert!(
                    curve[0] <= ALPHA + 3.0 * mc_sd(ALPHA, REPS),
                    "{name} {pct} {blocks}: trips {} without a slowdown",
                    curve[0]
                );
                assert!(curve[3] > curve[1], "{name} {pct} {blocks}: {curve:?}");
            }
        }
    }
    fig.check();
}

#[test]
fn equivalence_is_claimed_at_most_alpha_of_the_time_at_the_margin_and_less_beyond() {
    let mut fig = Figure::new(
        DOC,
        "cargo test -p bench-stats --test integration decision_calibration::equivalence -- --nocapture",
    );
    fig.line(format!(
        "P(EQUIVALENT), {REPS} experiments per cell; true slowdown 0, margin/2, margin, 2 margin"
    ));
    fig.line(format!(
        "{:<10} {:>6} {:>7} | {:>7} {:>7} {:>7} {:>7}",
        "profile", "margin", "blocks", "0", "m/2", "m", "2m"
    ));
    for (name, profile) in profiles() {
        for margin in [0.01, 0.05] {
            for blocks in [20, 30] {
                let config = AnalysisConfig {
                    equivalence_margin: margin,
                    ..config()
                };
                let rates: Vec<f64> = [0.0, 0.5, 1.0, 2.0]
                    .iter()
                    .map(|m| {
                        let cfg = profile.with_effect(1.0 + m * margin);
                        rate_with(&config, &cfg, blocks, 9_000, |a| {
                            a.groups[0].comparisons[0].outcome == Outcome::Equivalent
                        })
                    })
                    .collect();
                fig.line(format!(
                    "{name:<10} {:>5.0}% {blocks:>7} | {:>7.3} {:>7.3} {:>7.3} {:>7.3}",
                    margin * 100.0,
                    rates[0],
                    rates[1],
                    rates[2],
                    rates[3]
                ));
                // At the margin the two one-sided tests may claim equivalence at most alpha
                // of the time; beyond it, less.
                let bound = ALPHA + 3.0 * mc_sd(ALPHA, REPS);
                assert!(rates[2] <= bound, "{name} {margin} {blocks}: {rates:?}");
                assert!(rates[3] <= bound, "{name} {margin} {blocks}: {rates:?}");
            }
        }
    }
    fig.check();
}

#[test]
fn the_verdict_on_identical_variants_is_significant_at_most_alpha_of_the_time() {
    let mut fig = Figure::new(
        DOC,
        "cargo test -p bench-stats --test integration decision_calibration::the_verdict_on_identical_variants -- --nocapture",
    );
    fig.line(format!(
        "A/A: P(significant), P(FASTER or SLOWER), {REPS} experiments per cell"
    ));
    for (name, profile) in profiles() {
        for blocks in [8, 20, 30] {
            let significant = rate(&profile, blocks, 11_000, |a| {
                a.groups[0].comparisons[0].verdict == Verdict::Significant
            });
            let acted = rate(&profile, blocks, 11_000, |a| {
                matches!(
                    a.groups[0].comparisons[0].outcome,
                    Outcome::Faster | Outcome::Slower
                )
            });
            fig.line(format!(
                "{name:<10} {blocks:>3} blocks: significant {significant:.3}, faster/slower {acted:.3}"
            ));
            assert!(
                significant <= ALPHA + 3.0 * mc_sd(ALPHA, REPS),
                "{name} {blocks}: {significant}"
            );
            assert!(acted <= significant);
        }
    }
    fig.check();
}
