//! One cell of the part-coverage table (`bench-lab part-coverage`: the same sessions,
//! seeds from 10,000, 30 ABBA blocks, the same session truth) taken apart for one part:
//! the estimate's bias and Monte Carlo SD against the session's truth, the standard error
//! the interval implies (its half-width over the normal quantile at its level), and where
//! the misses fall, split by whether the blocks were centered on their neighbours' centre
//! (the estimate differs from the uncentered pools' Harrell-Davis difference)
//! (`docs/estimator-grid.md`, "The fast runs' interval").
//!
//! `cargo run --release -p bench-lab --example part_coverage_misses -- [SESSIONS] [CHANGE]
//! [PROFILE] [PART]`: CHANGE 0 "B's fast mode 4% faster, 55% of its runs 15% slower", 1
//! "60% of B's runs 6-14% slower", 2 the same with 45%, 3 a 2% shift, 4 no change;
//! PROFILE 0-3 in the order quiet, shared-vm, bursty, drift; PART 0-2 for p10, p50, p90
//! (defaults: 400 sessions of change 0 on quiet, p10).

use bench_lab::sim::{
    Change, NoiseProfile, SESSION_REPLICAS, SimDesign, session_truth, simulate_change,
};
use bench_stats::paired::shape::{ShapeConfig, harrell_davis_weights, shape_analysis};

/// One session's part: estimate and truth (logs), the interval's half-widths below and
/// above (logs), its normal quantile and whether the blocks were centered.
struct Row {
    estimate: f64,
    truth: f64,
    down: f64,
    up: f64,
    z: f64,
    centered: bool,
}

fn summary(label: &str, rows: &[&Row]) {
    let n = rows.len() as f64;
    if rows.len() < 2 {
        println!("  {label}: {} sessions", rows.len());
        return;
    }
    let err: Vec<f64> = rows.iter().map(|r| r.estimate - r.truth).collect();
    let bias = err.iter().sum::<f64>() / n;
    let sd = (err.iter().map(|e| (e - bias).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let se = (rows.iter().map(|r| (r.down / r.z).powi(2)).sum::<f64>() / n).sqrt();
    let below = rows
        .iter()
        .filter(|r| r.truth < r.estimate - r.down)
        .count();
    let above = rows.iter().filter(|r| r.truth > r.estimate + r.up).count();
    println!(
        "  {label}: {} sessions, bias {bias:+.5}, SD of the error {sd:.5}, implied SE (rms) {se:.5}, truth below the interval {below}, above {above}, covered {:.1}%",
        rows.len(),
        100.0 * (1.0 - (below + above) as f64 / n)
    );
}

fn main() {
    let arg = |i: usize, default: usize| {
        std::env::args()
            .nth(i)
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let (reps, which, profile, part) = (arg(1, 400), arg(2, 0), arg(3, 0), arg(4, 0).min(2));
    let changes = [
        Change::fast_and_slow(0.96, 0.55, 1.15),
        Change::share(0.6, (1.06, 1.14)),
        Change::fast_and_slow(0.96, 0.45, 1.15),
        Change::shift(1.02),
        Change::none(),
    ];
    let change = &changes[which.min(changes.len() - 1)];
    let profile = NoiseProfile::ALL[profile.min(NoiseProfile::ALL.len() - 1)];
    let cfg = profile.config();
    let q = [0.1, 0.5, 0.9][part];
    let blocks = 30u32;
    let mut rows = Vec::new();
    let mut significant = 0u32;
    for r in 0..reps as u64 {
        let seed = 10_000 + r;
        let e = simulate_change(&cfg, change, SimDesign::Abba, blocks, 1, seed);
        let mut a = vec![Vec::new(); blocks as usize];
        let mut b = vec![Vec::new(); blocks as usize];
        for &(v, blk, _, x) in &e.runs {
            let variant = if v == 0 { &mut a } else { &mut b };
            variant[blk as usize].push(x);
        }
        let config = ShapeConfig {
            seed,
            ..ShapeConfig::default()
        };
        let Ok(s) = shape_analysis(&a, &b, &config) else {
            continue;
        };
        let st = session_truth(&cfg, change, &e, SESSION_REPLICAS, seed);
        let Some(p) = s.parts().nth(part) else {
            continue;
        };
        let Some([lo, hi]) = p.interval else {
            continue;
        };
        let estimate = p.ratio.ln();
        let pool = |blocks: &[Vec<f64>]| {
            let mut v: Vec<f64> = blocks.iter().flatten().map(|x| x.ln()).collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let (pa, pb) = (pool(&a), pool(&b));
        let w = harrell_davis_weights(pa.len(), q);
        let uncentered: f64 = w
            .iter()
            .zip(pb.iter().zip(&pa))
            .map(|(w, (y, x))| w * (y - x))
            .sum();
        let Some(z) = bench_stats::special::normal_ppf(1.0 - (1.0 - p.confidence) / 2.0) else {
            continue;
        };
        significant += u32::from(p.p_value_adjusted <= 0.05);
        rows.push(Row {
            estimate,
            truth: [st.p10, st.median, st.p90][part].ln(),
            down: estimate - lo.ln(),
            up: hi.ln() - estimate,
            z,
            centered: (uncentered - estimate).abs() > 1e-9,
        });
    }
    println!(
        "{} / {} / {}: {} sessions of {blocks} blocks, significant {significant}",
        profile.as_str(),
        change.name,
        ["p10", "p50", "p90"][part],
        rows.len()
    );
    summary("all", &rows.iter().collect::<Vec<_>>());
    summary(
        "not centered",
        &rows.iter().filter(|r| !r.centered).collect::<Vec<_>>(),
    );
    summary(
        "centered on the neighbours",
        &rows.iter().filter(|r| r.centered).collect::<Vec<_>>(),
    );
}
