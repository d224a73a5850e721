//! `cargo xtask equivalence-disturbed`: EQUIVALENT on a machine that disturbs some runs
//! (issue 42, item 4), measured.
//!
//! On the simulator (seeded), for every noise profile and the disturbed machine
//! ([`bench_lab::sim::disturbed_machine`]: quiet, with 8% of runs of either variant
//! 20-50% slower):
//!
//! - `--parts`: A/A at each of `--blocks`: how far each part's `1 - 2 alpha` interval
//!   reaches from no change (the median over sessions of `max(1 - lo, hi - 1)`), how often
//!   it lies inside ±1% and inside the margin EQUIVALENT holds it to, and how often the
//!   default calls the session EQUIVALENT;
//! - `--changes`: P(EQUIVALENT) of the default on no change, shifts of ±2% and the real
//!   tail regressions (10% of B's runs 30% slower, 30% of B's runs 20% slower), which must
//!   stay at most alpha;
//! - `--sequential N`: N A/A sessions of `--until decided` (at most 200 blocks) per
//!   profile: how they stop and after how many blocks.

use anyhow::Result;
use bench_lab::sim::{Change, NoiseProfile, SimConfig, analyze_change, disturbed_machine};
use bench_stats::Outcome;
use bench_stats::paired::shape::{PartStatistic, QuantileShift};

use crate::decision_grid::until_decided;

const MARGIN: f64 = 0.01;

/// Flags of `equivalence-disturbed`.
#[derive(clap::Args, Debug)]
pub struct EquivalenceDisturbedArgs {
    /// Simulated sessions per cell.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// Blocks per session, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [30u32, 60, 150])]
    blocks: Vec<u32>,
    /// Print the per-part table of A/A sessions.
    #[arg(long)]
    parts: bool,
    /// Print P(EQUIVALENT) on no change, shifts and tail regressions.
    #[arg(long)]
    changes: bool,
    /// Sessions of `--until decided` A/A per profile (0: none).
    #[arg(long, default_value_t = 0)]
    sequential: u32,
    /// Only the profile of this name (quiet, shared-vm, bursty, drift, disturbed).
    #[arg(long)]
    profile: Option<String>,
}

/// Every profile of the tables: the named ones, then the disturbed machine.
fn profiles(only: Option<&str>) -> Vec<(&'static str, SimConfig)> {
    let mut all: Vec<(&'static str, SimConfig)> = NoiseProfile::ALL
        .iter()
        .map(|p| (p.as_str(), p.config()))
        .collect();
    all.push(("disturbed 8%", disturbed_machine()));
    all.into_iter()
        .filter(|(name, _)| only.is_none_or(|o| name.starts_with(o)))
        .collect()
}

/// The column of part `q`: p10, p50, p90, mean.
fn column(q: &QuantileShift) -> usize {
    match q.statistic {
        PartStatistic::Mean => 3,
        PartStatistic::Quantile if q.quantile < 0.3 => 0,
        PartStatistic::Quantile if q.quantile < 0.7 => 1,
        PartStatistic::Quantile => 2,
    }
}

/// How far `q`'s equivalence interval reaches from no change (infinite without one).
fn reach(q: &QuantileShift) -> f64 {
    q.equivalence_interval
        .map_or(f64::INFINITY, |[lo, hi]| (1.0 - lo).max(hi - 1.0))
}

/// One session's analysis: the outcome and each part's reach and held margin.
struct Session {
    outcome: Outcome,
    /// Each part's (p10, p50, p90, mean run) and the mean of all runs' reach (the mean
    /// run's, when it is a part).
    reach: [f64; 5],
    own: [f64; 4],
    /// The fast and the typical run hold their margins, and no part moved.
    others: bool,
    /// The slow runs' own interval inside their margin.
    slow_own: bool,
    blocking: Vec<String>,
}

impl Session {
    /// EQUIVALENT with the mean run held to `mean` margins and the slow runs, when their
    /// own interval is wider than theirs, held by the mean of all runs inside `slow`
    /// margins: `(2, 2)` is the rule now, `(1, 2)` the mean run held to the margin itself.
    fn with_factors(&self, mean: f64, slow: f64) -> bool {
        self.others
            && (self.reach[3].is_nan() || self.reach[3] <= mean * MARGIN + 1e-12)
            && (self.slow_own || self.reach[4] <= slow * MARGIN + 1e-12)
    }
}

fn session(cfg: &SimConfig, change: &Change, blocks: u32, seed: u64) -> Option<Session> {
    let a = analyze_change(cfg, change, blocks, seed)?;
    let c = &a.groups[0].comparisons[0];
    let s = c.distribution.as_ref()?;
    // The mean run's reach is NaN when it is not a part (unequal counts).
    let (mut r, mut own) = (
        [f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::NAN, 0.0],
        [MARGIN; 4],
    );
    let (mut others, mut slow_own) = (true, true);
    for q in s.parts() {
        let k = column(q);
        r[k] = reach(q);
        own[k] = bench_stats::analysis::part_margin(q, MARGIN);
        let moved = matches!(q.part.as_str(), "slower" | "faster");
        let inside = r[k] <= own[k] + 1e-12;
        match k {
            2 => {
                others &= !moved;
                slow_own = inside;
            }
            3 => others &= !moved,
            _ => others &= !moved && inside,
        }
    }
    r[4] = s
        .mean_of_all_runs()
        .and_then(|m| m.equivalence_interval)
        .map_or(f64::INFINITY, |[lo, hi]| (1.0 - lo).max(hi - 1.0));
    Some(Session {
        outcome: c.outcome,
        reach: r,
        own,
        others,
        slow_own,
        blocking: c
            .decision
            .as_ref()
            .map(|d| d.blocking.clone())
            .unwrap_or_default(),
    })
}

/// `reps` sessions (seeds from 40,000), on two threads.
fn sessions(cfg: &SimConfig, change: &Change, blocks: u32, reps: u32) -> Vec<Session> {
    let half = reps / 2;
    std::thread::scope(|s| {
        let h = s.spawn(|| {
            (0..half)
                .filter_map(|r| session(cfg, change, blocks, 40_000 + u64::from(r)))
                .collect::<Vec<_>>()
        });
        let mut b: Vec<Session> = (half..reps)
            .filter_map(|r| session(cfg, change, blocks, 40_000 + u64::from(r)))
            .collect();
        let mut a = h.join().expect("thread");
        a.append(&mut b);
        a
    })
}

fn pct(k: usize, n: usize) -> f64 {
    100.0 * k as f64 / n.max(1) as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn parts_table(args: &EquivalenceDisturbedArgs) {
    println!(
        "A/A, {} sessions per row: each part's 90% interval, its median reach from 1 (max(1 - lo, hi - 1)) and the share inside ±1% / inside the margin EQUIVALENT holds it to (±1% typical run, ±2% mean run and mean of all runs, ±3% tails); P(EQUIVALENT) now and with the mean run held to ±1% (the slow runs held by the mean at ±2%), and the parts that blocked it",
        args.reps
    );
    println!();
    println!(
        "| profile | blocks | EQUIVALENT (mean run ±1%) | p10 | p50 | p90 | mean run | mean of all runs | blocked by p10/p50/p90/mean |"
    );
    println!("| --- | ---: | ---: | --- | --- | --- | --- | --- | --- |");
    for (name, cfg) in profiles(args.profile.as_deref()) {
        for &blocks in &args.blocks {
            let v = sessions(&cfg, &Change::none(), blocks, args.reps);
            let n = v.len();
            let eq = v
                .iter()
                .filter(|s| s.outcome == Outcome::Equivalent)
                .count();
            let before = v.iter().filter(|s| s.with_factors(1.0, 2.0)).count();
            let cell = |k: usize| {
                let m = median(v.iter().map(|s| s.reach[k]).collect());
                let own = |s: &Session| if k < 4 { s.own[k] } else { 2.0 * MARGIN };
                let in1 = v.iter().filter(|s| s.reach[k] <= MARGIN + 1e-12).count();
                let inside = v.iter().filter(|s| s.reach[k] <= own(s) + 1e-12).count();
                format!(
                    "±{:.2}%, {:.0}%/{:.0}%",
                    100.0 * m,
                    pct(in1, n),
                    pct(inside, n)
                )
            };
            let blocked = |key: &str| {
                v.iter()
                    .filter(|s| s.blocking.iter().any(|b| b == key))
                    .count()
            };
            println!(
                "| {name} | {blocks} | {:.1}% ({:.1}%) | {} | {} | {} | {} | {} | {:.0}/{:.0}/{:.0}/{:.0}% |",
                pct(eq, n),
                pct(before, n),
                cell(0),
                cell(1),
                cell(2),
                cell(3),
                cell(4),
                pct(blocked("fast-runs"), n),
                pct(blocked("typical-run"), n),
                pct(blocked("slow-runs"), n),
                pct(blocked("mean-run"), n),
            );
        }
    }
    println!();
}

/// The changes EQUIVALENT must hold at most alpha on, and no change.
fn changes() -> Vec<Change> {
    vec![
        Change::none(),
        Change::shift(1.02),
        Change::shift(0.98),
        Change::share(0.1, (1.3, 1.3)),
        Change::share(0.3, (1.2, 1.2)),
    ]
}

fn changes_table(args: &EquivalenceDisturbedArgs) {
    println!(
        "P(EQUIVALENT) at ±1%, now (with the mean run held to ±1%, the slow runs held by the mean at ±2%), and with the mean run held to ±2.5% or ±3% instead of ±2%, {} sessions per cell; at most alpha = 5% on every change but no change",
        args.reps
    );
    println!();
    let mut head = "| profile | change |".to_owned();
    let mut rule = "| --- | --- |".to_owned();
    for b in &args.blocks {
        head.push_str(&format!(" {b} blocks: now (mean ±1%) | ±2.5% / ±3% |"));
        rule.push_str(" ---: | ---: |");
    }
    println!("{head}");
    println!("{rule}");
    for (name, cfg) in profiles(args.profile.as_deref()) {
        for change in changes() {
            let mut row = format!("| {name} | {} |", change.name);
            for &blocks in &args.blocks {
                let v = sessions(&cfg, &change, blocks, args.reps);
                let eq = v
                    .iter()
                    .filter(|s| s.outcome == Outcome::Equivalent)
                    .count();
                let before = v.iter().filter(|s| s.with_factors(1.0, 2.0)).count();
                let at = |f: f64| pct(v.iter().filter(|s| s.with_factors(f, f)).count(), v.len());
                row.push_str(&format!(
                    " {:.1}% ({:.1}%) | {:.1}% / {:.1}% |",
                    pct(eq, v.len()),
                    pct(before, v.len()),
                    at(2.5),
                    at(3.0)
                ));
            }
            println!("{row}");
        }
    }
    println!();
}

fn sequential_table(args: &EquivalenceDisturbedArgs) {
    let max = 200;
    println!(
        "A/A under --until decided (at most {max} blocks), {} sessions per profile",
        args.sequential
    );
    println!();
    println!(
        "| profile | EQUIVALENT | FASTER/SLOWER/MIXED | INCONCLUSIVE | ran to {max} | median blocks | median blocks to EQUIVALENT |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (name, cfg) in profiles(args.profile.as_deref()) {
        let reps = args.sequential;
        let half = reps / 2;
        let run = |r: u32| until_decided(&cfg, &Change::none(), max, 60_000 + u64::from(r));
        let v: Vec<(Outcome, u32)> = std::thread::scope(|s| {
            let h = s.spawn(|| (0..half).map(run).collect::<Vec<_>>());
            let mut b: Vec<(Outcome, u32)> = (half..reps).map(run).collect();
            let mut a = h.join().expect("thread");
            a.append(&mut b);
            a
        });
        let n = v.len();
        let count = |o: Outcome| v.iter().filter(|r| r.0 == o).count();
        let claims = count(Outcome::Faster) + count(Outcome::Slower) + count(Outcome::Mixed);
        let full = v.iter().filter(|r| r.1 >= max).count();
        let to_eq: Vec<f64> = v
            .iter()
            .filter(|r| r.0 == Outcome::Equivalent)
            .map(|r| f64::from(r.1))
            .collect();
        println!(
            "| {name} | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.0} | {} |",
            pct(count(Outcome::Equivalent), n),
            pct(claims, n),
            pct(count(Outcome::Inconclusive), n),
            pct(full, n),
            median(v.iter().map(|r| f64::from(r.1)).collect()),
            if to_eq.is_empty() {
                "-".to_owned()
            } else {
                format!("{:.0}", median(to_eq))
            }
        );
    }
    println!();
}

/// Runs the tables asked for.
///
/// # Errors
/// Never; the signature matches the other tasks.
pub fn run(args: &EquivalenceDisturbedArgs) -> Result<()> {
    if args.parts {
        parts_table(args);
    }
    if args.changes {
        changes_table(args);
    }
    if args.sequential > 0 {
        sequential_table(args);
    }
    Ok(())
}
