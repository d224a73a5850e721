//! The whole decision, through [`analyze`], with the default (typical-run) estimator on a
//! small seeded grid of the noise profiles: the CI check beside the full table of
//! `docs/estimator-grid.md`, which `cargo xtask decision-grid` prints (the default beside
//! the fastest-run estimator, block means and an oracle; `cargo xtask until-decided-grid`
//! the same changes under `--until decided`).
//!
//! - `unequal_replicate_counts_hold_alpha_and_check_the_quantiles_alone`: A/A at 1 + 3 and
//!   3 + 1 runs per block.
//! - `default_decision_holds_on_a_tail_change`: the default calls a tail regression SLOWER
//!   or MIXED, never FASTER or EQUIVALENT; holds A/A; does not call a growing spread
//!   FASTER; covers a shift.
//!
//! The tally is the lab driver's (`crates/bench-lab/src/decision_grid.rs`) for the default alone: the same
//! seeds, so the same sessions as the table's `typical-run` rows.

use bench_lab::sim::{Change, NoiseProfile, SimDesign, simulate_change};
use bench_stats::{AnalysisConfig, Outcome, PairedEstimator, analyze};

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    n: u32,
    faster: u32,
    slower: u32,
    mixed: u32,
    equivalent: u32,
    covers: u32,
}

/// The default's outcomes on `reps` seeded sessions (seeds from 10,000) of `change` on
/// `profile`, `blocks` ABBA blocks each; `true_ratio` is what its interval covers.
fn tally(profile: NoiseProfile, change: &Change, blocks: u32, reps: u32, true_ratio: f64) -> Tally {
    let cfg = profile.config();
    let mut t = Tally::default();
    for r in 0..reps {
        let seed = 10_000 + u64::from(r);
        let e = simulate_change(&cfg, change, SimDesign::Abba, blocks, 1, seed);
        let config = AnalysisConfig {
            paired_estimator: PairedEstimator::TypicalRun,
            seed,
            ..AnalysisConfig::default()
        };
        let (o, ci) = match analyze(&e.dataset, &config) {
            Ok(a) => {
                let c = &a.groups[0].comparisons[0];
                (c.outcome, c.ratio_ci)
            }
            Err(_) => (Outcome::Inconclusive, None),
        };
        t.n += 1;
        t.faster += u32::from(o == Outcome::Faster);
        t.slower += u32::from(o == Outcome::Slower);
        t.mixed += u32::from(o == Outcome::Mixed);
        t.equivalent += u32::from(o == Outcome::Equivalent);
        if ci.is_some_and(|[lo, hi]| lo <= true_ratio && true_ratio <= hi) {
            t.covers += 1;
        }
    }
    t
}

#[test]
fn default_decision_holds_on_a_tail_change() {
    // 30% of B's runs 20% slower on a quiet machine, 25 blocks: the fastest-run estimator
    // called this EQUIVALENT in 24% of experiments (the grid); the default must never say FASTER or
    // EQUIVALENT, and must find it in most.
    let change = Change::share(0.3, (1.2, 1.2));
    let x = tally(NoiseProfile::Quiet, &change, 25, 24, 1.0);
    assert_eq!(x.faster + x.equivalent, 0, "{x:?}");
    assert!(x.slower + x.mixed >= 18, "{x:?}");
    // A/A on the same machine: at most a few claims in 24 (alpha 0.05: 1.2 expected).
    let aa = tally(NoiseProfile::SharedVm, &Change::none(), 12, 24, 1.0);
    assert!(aa.faster + aa.slower + aa.mixed <= 4, "{aa:?}");
    // A spread that grows (fast runs faster, slow runs slower, median unchanged) is never
    // called FASTER from the fast runs alone more than alpha allows.
    let spread = tally(NoiseProfile::Quiet, &Change::scale(0.1), 25, 24, 1.0);
    assert!(spread.faster <= 2, "{spread:?}");
    // A 2% shift on quiet: the interval (simultaneous 98.3%) covers it in nearly all.
    let sh = tally(NoiseProfile::Quiet, &Change::shift(1.02), 30, 24, 1.02);
    assert!(sh.covers >= 21 && sh.slower >= 22, "{sh:?}");
}

#[test]
fn unequal_replicate_counts_hold_alpha_and_check_the_quantiles_alone() {
    // One run of A and three of B per block, and the reverse (a CSV of replicates, not
    // abba's ABBA runner): the mean run is not checked and the quantiles are adjusted by
    // Bonferroni, so the reassigned runs' reference cannot make the family liberal. With
    // the min-p level over the reassignments, `drift` at 3 + 1 runs claimed 8.5% of 200
    // A/A sessions at 10 blocks; the bound is three Monte Carlo SDs above alpha at 400.
    for (profile, a, b) in [(NoiseProfile::Drift, 3, 1), (NoiseProfile::SharedVm, 1, 3)] {
        let cfg = profile.config();
        let reps = 400u32;
        let mut claims = 0;
        for r in 0..reps {
            let seed = 20_000 + u64::from(r);
            let design = SimDesign::Unequal { a, b };
            let e = simulate_change(&cfg, &Change::none(), design, 10, 1, seed);
            let config = AnalysisConfig {
                seed,
                ..AnalysisConfig::default()
            };
            let a = analyze(&e.dataset, &config).unwrap();
            let c = &a.groups[0].comparisons[0];
            let d = c.distribution.as_ref().unwrap();
            assert!(d.mean.is_none());
            assert_eq!(d.parts().count(), 3);
            claims += u32::from(matches!(
                c.outcome,
                Outcome::Faster | Outcome::Slower | Outcome::Mixed
            ));
        }
        let rate = f64::from(claims) / f64::from(reps);
        assert!(
            rate <= 0.05 + 3.0 * (0.05f64 * 0.95 / 400.0).sqrt(),
            "{profile} {a}+{b}: {rate}"
        );
    }
}
