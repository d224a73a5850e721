//! Unequal replicate counts (a CSV with `a` runs of A and `b` of B in every block, or the
//! decision grid's oracle, which drops the disturbed runs): how often the default claims a
//! change through `analyze()`, and how often each part's interval covers its true ratio
//! (`bench_lab::sim::truth`), for no change, a 2% shift and 30% of B's runs 20% slower, on
//! every noise profile. The A/A cell at 10 blocks is the integration test
//! `unequal_replicate_counts_hold_alpha_and_check_the_quantiles_alone` (the same seeds,
//! 20,000 on).
//!
//! `cargo run -p bench-lab --example unequal_counts -- [SESSIONS] [BLOCKS] [DESIGNS]`
//! (default 400 sessions a cell, 10 blocks, designs `3+1,1+3`).

use bench_lab::sim::{Change, NoiseProfile, SimDesign, simulate_change, truth};
use bench_stats::paired::shape::{ShapeConfig, shape_analysis};
use bench_stats::{AnalysisConfig, Outcome, analyze};

/// Sessions, claims (FASTER, SLOWER or MIXED), SLOWER, and per part (p10, p50, p90, mean)
/// intervals covering the truth and parts present.
#[derive(Default, Clone, Copy)]
struct Cell {
    n: u32,
    claims: u32,
    slower: u32,
    covers: [u32; 4],
    present: [u32; 4],
}

fn cell(profile: NoiseProfile, design: SimDesign, change: &Change, blocks: u32, reps: u32) -> Cell {
    let cfg = profile.config();
    let t = truth(&cfg, change, 400, blocks.max(25), 77);
    let truth4 = [t.p10, t.median, t.p90, t.mean];
    let run = |range: std::ops::Range<u32>| {
        let mut c = Cell::default();
        for r in range {
            let seed = 20_000 + u64::from(r);
            let e = simulate_change(&cfg, change, design, blocks, 1, seed);
            let config = AnalysisConfig {
                seed,
                ..AnalysisConfig::default()
            };
            let Ok(a) = analyze(&e.dataset, &config) else {
                continue;
            };
            let o = a.groups[0].comparisons[0].outcome;
            c.n += 1;
            c.claims += u32::from(matches!(
                o,
                Outcome::Faster | Outcome::Slower | Outcome::Mixed
            ));
            c.slower += u32::from(o == Outcome::Slower);
            let mut x: Vec<Vec<f64>> = vec![Vec::new(); blocks as usize];
            let mut y = x.clone();
            for &(v, blk, _, value) in &e.runs {
                let side = if v == 0 { &mut x } else { &mut y };
                side[blk as usize].push(value);
            }
            let shape_config = ShapeConfig {
                seed,
                ..ShapeConfig::default()
            };
            if let Ok(s) = shape_analysis(&x, &y, &shape_config) {
                for (j, p) in s
                    .quantiles
                    .iter()
                    .chain(s.mean.as_ref())
                    .enumerate()
                    .take(4)
                {
                    let j = if p.quantile.is_nan() { 3 } else { j };
                    c.present[j] += 1;
                    if p.interval
                        .is_some_and(|[lo, hi]| lo <= truth4[j] && truth4[j] <= hi)
                    {
                        c.covers[j] += 1;
                    }
                }
            }
        }
        c
    };
    let half = reps / 2;
    let (a, b) = std::thread::scope(|s| {
        let h = s.spawn(|| run(0..half));
        let b = run(half..reps);
        (h.join().expect("thread"), b)
    });
    let mut c = a;
    c.n += b.n;
    c.claims += b.claims;
    c.slower += b.slower;
    for j in 0..4 {
        c.covers[j] += b.covers[j];
        c.present[j] += b.present[j];
    }
    c
}

fn pct(k: u32, n: u32) -> String {
    if n == 0 {
        "-".to_owned()
    } else {
        format!("{:.1}%", 100.0 * f64::from(k) / f64::from(n))
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reps: u32 = args.first().and_then(|s| s.parse().ok()).unwrap_or(400);
    let blocks: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let designs: Vec<(u32, u32)> = args
        .get(2)
        .map_or("3+1,1+3", String::as_str)
        .split(',')
        .filter_map(|d| {
            let (a, b) = d.split_once('+')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .collect();
    println!("# unequal replicate counts, {reps} sessions per cell, {blocks} blocks, alpha 0.05");
    println!(
        "\n| profile | A+B | change | claims | SLOWER | p10 covered | p50 covered | p90 covered | mean covered |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let changes = [
        ("no change", Change::none()),
        ("2% shift", Change::shift(1.02)),
        ("30% of B's runs 20% slower", Change::share(0.3, (1.2, 1.2))),
    ];
    for profile in NoiseProfile::ALL {
        for &(a, b) in &designs {
            for (name, change) in &changes {
                let c = cell(profile, SimDesign::Unequal { a, b }, change, blocks, reps);
                println!(
                    "| {} | {a}+{b} | {name} | {} | {} | {} | {} | {} | {} |",
                    profile.as_str(),
                    pct(c.claims, c.n),
                    pct(c.slower, c.n),
                    pct(c.covers[0], c.present[0]),
                    pct(c.covers[1], c.present[1]),
                    pct(c.covers[2], c.present[2]),
                    pct(c.covers[3], c.present[3]),
                );
            }
        }
    }
}
