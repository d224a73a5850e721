//! `cargo xtask suite-sequential`: the calibration of `abba suite --until decided` on the
//! simulator's noise profiles. Every simulated suite is an A/A suite of `m` benchmarks
//! (each its own simulated session, no change anywhere); each benchmark's sign sequence
//! is watched after every block, as the suite's runner watches it, and stops at its first
//! decision. A false claim is a benchmark stopped FASTER or SLOWER. The table gives the
//! share of suites with any false claim (the family-wise error rate, which bounds the
//! false discovery rate) at the suite's rule, each sequence at alpha / m (Bonferroni,
//! `bench_stats::suite::sequential_level`), beside each sequence at alpha (no
//! correction), and the blocks until every benchmark had stopped. The runner also holds a
//! stop the shape check contradicts, which only removes claims: the rates here bound the
//! suite's.

use anyhow::Result;
use bench_lab::sim::{NoiseProfile, SimDesign, simulate};
use bench_stats::sequential::{LookDecision, SequentialRule, dataset_log_ratios, replay};
use bench_stats::suite::{Correction, sequential_level};

use crate::table::TextTable as Table;

/// Flags of `suite-sequential`.
#[derive(clap::Args, Debug)]
pub struct SuiteSequentialArgs {
    /// Simulated suites per cell.
    #[arg(long, default_value_t = 200)]
    reps: u64,
    /// The suite's error rate.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// The most blocks of each suite.
    #[arg(long, default_value_t = 200)]
    max_blocks: u32,
}

/// The benchmarks per suite of the table's rows.
const SIZES: [usize; 3] = [2, 5, 10];

/// One benchmark's A/A block log-ratios over `blocks` blocks.
fn logs(profile: NoiseProfile, blocks: u32, seed: u64) -> Vec<f64> {
    let e = simulate(&profile.config(), SimDesign::Abba, blocks, seed);
    dataset_log_ratios(&e.dataset, None).unwrap_or_default()
}

/// The first decision of `logs` under the default rule at `level` up to `max` blocks:
/// (blocks, decision), or (max, undecided).
fn stop(logs: &[f64], level: f64, max: u32) -> (u32, LookDecision) {
    let rule = SequentialRule {
        max_blocks: max,
        ..SequentialRule::new(level, 0.01)
    };
    let r = replay(&logs[..logs.len().min(max as usize)], &rule);
    r.first_decision
        .map_or((max, LookDecision::Undecided), |i| {
            (r.looks[i].blocks, r.looks[i].decision)
        })
}

/// What one cell found: suites with any false claim at alpha / m and at alpha, and the
/// blocks at which each suite (at alpha / m) had stopped everywhere.
struct Cell {
    false_corrected: u64,
    false_uncorrected: u64,
    blocks: Vec<u32>,
    all_decided: u64,
}

fn cell(profile: NoiseProfile, m: usize, args: &SuiteSequentialArgs) -> Cell {
    let level = sequential_level(args.alpha, Correction::Holm, m);
    let claims = |d: LookDecision| matches!(d, LookDecision::Larger | LookDecision::Smaller);
    let mut c = Cell {
        false_corrected: 0,
        false_uncorrected: 0,
        blocks: Vec::new(),
        all_decided: 0,
    };
    for rep in 0..args.reps {
        let suite: Vec<Vec<f64>> = (0..m)
            .map(|k| logs(profile, args.max_blocks, 90_000 + rep * 64 + k as u64))
            .collect();
        let corrected: Vec<(u32, LookDecision)> = suite
            .iter()
            .map(|l| stop(l, level, args.max_blocks))
            .collect();
        c.false_corrected += u64::from(corrected.iter().any(|&(_, d)| claims(d)));
        c.false_uncorrected += u64::from(
            suite
                .iter()
                .any(|l| claims(stop(l, args.alpha, args.max_blocks).1)),
        );
        c.all_decided += u64::from(corrected.iter().all(|&(_, d)| d.decided()));
        c.blocks
            .push(corrected.iter().map(|&(b, _)| b).max().unwrap_or(0));
    }
    c.blocks.sort_unstable();
    c
}

/// The table, with its title, as Markdown (`docs/usage.md` quotes it whole).
fn report(args: &SuiteSequentialArgs) -> String {
    let mut t = Table::new([
        "profile",
        "benchmarks",
        "any FASTER/SLOWER, each at alpha/m (the suite's rule)",
        "any FASTER/SLOWER, each at alpha (uncorrected)",
        "median blocks until all stopped",
        "all decided",
    ]);
    let share = |n: u64| format!("{:.3}", n as f64 / args.reps as f64);
    for profile in NoiseProfile::ALL {
        for m in SIZES {
            let c = cell(profile, m, args);
            t.row([
                profile.as_str().to_owned(),
                m.to_string(),
                share(c.false_corrected),
                share(c.false_uncorrected),
                c.blocks[c.blocks.len() / 2].to_string(),
                share(c.all_decided),
            ]);
        }
    }
    format!(
        "**A/A suites under `--until decided` ({} suites per cell, alpha {}, at most {} blocks; MC SD at 0.05: {:.3})**\n\n{}",
        args.reps,
        args.alpha,
        args.max_blocks,
        (0.05 * 0.95 / args.reps as f64).sqrt(),
        t.markdown().trim_end()
    )
}

/// Runs the grid and prints the table.
pub fn run(args: &SuiteSequentialArgs) -> Result<()> {
    println!("{}", report(args));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The suite's rule keeps A/A suites of 10 benchmarks within alpha family-wise, where
    /// the uncorrected sequences do not (60 suites per profile, at most 60 blocks: the
    /// bound is alpha plus 3 Monte Carlo SDs).
    #[test]
    fn the_suites_rule_keeps_any_false_claim_within_alpha() {
        let args = SuiteSequentialArgs {
            reps: 60,
            alpha: 0.05,
            max_blocks: 60,
        };
        let bound = 0.05 + 3.0 * (0.05 * 0.95 / 60.0_f64).sqrt();
        let (mut corrected, mut uncorrected) = (0, 0);
        for profile in [NoiseProfile::Quiet, NoiseProfile::Drift] {
            let c = cell(profile, 10, &args);
            assert!(
                c.false_corrected as f64 / 60.0 <= bound,
                "{}: {} of 60",
                profile.as_str(),
                c.false_corrected
            );
            corrected += c.false_corrected;
            uncorrected += c.false_uncorrected;
        }
        assert!(uncorrected > corrected, "{uncorrected} vs {corrected}");
    }
}
