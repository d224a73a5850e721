//! `cargo xtask equivalence-grid`: which parts EQUIVALENT should require, calibrated.
//!
//! On the simulator (`bench_stats::sim`, seeded) at the default 20 ABBA blocks, for each
//! noise profile and for a stable metric (CPU time: no bursts, 0.4 % per-run noise), the
//! share of experiments called EQUIVALENT (±1 % margin) under four rules read off the
//! same analyses:
//!
//! - `all parts`: every part (p10, p50, p90, mean run) inside ±margin (abba before issue
//!   37);
//! - `tails x2`: the typical run inside ±margin, the mean run inside ±2 margin
//!   (`bench_stats::analysis::ALL_RUNS_MARGIN_FACTOR`, the default since issue 42), each
//!   tail inside ±2 margin;
//! - `tails x3` (the default now): the same with each tail inside ±3 margin
//!   (`bench_stats::analysis::TAIL_MARGIN_FACTOR`);
//! - `tails free`: the typical run inside ±margin, the mean run inside ±2 margin, the tails
//!   not required;
//!
//! for no change, a shift of the margin and of twice it, and tail regressions; and how
//! often an unchanged benchmark ends in a claim resting on a tail alone (`SLOWER (slow
//! runs)`). With `--real N`, N A/A (and N 2 %) experiments of `abba compare` on this
//! machine: `sha256sum` of an 8 MB file against itself (and against a file 2 % larger),
//! on CPU time and on wall time. A research driver (its own file, moved with the others).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, ensure};
use bench_lab::sim::{Change, analyze_change};
use bench_stats::Outcome;
use bench_stats::paired::shape::{PartStatistic, QuantileShift, ShapeAnalysis};
use bench_stats::sim::{NoiseProfile, SimConfig};

const MARGIN: f64 = 0.01;

/// Flags of `equivalence-grid`.
#[derive(clap::Args, Debug)]
pub struct EquivalenceGridArgs {
    /// Simulated sessions per cell (0: the real runs alone).
    #[arg(long, default_value_t = 200)]
    reps: u32,
    /// Blocks per simulated session (the CLI's default is 20).
    #[arg(long, default_value_t = 20)]
    blocks: u32,
    /// Also run this many real A/A and 2 % experiments through `abba compare` per metric.
    #[arg(long, default_value_t = 0)]
    real: u32,
    /// The abba binary of the real experiments (default: built in release mode).
    #[arg(long, value_name = "PATH")]
    abba: Option<PathBuf>,
}

/// A stable metric: CPU time of a CPU-bound command (0.4 % per-run noise, no bursts or
/// pre-emptions, 0.2 % between sessions).
fn stable() -> SimConfig {
    SimConfig {
        sigma_w: 0.004,
        sigma_b: 0.002,
        burst_start: 0.0,
        spike_prob: 0.0,
        carryover: 0.0,
        first_run: (0.0, 0.001),
        ..NoiseProfile::Quiet.config()
    }
}

fn is_tail(q: &QuantileShift) -> bool {
    q.statistic == PartStatistic::Quantile && (q.quantile - 0.5).abs() > 1e-9
}

fn inside(q: &QuantileShift, m: f64) -> bool {
    q.equivalence_interval
        .is_some_and(|[lo, hi]| lo >= 1.0 - m - 1e-12 && hi <= 1.0 + m + 1e-12)
}

/// The rules (every part at the margin; then the typical run at the margin, the mean run at
/// its own, `part_margin`, and the tails at 2 and 3 times the margin, and free), on one
/// shape check with no part moved beyond the margin.
fn rules(s: &ShapeAnalysis) -> [bool; RULES] {
    let moved = s
        .parts()
        .any(|q| matches!(q.part.as_str(), "slower" | "faster"));
    if moved {
        return [false; RULES];
    }
    let core = s
        .parts()
        .filter(|q| !is_tail(q))
        .all(|q| inside(q, bench_stats::analysis::part_margin(q, MARGIN)));
    let tails = |k: f64| {
        s.parts()
            .filter(|q| is_tail(q))
            .all(|q| inside(q, k * MARGIN))
    };
    [
        s.parts().all(|q| inside(q, MARGIN)),
        core && tails(2.0),
        core && tails(3.0),
        core,
    ]
}

const RULES: usize = 4;

#[derive(Default, Clone, Copy)]
struct Tally {
    n: u32,
    rules: [u32; RULES],
    equivalent: u32,
    claims: u32,
    tail_claims: u32,
    /// Sessions in which each part stood in the way of the default's EQUIVALENT (p10,
    /// p50, p90, mean run).
    blocked: [u32; 4],
}

fn tally(cfg: &SimConfig, change: &Change, blocks: u32, reps: u32) -> Tally {
    let run = |range: std::ops::Range<u32>| {
        let mut t = Tally::default();
        for r in range {
            let seed = 20_000 + u64::from(r);
            let Some(a) = analyze_change(cfg, change, blocks, seed) else {
                continue;
            };
            let c = &a.groups[0].comparisons[0];
            t.n += 1;
            if let Some(s) = &c.distribution {
                for (k, hit) in rules(s).into_iter().enumerate() {
                    t.rules[k] += u32::from(hit);
                }
            }
            t.equivalent += u32::from(c.outcome == Outcome::Equivalent);
            if let Some(d) = &c.decision {
                for b in &d.blocking {
                    let k = match b.as_str() {
                        "fast-runs" => 0,
                        "typical-run" => 1,
                        "slow-runs" => 2,
                        _ => 3,
                    };
                    t.blocked[k] += 1;
                }
            }
            let claim = matches!(
                c.outcome,
                Outcome::Faster | Outcome::Slower | Outcome::Mixed
            );
            t.claims += u32::from(claim);
            let tail = c
                .decision
                .as_ref()
                .and_then(|d| d.part.as_deref())
                .is_some_and(|p| p == "fast-runs" || p == "slow-runs");
            t.tail_claims += u32::from(claim && tail && c.outcome != Outcome::Mixed);
        }
        t
    };
    let half = reps / 2;
    let (a, b) = std::thread::scope(|s| {
        let h = s.spawn(|| run(0..half));
        let b = run(half..reps);
        (h.join().expect("thread"), b)
    });
    Tally {
        n: a.n + b.n,
        rules: [0, 1, 2, 3].map(|k| a.rules[k] + b.rules[k]),
        equivalent: a.equivalent + b.equivalent,
        claims: a.claims + b.claims,
        tail_claims: a.tail_claims + b.tail_claims,
        blocked: [0, 1, 2, 3].map(|k| a.blocked[k] + b.blocked[k]),
    }
}

fn pct(k: u32, n: u32) -> f64 {
    100.0 * f64::from(k) / f64::from(n.max(1))
}

/// Runs the grid and prints its Markdown tables.
///
/// # Errors
/// When a real experiment cannot be run or its JSON read.
pub fn run(args: &EquivalenceGridArgs) -> Result<()> {
    if args.reps == 0 {
        return real(args);
    }
    println!(
        "P(EQUIVALENT) at ±1% under four rules, {} sessions per cell, {} ABBA blocks (2+2 runs); claims: FASTER/SLOWER/MIXED, tail-only: resting on the fast or slow runs alone",
        args.reps, args.blocks
    );
    println!();
    println!(
        "| noise | change | all parts ±1% | tails ±2% | tails ±3% (default) | tails free | claims | tail-only claims | blocked by p10/p50/p90/mean |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    let mut profiles: Vec<(&str, SimConfig)> = vec![("stable (CPU time)", stable())];
    profiles.extend(NoiseProfile::ALL.iter().map(|p| (p.as_str(), p.config())));
    let changes = [
        Change::none(),
        Change::shift(1.01),
        Change::shift(1.02),
        Change::share(0.1, (1.3, 1.3)),
        Change::share(0.2, (1.1, 1.1)),
    ];
    for (name, cfg) in &profiles {
        for change in &changes {
            let t = tally(cfg, change, args.blocks, args.reps);
            println!(
                "| {name} | {} | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.0}/{:.0}/{:.0}/{:.0}% |",
                change.name,
                pct(t.rules[0], t.n),
                pct(t.rules[1], t.n),
                pct(t.rules[2], t.n),
                pct(t.rules[3], t.n),
                pct(t.claims, t.n),
                pct(t.tail_claims, t.n),
                pct(t.blocked[0], t.n),
                pct(t.blocked[1], t.n),
                pct(t.blocked[2], t.n),
                pct(t.blocked[3], t.n)
            );
            // The default's own outcome lies between the middle rule (tails at 3x the
            // margin, which it always accepts) and the core rule: since issue 42 the slow
            // runs may also be held by the mean of all runs (`ALL_RUNS_MARGIN_FACTOR`).
            debug_assert!(t.rules[2] <= t.equivalent && t.equivalent <= t.rules[3]);
        }
    }
    if args.real > 0 {
        real(args)?;
    }
    Ok(())
}

/// A file of `bytes` seeded pseudo-random bytes.
fn write_file(path: &Path, bytes: usize) -> Result<()> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let data: Vec<u8> = (0..bytes)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    std::fs::write(path, data).with_context(|| format!("writing {}", path.display()))
}

/// One real experiment: its outcome and deciding part.
fn compare(abba: &Path, metric: &str, a: &str, b: &str, seed: u32) -> Result<(String, String)> {
    let out = Command::new(abba)
        .args([
            "compare", "--json", "--quiet", "--blocks", "20", "--metric", metric,
        ])
        .args(["--seed", &seed.to_string(), "-n", "A", a, "-n", "B", b])
        .output()
        .context("running abba compare")?;
    ensure!(
        out.status.success(),
        "abba compare failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).context("abba's JSON")?;
    let c = &doc["groups"][0]["comparisons"][0];
    let outcome = c["outcome"].as_str().unwrap_or("?").to_owned();
    let part = c["decision"]["part"].as_str().unwrap_or("-").to_owned();
    Ok((outcome, part))
}

fn real(args: &EquivalenceGridArgs) -> Result<()> {
    let root = crate::run::workspace_root();
    let abba = match &args.abba {
        Some(p) => p.clone(),
        None => crate::run::build_abba(&root)?,
    };
    let dir = std::env::temp_dir().join(format!("abba-equivalence-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let (small, large) = (dir.join("a.bin"), dir.join("b.bin"));
    write_file(&small, 8 << 20)?;
    write_file(&large, (8 << 20) * 102 / 100)?;
    let cmd = |p: &Path| format!("sha256sum {}", p.display());
    println!();
    println!(
        "Real runs on this machine: abba compare --blocks 20 of `sha256sum` of an 8 MB file, {} experiments per row",
        args.real
    );
    println!();
    println!(
        "| metric | change | EQUIVALENT | FASTER/SLOWER/MIXED | tail-only claims | INCONCLUSIVE |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    for metric in ["cpu", "wall"] {
        for (change, b) in [("none (A/A)", &small), ("+2% work", &large)] {
            let (mut eq, mut claims, mut tails, mut inc) = (0, 0, 0, 0);
            for k in 0..args.real {
                let (o, part) = compare(&abba, metric, &cmd(&small), &cmd(b), k + 1)?;
                match o.as_str() {
                    "equivalent" => eq += 1,
                    "inconclusive" => inc += 1,
                    _ => {
                        claims += 1;
                        tails += u32::from(part == "fast-runs" || part == "slow-runs");
                    }
                }
            }
            println!(
                "| {metric} | {change} | {eq}/{n} | {claims}/{n} | {tails}/{n} | {inc}/{n} |",
                n = args.real
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
