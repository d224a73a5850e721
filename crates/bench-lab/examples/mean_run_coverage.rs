//! The mean run's interval on one cell of the part-coverage table (quiet, "30% of B's runs
//! 20% slower", 30 ABBA blocks, true mean ratio 0.7 + 0.3 x 1.2 = 1.06) on seeds of its own,
//! through `analyze()`: how often the true ratio lies below, inside and above the part's
//! interval (at its own level), to tell Monte Carlo error and skew apart
//! (`docs/estimator-grid.md`, the mean run's coverage).
//!
//! `cargo run --release -p bench-lab --example mean_run_coverage -- [SESSIONS] [FIRST_SEED]`
//! (default 400 sessions from seed 90,000).

use bench_lab::sim::{Change, NoiseProfile, analyze_change};

fn main() {
    let arg = |i: usize, default: u64| {
        std::env::args()
            .nth(i)
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let (reps, first) = (arg(1, 400), arg(2, 90_000));
    let truth = 0.7 + 0.3 * 1.2;
    let cfg = NoiseProfile::Quiet.config();
    let change = Change::share(0.3, (1.2, 1.2));
    let (mut below, mut above, mut n, mut level) = (0u32, 0u32, 0u32, 0.0);
    for r in 0..reps {
        let Some(a) = analyze_change(&cfg, &change, 30, first + r) else {
            continue;
        };
        let c = &a.groups[0].comparisons[0];
        let Some(m) = c.distribution.as_ref().and_then(|s| s.mean.as_ref()) else {
            continue;
        };
        let Some([lo, hi]) = m.interval else {
            continue;
        };
        n += 1;
        level = m.confidence;
        below += u32::from(truth < lo);
        above += u32::from(truth > hi);
    }
    let pct = |k: u32| 100.0 * f64::from(k) / f64::from(n.max(1));
    println!(
        "{n} sessions from seed {first}: covered {:.2}% (nominal {:.1}%), true ratio below the interval {below}, above it {above}",
        100.0 - pct(below + above),
        100.0 * level
    );
}
