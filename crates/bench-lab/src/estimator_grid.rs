//! `cargo xtask estimator-grid`: the estimator grid of the power issue: every paired
//! estimator on the same simulated sessions of every noise profile of `bench_stats::sim`,
//! scored by A/A false positives, coverage of the true ratio and power, at 8, 12, 20, 30
//! and 60 ABBA blocks; `--runs-per-block` prints instead the same 120 runs as 30 blocks of
//! 2+2 or 15 blocks of 4+4. Prints the Markdown tables `docs/estimator-grid.md` holds
//! (seeded: the same flags print the same bytes).
//!
//! Every estimator decides exactly as the engine does: the Hodges-Lehmann family by the
//! signed-rank p of its block log-ratios, the pooled-median ratio by its bootstrap p, the
//! bootstrap estimators by their percentile interval at 95 %. Effects multiply every run
//! of `B`, so the true ratio is the effect for every ratio estimator. The CI check of the
//! fastest-run estimator through `analyze()` is
//! `estimator_grid::the_fastest_run_holds_its_error_rates_on_every_profile` in bench-stats'
//! integration tests.

use anyhow::Result;
use bench_lab::sim::{Experiment, NoiseProfile, SimDesign, simulate_cycles};
use bench_stats::paired::{BlockSummary, block_bootstrap, pooled_median_ratio};
use bench_stats::rank::{mann_whitney_u, paired_hodges_lehmann, wilcoxon_signed_rank};
use bench_stats::resample::BootstrapConfig;
use bench_stats::{PairedEstimator, Sample};

const ALPHA: f64 = 0.05;

/// Flags of `estimator-grid`.
#[derive(clap::Args, Debug)]
pub struct EstimatorGridArgs {
    /// Simulated sessions per cell.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// Print only the runs-per-block table (30 blocks of 2+2 runs against 15 of 4+4).
    #[arg(long)]
    runs_per_block: bool,
}

/// What one estimator says about one experiment: significant at alpha, and whether its
/// 95 % interval holds `truth`.
#[derive(Clone, Copy)]
struct Call {
    significant: bool,
    covers: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Est {
    HlMean,
    HlMin,
    HlMedian,
    PooledMedian,
    MedianLogRatio,
    RatioOfMeans,
    SequentialMwu,
}

impl Est {
    const ALL: [Est; 7] = [
        Est::HlMean,
        Est::HlMin,
        Est::HlMedian,
        Est::PooledMedian,
        Est::MedianLogRatio,
        Est::RatioOfMeans,
        Est::SequentialMwu,
    ];

    fn name(self) -> &'static str {
        match self {
            Est::HlMean => "hl-log-ratio (block means)",
            Est::HlMin => "hl-min-log-ratio",
            Est::HlMedian => "hl-median-log-ratio",
            Est::PooledMedian => "pooled-median-ratio",
            Est::MedianLogRatio => "median-log-ratio (bootstrap)",
            Est::RatioOfMeans => "ratio-of-means (bootstrap)",
            Est::SequentialMwu => "sequential + Mann-Whitney",
        }
    }
}

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

fn hl_call(l: &[f64], truth: f64) -> Call {
    let p = wilcoxon_signed_rank(l).map_or(1.0, |w| w.p_value);
    let ci = paired_hodges_lehmann(l, 0.95).expect("hl");
    Call {
        significant: p < ALPHA,
        covers: ci.ci_low <= truth.ln() && truth.ln() <= ci.ci_high,
    }
}

fn boot(resamples: u32, seed: u64) -> BootstrapConfig {
    BootstrapConfig {
        resamples,
        seed,
        ..BootstrapConfig::default()
    }
}

fn call(est: Est, e: &Experiment, blocks: usize, truth: f64, resamples: u32) -> Call {
    match est {
        Est::HlMean => hl_call(&log_ratios(e, blocks, BlockSummary::Mean), truth),
        Est::HlMin => hl_call(&log_ratios(e, blocks, BlockSummary::Min), truth),
        Est::HlMedian => hl_call(&log_ratios(e, blocks, BlockSummary::Median), truth),
        Est::PooledMedian => {
            let r = pooled_median_ratio(
                &block_runs(e, blocks, 0),
                &block_runs(e, blocks, 1),
                &boot(resamples, 7),
            )
            .expect("pooled");
            Call {
                significant: r.p_value < ALPHA,
                covers: r.interval.contains(truth),
            }
        }
        Est::MedianLogRatio | Est::RatioOfMeans => {
            let means = |v| {
                Sample::from_vec(
                    block_runs(e, blocks, v)
                        .iter()
                        .map(|r| BlockSummary::Mean.of(r).expect("runs"))
                        .collect(),
                )
                .expect("sample")
            };
            let which = if est == Est::RatioOfMeans {
                PairedEstimator::RatioOfMeans
            } else {
                PairedEstimator::MedianLogRatio
            };
            let ci = block_bootstrap(&means(0), &means(1), which, &boot(resamples, 7))
                .expect("interval");
            Call {
                significant: !ci.contains(1.0),
                covers: ci.contains(truth),
            }
        }
        Est::SequentialMwu => unreachable!("sequential sessions are scored apart"),
    }
}

/// Rates of one (profile, blocks, estimator) cell.
#[derive(Default, Clone, Copy)]
struct Rates {
    false_pos: u32,
    covered: u32,
    power: u32,
    reps: u32,
}

/// Scores every estimator of `ests` on `reps` A/A and `reps` effect sessions of `profile`
/// at `blocks` blocks (`cycles` ABBA cycles per block, ordered by `design`).
#[allow(clippy::too_many_arguments)] // the grid's axes
fn score(
    profile: NoiseProfile,
    design: SimDesign,
    blocks: u32,
    cycles: u32,
    effect: f64,
    reps: u32,
    ests: &[Est],
    resamples: u32,
) -> Vec<Rates> {
    let cfg = profile.config();
    let mut rates = vec![Rates::default(); ests.len()];
    let seed0 = 1_000_000 * u64::from(blocks) + 100_000 * u64::from(cycles);
    for r in 0..u64::from(reps) {
        let null = simulate_cycles(&cfg, design, blocks, cycles, seed0 + r);
        let eff = simulate_cycles(
            &cfg.with_effect(effect),
            design,
            blocks,
            cycles,
            seed0 + 50_000 + r,
        );
        let (sn, se) = (
            simulate_cycles(
                &cfg,
                SimDesign::Sequential,
                blocks,
                cycles,
                seed0 + 70_000 + r,
            ),
            simulate_cycles(
                &cfg.with_effect(effect),
                SimDesign::Sequential,
                blocks,
                cycles,
                seed0 + 90_000 + r,
            ),
        );
        for (k, &est) in ests.iter().enumerate() {
            let n = blocks as usize;
            let (fp, cov, pow) = if est == Est::SequentialMwu {
                let mwu = |e: &Experiment| {
                    let s = |v| Sample::from_vec(bench_lab::sim::values(e, v)).expect("runs");
                    mann_whitney_u(&s(0), &s(1)).expect("mwu").p_value < ALPHA
                };
                (mwu(&sn), false, mwu(&se))
            } else {
                let a = call(est, &null, n, 1.0, resamples);
                let b = call(est, &eff, n, effect, resamples);
                (a.significant, b.covers, b.significant)
            };
            rates[k].false_pos += u32::from(fp);
            rates[k].covered += u32::from(cov);
            rates[k].power += u32::from(pow);
            rates[k].reps += 1;
        }
    }
    rates
}

fn pct(k: u32, n: u32) -> f64 {
    100.0 * f64::from(k) / f64::from(n)
}

/// `cargo xtask estimator-grid`.
///
/// # Errors
/// Never; the signature matches the other tasks.
pub fn run(args: &EstimatorGridArgs) -> Result<()> {
    if args.runs_per_block {
        runs_per_block(args.reps);
    } else {
        grid_table(args.reps);
    }
    Ok(())
}

/// Every estimator on every profile at 8, 12, 20, 30 and 60 blocks, for a 2 % and a 1 %
/// effect.
fn grid_table(reps: u32) {
    const BLOCKS: [u32; 5] = [8, 12, 20, 30, 60];
    for effect in [1.02, 1.01] {
        println!(
            "\n## {:.0}% effect: A/A false positives % | coverage of the true ratio % | power % ({reps} sessions per cell, 2+2 runs per ABBA block; MC error at 5%: ±{:.1} points)",
            (effect - 1.0) * 100.0,
            100.0 * 2.0 * (ALPHA * (1.0 - ALPHA) / f64::from(reps)).sqrt()
        );
        for profile in NoiseProfile::ALL {
            println!("\n### {profile}\n");
            println!("| estimator | false positives at 8/12/20/30/60 blocks | coverage | power |");
            println!("| --- | --- | --- | --- |");
            let cells: Vec<Vec<Rates>> = BLOCKS
                .iter()
                .map(|&b| {
                    score(
                        profile,
                        SimDesign::Abba,
                        b,
                        1,
                        effect,
                        reps,
                        &Est::ALL,
                        1000,
                    )
                })
                .collect();
            for (k, est) in Est::ALL.iter().enumerate() {
                let col = |f: &dyn Fn(&Rates) -> u32| {
                    cells
                        .iter()
                        .map(|c| format!("{:.1}", pct(f(&c[k]), c[k].reps)))
                        .collect::<Vec<_>>()
                        .join(" / ")
                };
                let coverage = if *est == Est::SequentialMwu {
                    "n/a".to_owned()
                } else {
                    col(&|r| r.covered)
                };
                println!(
                    "| {} | {} | {} | {} |",
                    est.name(),
                    col(&|r| r.false_pos),
                    coverage,
                    col(&|r| r.power)
                );
            }
        }
    }
}

/// The same 120 runs as 30 blocks of 2+2, 15 blocks of 4+4, and 15 blocks of 4+4 with `A`
/// opening every block.
fn runs_per_block(reps: u32) {
    let ests = [Est::HlMean, Est::HlMin, Est::HlMedian, Est::PooledMedian];
    println!(
        "\n## The same 120 runs as 30 blocks of 2+2 or 15 blocks of 4+4 (two ABBA cycles): false positives % | coverage % | power % at a 2% effect ({reps} sessions)\n"
    );
    println!(
        "| profile | estimator | 30 x (2+2) | 15 x (4+4) | 15 x (4+4), `A` opening every block (rejected) |"
    );
    println!("| --- | --- | --- | --- | --- |");
    for profile in NoiseProfile::ALL {
        let one = score(profile, SimDesign::Abba, 30, 1, 1.02, reps, &ests, 1000);
        let two = score(profile, SimDesign::Abba, 15, 2, 1.02, reps, &ests, 1000);
        let run_on = score(
            profile,
            SimDesign::AbbaRunOn,
            15,
            2,
            1.02,
            reps,
            &ests,
            1000,
        );
        for (k, est) in ests.iter().enumerate() {
            let cell = |r: &Rates| {
                format!(
                    "{:.1} / {:.1} / {:.1}",
                    pct(r.false_pos, r.reps),
                    pct(r.covered, r.reps),
                    pct(r.power, r.reps)
                )
            };
            println!(
                "| {profile} | {} | {} | {} | {} |",
                est.name(),
                cell(&one[k]),
                cell(&two[k]),
                cell(&run_on[k])
            );
        }
    }
}
