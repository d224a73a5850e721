//! EQUIVALENT on a machine that disturbs some runs (issue 42, item 4), on CI-sized seeded
//! simulations of `bench_lab::sim::disturbed_machine` (quiet, with 8% of runs of either
//! variant 20-50% slower). The full table (30, 60 and 150 blocks, every profile, 200
//! sessions a cell, and `--until decided`) is `cargo xtask equivalence-disturbed`'s, quoted
//! in `docs/calibration.md`.
//!
//! Before, the slow runs (p90) had to be pinned to ±3% by their own interval, which sits at
//! the edge of the disturbed runs: at 150 blocks 1% of unchanged benchmarks were
//! EQUIVALENT. Now the slow runs, when not moved, are held by the mean run (the mean of
//! all runs) inside ±2%, the margin EQUIVALENT holds the mean run to, which a slow tail
//! that grew moves.

use bench_lab::sim::{Change, SimDesign, disturbed_machine, simulate_change};
use bench_stats::{AnalysisConfig, Comparison, Outcome, analyze};

/// The comparison of one seeded session of `change` on the disturbed machine.
fn comparison(change: &Change, blocks: u32, seed: u64) -> Comparison {
    let e = simulate_change(
        &disturbed_machine(),
        change,
        SimDesign::Abba,
        blocks,
        1,
        seed,
    );
    let config = AnalysisConfig {
        seed,
        ..AnalysisConfig::default()
    };
    let a = analyze(&e.dataset, &config).expect("analysis");
    a.groups[0].comparisons[0].clone()
}

fn equivalent(change: &Change, blocks: u32, reps: u64) -> usize {
    (0..reps)
        .filter(|&r| comparison(change, blocks, 40_000 + r).outcome == Outcome::Equivalent)
        .count()
}

#[test]
fn an_unchanged_benchmark_on_a_machine_that_disturbs_some_runs_is_equivalent_at_150_blocks() {
    // `cargo xtask equivalence-disturbed --changes --reps 200`: 50.5% (before: 1.0%, the
    // slow runs' own interval reaching ±18% at 150 blocks); 9 of these 16.
    let k = equivalent(&Change::none(), 150, 16);
    assert!(k >= 5, "{k} of 16 EQUIVALENT");
}

#[test]
fn a_real_tail_regression_on_that_machine_is_not_equivalent() {
    // 10% of B's runs 30% slower (its mean 3% slower) and 30% of them 20% slower (6%):
    // the mean run that holds the slow runs leaves ±2%.
    for change in [
        Change::share(0.1, (1.3, 1.3)),
        Change::share(0.3, (1.2, 1.2)),
    ] {
        let k = equivalent(&change, 150, 16);
        assert_eq!(k, 0, "{}: {k} of 16 EQUIVALENT", change.name);
    }
}

/// The numbers followed by " blocks" in `text`.
fn block_counts(text: &str) -> Vec<usize> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .filter(|w| w[1].starts_with("blocks"))
        .filter_map(|w| w[0].trim_start_matches('(').parse().ok())
        .collect()
}

#[test]
fn an_undecided_file_with_its_typical_run_pinned_is_told_what_keeps_it_from_equivalent() {
    // At 60 blocks the disturbed machine's typical run is pinned in every session while
    // the mean run or the slow runs often are not: the sentence names them, and never asks
    // for fewer blocks than were run.
    let mut told = 0;
    for r in 0..12 {
        let c = comparison(&Change::none(), 60, 40_000 + r);
        if c.outcome != Outcome::Inconclusive {
            continue;
        }
        let s = &c.summary;
        for k in block_counts(s) {
            assert!(k >= 60, "{k} blocks asked of a 60-block file: {s}");
        }
        let blocking = &c.decision.as_ref().expect("decision").blocking;
        if !blocking.iter().any(|b| b == "typical-run") {
            assert!(s.contains("The typical run is pinned within ±1.0%"), "{s}");
            assert!(s.contains("from EQUIVALENT"), "{s}");
            if told == 0 {
                // Quoted in docs/calibration.md (`-- --nocapture`).
                println!("seed {}: {s}", 40_000 + r);
            }
            told += 1;
        }
    }
    assert!(
        told >= 1,
        "no undecided session with its typical run pinned"
    );
}
