//! `cargo xtask carryover-grid`: the carryover cases of issue 42 (item 2) through
//! `analyze()`, with the hold of `analysis/carryover.rs` (`hold_direction`) in place: a
//! carryover that only `B` leaves behind, of either sign, and a symmetric one (every switch
//! of version costs 5%), each with `B` unchanged, at 6 to 60 blocks; then what the hold
//! costs on real shifts (B 2% slower at 8 to 30 blocks), with the claims it withheld beside
//! the claims left (their sum is the rate without the hold). Seeded (the sessions of
//! `audit-grid`, seeds from 50,000): the same flags print the same bytes.

use anyhow::Result;
use bench_lab::sim::{Change, NoiseProfile, analyze_change};
use bench_stats::Outcome;
use bench_stats::model::report::WarningCode;
use bench_stats::sim::SimConfig;

use crate::decision_grid::parse_profile;

/// Flags of `carryover-grid`.
#[derive(clap::Args, Debug)]
pub struct CarryoverGridArgs {
    /// Simulated sessions per cell.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// Only this noise profile (quiet, shared-vm, bursty, drift); by default every one.
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    profile: Option<NoiseProfile>,
    /// Skip the cost rows (2% shifts).
    #[arg(long)]
    no_cost: bool,
}

/// Outcomes of one cell.
#[derive(Debug, Default, Clone, Copy)]
struct Cell {
    n: u32,
    faster: u32,
    slower: u32,
    /// Claims the carryover hold turned into INCONCLUSIVE.
    withheld: u32,
    /// Sessions with a differential-carryover warning.
    warned: u32,
}

impl Cell {
    fn add(self, o: Cell) -> Cell {
        Cell {
            n: self.n + o.n,
            faster: self.faster + o.faster,
            slower: self.slower + o.slower,
            withheld: self.withheld + o.withheld,
            warned: self.warned + o.warned,
        }
    }
}

/// `reps` sessions of `cfg` with `change` through `analyze()` (seeds from 50,000, two
/// threads).
fn cell(cfg: &SimConfig, change: &Change, blocks: u32, reps: u32) -> Cell {
    let run = |range: std::ops::Range<u32>| {
        let mut c = Cell::default();
        for r in range {
            let seed = 50_000 + u64::from(r);
            let Some(a) = analyze_change(cfg, change, blocks, seed) else {
                continue;
            };
            let o = a.groups[0].comparisons[0].outcome;
            c.n += 1;
            c.faster += u32::from(o == Outcome::Faster);
            c.slower += u32::from(o == Outcome::Slower);
            let carry: Vec<_> = a
                .warnings
                .iter()
                .filter(|w| w.code == WarningCode::DifferentialCarryover)
                .collect();
            c.warned += u32::from(!carry.is_empty());
            c.withheld += u32::from(carry.iter().any(|w| w.message.ends_with("is not claimed")));
        }
        c
    };
    let half = reps / 2;
    std::thread::scope(|s| {
        let h = s.spawn(|| run(0..half));
        let y = run(half..reps);
        h.join().expect("thread").add(y)
    })
}

/// A carryover case: its name and how it changes a profile's machine.
type Case = (&'static str, fn(SimConfig) -> SimConfig);

fn pct(k: u32, n: u32) -> f64 {
    100.0 * f64::from(k) / f64::from(n.max(1))
}

/// `cargo xtask carryover-grid`.
///
/// # Errors
/// Never; the signature matches the other tasks.
pub fn run(args: &CarryoverGridArgs) -> Result<()> {
    let reps = args.reps;
    let profiles: Vec<NoiseProfile> = match args.profile {
        Some(p) => vec![p],
        None => NoiseProfile::ALL.to_vec(),
    };
    println!(
        "# carryover through analyze(), {reps} sessions per cell (seeds from 50,000), alpha 0.05; B unchanged in the carryover rows\n"
    );
    println!(
        "withheld: FASTER/SLOWER claims the carryover hold made INCONCLUSIVE (the rate without the hold is the claim's column plus this); warned: a differential-carryover warning.\n"
    );
    let cases: [Case; 3] = [
        ("runs after B 5% slower (steady state B 5% slower)", |c| {
            c.with_after_b(0.05)
        }),
        ("runs after B 5% faster (steady state B 5% faster)", |c| {
            c.with_after_b(-0.05)
        }),
        ("every switch of version costs 5% (symmetric)", |c| {
            c.with_carryover(-0.05)
        }),
    ];
    println!("| carryover | profile | blocks | FASTER | SLOWER | withheld | warned |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (name, make) in cases {
        for &profile in &profiles {
            let cfg = make(profile.config());
            for blocks in [6, 8, 12, 20, 30, 60] {
                let c = cell(&cfg, &Change::none(), blocks, reps);
                println!(
                    "| {name} | {} | {blocks} | {:.1}% | {:.1}% | {:.1}% | {:.1}% |",
                    profile.as_str(),
                    pct(c.faster, c.n),
                    pct(c.slower, c.n),
                    pct(c.withheld, c.n),
                    pct(c.warned, c.n),
                );
            }
        }
    }
    if args.no_cost {
        return Ok(());
    }
    println!("\n## the cost: B 2% slower (a shift), no carryover beyond the profile's\n");
    println!("| profile | blocks | SLOWER | withheld | SLOWER without the hold | FASTER |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for &profile in &profiles {
        for blocks in [8, 12, 20, 30] {
            let c = cell(&profile.config(), &Change::shift(1.02), blocks, reps);
            println!(
                "| {} | {blocks} | {:.1}% | {:.1}% | {:.1}% | {:.1}% |",
                profile.as_str(),
                pct(c.slower, c.n),
                pct(c.withheld, c.n),
                pct(c.slower + c.withheld, c.n),
                pct(c.faster, c.n),
            );
        }
    }
    Ok(())
}
