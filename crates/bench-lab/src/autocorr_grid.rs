//! `cargo xtask autocorrelation-grid`: how often the autocorrelation warning of blocked
//! runs fires (issue 42, item 5). On A/A sessions of every simulated noise profile it
//! sets the within-block check ([`within_block_dependence_with`] at the analysis' settings
//! unless `--screen` says otherwise) beside the stream's lag-1 check it replaced for
//! blocked runs ([`iid_checks`] on each variant's runs in order, which counts the block
//! level); then the same sessions with AR(1) noise of coefficient 0.3 and 0.5 added to
//! every run, which the check must find. `--no-bursts` takes the profiles' bursts of slow
//! runs out (the ablation). Seeded: the same flags print the same bytes.

use anyhow::Result;
use bench_lab::sim::{Change, NoiseProfile, SimDesign, normal, simulate_change};
use bench_stats::Sample;
use bench_stats::diagnostics::{
    BlockedRun, WITHIN_BLOCK_LEVEL, WITHIN_BLOCK_SCREEN, WithinBlockConfig, iid_checks,
    within_block_dependence_with,
};
use bench_stats::sim::SimConfig;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::decision_grid::parse_profile;

/// Flags of `autocorrelation-grid`.
#[derive(clap::Args, Debug)]
pub struct AutocorrGridArgs {
    /// Simulated sessions per cell.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// Only this noise profile (quiet, shared-vm, bursty, drift); by default every one.
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    profile: Option<NoiseProfile>,
    /// The span (robust SDs) beyond which a block is left out; by default the analysis'
    /// (`WITHIN_BLOCK_SCREEN`).
    #[arg(long, default_value_t = WITHIN_BLOCK_SCREEN)]
    screen: f64,

    /// The profiles without their bursts of slow runs (the ablation that shows what the
    /// A/A rate owes to them).
    #[arg(long)]
    no_bursts: bool,
    /// What the warning claims, measured: on A/A sessions of each profile (with and
    /// without its bursts, and with AR(1) noise of 0.5), the variance of the paired
    /// estimate with 4 runs a block over that with 8 (2 if a block's runs were
    /// independent, 1 if the extra runs added nothing).
    #[arg(long, conflicts_with_all = ["audit", "no_bursts"])]
    precision: bool,
    /// The audit's A/A cases of issue 42 instead of the profiles: block levels with
    /// position effects, drift, heavy tails, quantized values, integer counts with ties,
    /// unequal counts, and 1 to 8 runs a block (every one exchangeable inside its blocks).
    #[arg(long, conflicts_with_all = ["profile", "no_bursts"])]
    audit: bool,
}

/// The run noise of an audit case (on the log scale unless said otherwise).
#[derive(Debug, Clone, Copy)]
enum Noise {
    /// Normal, SD 1%.
    Normal,
    /// Student's t with 3 degrees of freedom, scale 1%.
    T3,
    /// Normal of SD 0.3: the run times lognormal with sigma 0.3.
    LogNormal,
    /// A right-skewed additive excess: `1 + 0.02 exp(Z)` times the level.
    Skewed,
    /// Normal 1%, then rounded to a timer tick of this many SDs of the noise.
    Quantized(f64),
    /// Instruction counts: an integer base per block plus Poisson(2) counts (many ties).
    Counts,
}

/// One A/A case of the audit: the orders of variants of even and odd blocks, the noise,
/// and whether a drift is linear (`false`) or curved over the session.
struct AuditCase {
    name: &'static str,
    orders: [&'static [usize]; 2],
    noise: Noise,
    drift: Option<bool>,
    shuffled: bool,
}

const ABBA: [&[usize]; 2] = [&[0, 1, 1, 0], &[1, 0, 0, 1]];

/// The audit's A/A cases (issue 42): each exchangeable inside its blocks once the block's
/// level and the fixed effects of position and order are taken out.
fn audit_cases() -> Vec<AuditCase> {
    let c = |name, orders, noise| AuditCase {
        name,
        orders,
        noise,
        drift: None,
        shuffled: false,
    };
    vec![
        c("1 run a block", [&[0], &[1]], Noise::Normal),
        c("2 runs a block", [&[0, 1], &[1, 0]], Noise::Normal),
        c("3 runs a block", [&[0, 1, 0], &[1, 0, 1]], Noise::Normal),
        c("4 runs a block (ABBA)", ABBA, Noise::Normal),
        c(
            "6 runs a block",
            [&[0, 1, 1, 0, 1, 0], &[1, 0, 0, 1, 0, 1]],
            Noise::Normal,
        ),
        c(
            "8 runs a block",
            [&[0, 1, 1, 0, 1, 0, 0, 1], &[1, 0, 0, 1, 0, 1, 1, 0]],
            Noise::Normal,
        ),
        AuditCase {
            shuffled: true,
            ..c("4 runs a block, random order", ABBA, Noise::Normal)
        },
        c(
            "unequal counts (3 A, 1 B)",
            [&[0, 0, 0, 1], &[1, 0, 0, 0]],
            Noise::Normal,
        ),
        c(
            "unequal counts (2 A, 1 B)",
            [&[0, 0, 1], &[1, 0, 0]],
            Noise::Normal,
        ),
        AuditCase {
            drift: Some(false),
            ..c("linear drift", ABBA, Noise::Normal)
        },
        AuditCase {
            drift: Some(true),
            ..c("curved drift", ABBA, Noise::Normal)
        },
        c("heavy tails (t3)", ABBA, Noise::T3),
        c("lognormal sigma 0.3", ABBA, Noise::LogNormal),
        c("skewed excess", ABBA, Noise::Skewed),
        c("quantized (tick = 1 SD)", ABBA, Noise::Quantized(1.0)),
        c("quantized (tick = 3 SD)", ABBA, Noise::Quantized(3.0)),
        c("integer counts, Poisson(2)", ABBA, Noise::Counts),
        c(
            "integer counts, 8 runs a block",
            [&[0, 1, 1, 0, 1, 0, 0, 1], &[1, 0, 0, 1, 0, 1, 1, 0]],
            Noise::Counts,
        ),
    ]
}

/// Poisson(`lambda`) by Knuth's product of uniforms.
fn poisson(rng: &mut Xoshiro256PlusPlus, lambda: f64) -> f64 {
    use rand::Rng;
    let limit = (-lambda).exp();
    let (mut k, mut prod) = (0.0, rng.random::<f64>());
    while prod > limit {
        k += 1.0;
        prod *= rng.random::<f64>();
    }
    k
}

/// One A/A session of an audit case: block log levels with SD 5% (integer offsets for
/// counts), the first run of a block 3% slower and the second 1%, a run after the other
/// variant 0.5% faster, the case's drift and noise.
fn audit_session(case: &AuditCase, blocks: u32, seed: u64) -> Vec<BlockedRun> {
    use rand::seq::SliceRandom;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let slope = 0.0005 * normal(&mut rng);
    let mut runs = Vec::new();
    let (mut t, mut last) = (0u32, None);
    for block in 0..blocks {
        let mut order = case.orders[(block % 2) as usize].to_vec();
        if case.shuffled {
            order.shuffle(&mut rng);
        }
        let level = 0.05 * normal(&mut rng);
        let count_base = (1_000_000.0 + 500.0 * normal(&mut rng)).round();
        for (p, &variant) in order.iter().enumerate() {
            let mut log = level + [0.03, 0.01].get(p).copied().unwrap_or(0.0);
            if last.is_some_and(|v| v != variant) {
                log -= 0.005;
            }
            log += match case.drift {
                None => 0.0,
                Some(false) => slope * f64::from(t),
                Some(true) => 0.05 * (std::f64::consts::TAU * f64::from(t) / 300.0).sin(),
            };
            let z = normal(&mut rng);
            let value = match case.noise {
                Noise::Normal => 1000.0 * (log + 0.01 * z).exp(),
                Noise::T3 => {
                    let chi2: f64 = (0..3).map(|_| normal(&mut rng).powi(2)).sum();
                    1000.0 * (log + 0.01 * z / (chi2 / 3.0).sqrt()).exp()
                }
                Noise::LogNormal => 1000.0 * (log + 0.3 * z).exp(),
                Noise::Skewed => 1000.0 * log.exp() * (1.0 + 0.02 * z.exp()),
                Noise::Quantized(ticks) => {
                    let tick = ticks * 10.0;
                    let v = 1000.0 * (log + 0.01 * z).exp();
                    ((v / tick).round() * tick).max(tick)
                }
                Noise::Counts => {
                    let fixed = [30.0, 10.0].get(p).copied().unwrap_or(0.0);
                    count_base + fixed + poisson(&mut rng, 2.0)
                }
            };
            runs.push(BlockedRun {
                variant,
                block,
                position: p as u32,
                value,
            });
            t += 1;
            last = Some(variant);
        }
    }
    runs
}

/// The AR(1) coefficients of the noise added in the detection rows.
const PHIS: [f64; 2] = [0.3, 0.5];

/// One session's runs, with AR(1) noise of coefficient `phi` and log-SD `ar_sd` over the
/// whole stream multiplied in when `ar_sd > 0`.
fn session(cfg: &SimConfig, blocks: u32, ar: (f64, f64), seed: u64) -> Vec<BlockedRun> {
    session_cycles(cfg, blocks, 1, ar, seed)
}

/// [`session`] with `cycles` ABBA cycles in every block.
fn session_cycles(
    cfg: &SimConfig,
    blocks: u32,
    cycles: u32,
    (phi, ar_sd): (f64, f64),
    seed: u64,
) -> Vec<BlockedRun> {
    let e = simulate_change(cfg, &Change::none(), SimDesign::Abba, blocks, cycles, seed);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed_a121);
    let mut z = normal(&mut rng);
    e.runs
        .iter()
        .map(|&(variant, block, position, value)| {
            z = phi * z + (1.0 - phi * phi).sqrt() * normal(&mut rng);
            BlockedRun {
                variant,
                block,
                position,
                value: value * (ar_sd * z).exp(),
            }
        })
        .collect()
}

/// Whether the stream's lag-1 check (the warning blocked runs got before) fires on any
/// variant.
fn stream_fires(runs: &[BlockedRun]) -> bool {
    (0..2).any(|v| {
        let x: Vec<f64> = runs
            .iter()
            .filter(|r| r.variant == v)
            .map(|r| r.value)
            .collect();
        Sample::from_vec(x)
            .ok()
            .and_then(|s| iid_checks(&s).ok())
            .is_some_and(|c| c.autocorrelated)
    })
}

/// `cargo xtask autocorrelation-grid`.
///
/// # Errors
/// Never; the signature matches the other tasks.
pub fn run(args: &AutocorrGridArgs) -> Result<()> {
    let reps = args.reps;
    let config = WithinBlockConfig::default().with_screen(args.screen);
    if args.precision {
        return run_precision(args);
    }
    let se = 100.0 * (WITHIN_BLOCK_LEVEL * (1.0 - WITHIN_BLOCK_LEVEL) / f64::from(reps)).sqrt();
    println!(
        "# the autocorrelation warning of blocked runs, {reps} sessions per cell (seeds from 70,000)\n"
    );
    println!(
        "within-block check at one-sided p <= {WITHIN_BLOCK_LEVEL} (exact sign-flip test), contrasts (of pairs of blocks) beyond {} robust SDs of a run set to 0; nominal + 2 MC SE = {:.2}% at {reps} sessions; the stream's lag-1 check (r > 0.5 in either variant's runs, 50+ runs) beside it; AR(1) rows multiply every run by AR(1) noise of the coefficient named, with the profile's run-level SD, over the whole stream.\n",
        args.screen,
        100.0 * WITHIN_BLOCK_LEVEL + 2.0 * se,
    );
    if args.audit {
        return run_audit(args, &config);
    }

    if args.no_bursts {
        println!("The profiles without their bursts of slow runs (`--no-bursts`).\n");
    }
    println!("| profile | data | blocks | within-block check fires | stream lag-1 check fires |");
    println!("| --- | --- | --- | --- | --- |");
    let profiles: Vec<NoiseProfile> = match args.profile {
        Some(p) => vec![p],
        None => NoiseProfile::ALL.to_vec(),
    };
    for profile in profiles {
        let mut cfg = profile.config();
        if args.no_bursts {
            cfg.burst_start = 0.0;
        }
        let sd = cfg.sigma_w;
        let rows = [("A/A".to_string(), (0.0, 0.0))]
            .into_iter()
            .chain(PHIS.map(|phi| (format!("A/A + AR(1) {phi}"), (phi, sd))));
        for (what, ar) in rows {
            for blocks in [10, 30, 60] {
                let (mut within, mut stream) = (0u32, 0u32);
                for r in 0..reps {
                    let runs = session(&cfg, blocks, ar, 70_000 + u64::from(r));
                    within += u32::from(
                        within_block_dependence_with(&runs, &config).is_some_and(|d| d.dependent),
                    );
                    stream += u32::from(stream_fires(&runs));
                }
                let pct = |k: u32| 100.0 * f64::from(k) / f64::from(reps);
                println!(
                    "| {} | {what} | {blocks} | {:.1}% | {:.1}% |",
                    profile.as_str(),
                    pct(within),
                    pct(stream),
                );
            }
        }
    }
    Ok(())
}

/// `--audit`: the audit's A/A cases, each at 10, 30 and 60 blocks.
fn run_audit(args: &AutocorrGridArgs, config: &WithinBlockConfig) -> Result<()> {
    let reps = args.reps;
    println!(
        "The audit's A/A cases (issue 42): block log levels with SD 5%, the first run of a block 3% slower and the second 1%, a run after the other variant 0.5% faster; run noise normal 1% unless named; runs exchangeable inside their blocks after those.\n"
    );
    println!(
        "| case | blocks | within-block check fires | read (of sessions) | stream lag-1 check fires |"
    );
    println!("| --- | --- | --- | --- | --- |");
    for case in audit_cases() {
        for blocks in [10, 30, 60] {
            let (mut within, mut read, mut stream) = (0u32, 0u32, 0u32);
            for r in 0..reps {
                let runs = audit_session(&case, blocks, 70_000 + u64::from(r));
                let d = within_block_dependence_with(&runs, config);
                read += u32::from(d.is_some());
                within += u32::from(d.is_some_and(|d| d.dependent));
                stream += u32::from(stream_fires(&runs));
            }
            let pct = |k: u32| 100.0 * f64::from(k) / f64::from(reps);
            println!(
                "| {} | {blocks} | {:.1}% | {:.0}% | {:.1}% |",
                case.name,
                pct(within),
                pct(read),
                pct(stream),
            );
        }
    }
    Ok(())
}

/// The paired estimate of a session: the mean over blocks of (mean log of B's runs less
/// mean log of A's runs).
fn paired_estimate(runs: &[BlockedRun]) -> f64 {
    let blocks = runs.iter().map(|r| r.block + 1).max().unwrap_or(0) as usize;
    let mut sums = vec![[(0.0, 0u32); 2]; blocks];
    for r in runs {
        let s = &mut sums[r.block as usize][r.variant];
        s.0 += r.value.ln();
        s.1 += 1;
    }
    let d: Vec<f64> = sums
        .iter()
        .filter(|s| s[0].1 > 0 && s[1].1 > 0)
        .map(|s| s[1].0 / f64::from(s[1].1) - s[0].0 / f64::from(s[0].1))
        .collect();
    d.iter().sum::<f64>() / d.len() as f64
}

/// `--precision`: the variance of the paired estimate at 4 runs a block over that at 8
/// (30 blocks, A/A), by profile, with and without bursts, and with AR(1) noise of 0.5.
fn run_precision(args: &AutocorrGridArgs) -> Result<()> {
    let reps = args.reps;
    println!(
        "Whether a block's runs count for fewer than their number (what the warning said until session 7): the variance of the paired estimate (mean over 30 blocks of B's mean log less A's) with 4 runs a block over that with 8 (ABBA repeated), {reps} A/A sessions each; 2.0 when a block's runs are independent, 1.0 when the extra runs add nothing. Both variances from the same seeds.\n"
    );
    println!("| profile | noise | var(4 runs) / var(8 runs) |");
    println!("| --- | --- | --- |");
    let profiles: Vec<NoiseProfile> = match args.profile {
        Some(p) => vec![p],
        None => NoiseProfile::ALL.to_vec(),
    };
    let variance = |x: &[f64]| {
        let m = x.iter().sum::<f64>() / x.len() as f64;
        x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (x.len() as f64 - 1.0)
    };
    for profile in profiles {
        for (what, bursts, phi) in [
            ("as simulated", true, 0.0),
            ("without bursts", false, 0.0),
            ("without bursts, + AR(1) 0.5", false, 0.5),
        ] {
            let mut cfg = profile.config();
            if !bursts {
                cfg.burst_start = 0.0;
            }
            let ar = (phi, if phi > 0.0 { cfg.sigma_w } else { 0.0 });
            let mut est = [Vec::new(), Vec::new()];
            for r in 0..reps {
                for (k, cycles) in [1u32, 2].into_iter().enumerate() {
                    let seed = 70_000 + u64::from(r);
                    let runs = session_cycles(&cfg, 30, cycles, ar, seed);
                    est[k].push(paired_estimate(&runs));
                }
            }
            println!(
                "| {} | {what} | {:.2} |",
                profile.as_str(),
                variance(&est[0]) / variance(&est[1])
            );
        }
    }
    Ok(())
}
