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
}

/// The AR(1) coefficients of the noise added in the detection rows.
const PHIS: [f64; 2] = [0.3, 0.5];

/// One session's runs, with AR(1) noise of coefficient `phi` and log-SD `ar_sd` over the
/// whole stream multiplied in when `ar_sd > 0`.
fn session(cfg: &SimConfig, blocks: u32, (phi, ar_sd): (f64, f64), seed: u64) -> Vec<BlockedRun> {
    let e = simulate_change(cfg, &Change::none(), SimDesign::Abba, blocks, 1, seed);
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
    let se = 100.0 * (WITHIN_BLOCK_LEVEL * (1.0 - WITHIN_BLOCK_LEVEL) / f64::from(reps)).sqrt();
    println!(
        "# the autocorrelation warning of blocked runs, {reps} sessions per cell (seeds from 70,000)\n"
    );
    println!(
        "within-block check at one-sided p <= {WITHIN_BLOCK_LEVEL} (exact permutation test), blocks whose residuals span more than {} robust SDs left out; nominal + 2 MC SE = {:.2}% at {reps} sessions; the stream's lag-1 check (r > 0.5 in either variant's runs, 50+ runs) beside it; AR(1) rows multiply every run by AR(1) noise of the coefficient named, with the profile's run-level SD, over the whole stream.\n",
        args.screen,
        100.0 * WITHIN_BLOCK_LEVEL + 2.0 * se,
    );
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
