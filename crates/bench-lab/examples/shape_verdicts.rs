//! Issue 42's verdict table (`docs/estimator-grid.md`, "Parts that mean their names"): the
//! outcome, the `--fail-if-slower` gate at 2% and 5%, and how often the fast runs (p10)
//! are called slower, through `analyze()` at 30 ABBA blocks on every noise profile, for
//! no change, shifts of 2% and 4%, and the audit's non-shift and spread changes.
//!
//! `cargo run -p bench-lab --example shape_verdicts -- [SESSIONS] [PROFILES]` (default 200
//! sessions a cell, seeds 7000 on; `PROFILES` a comma-separated subset such as
//! `quiet,drift`). With `SHOW=<case>` set, each claimed or gated session of that case
//! prints its parts on stderr.

use bench_lab::sim::{Change, Mode, NoiseProfile, analyze_change};
use bench_stats::Outcome;
use bench_stats::analysis::regressions;
use bench_stats::paired::shape::PartMove;

/// Counts of one cell: sessions, SLOWER, FASTER, MIXED, EQUIVALENT, 2% gate, 5% gate,
/// fast runs SLOWER.
type Counts = [u32; 8];

fn cases() -> Vec<(&'static str, Change)> {
    vec![
        ("aa", Change::none()),
        ("shift1.02", Change::shift(1.02)),
        ("shift1.04", Change::shift(1.04)),
        ("fast&slow", Change::fast_and_slow(0.96, 0.55, 1.15)),
        ("spread+6", Change::scale(0.06)),
        (
            "consistent",
            Change::mixture(
                "B's runs more consistent",
                vec![Mode {
                    weight: 1.0,
                    factor: (1.0, 1.0),
                    log_sd: 0.06,
                }],
                Vec::new(),
            ),
        ),
        ("tail10x30", Change::share(0.1, (1.3, 1.3))),
        ("share30x20", Change::share(0.3, (1.2, 1.2))),
    ]
}

fn cell(profile: NoiseProfile, name: &str, change: &Change, range: std::ops::Range<u32>) -> Counts {
    let cfg = profile.config();
    let show = std::env::var("SHOW").is_ok_and(|w| w == name);
    let mut v = [0u32; 8];
    for r in range {
        let seed = 7_000 + u64::from(r);
        let Some(a) = analyze_change(&cfg, change, 30, seed) else {
            continue;
        };
        let c = &a.groups[0].comparisons[0];
        let gate2 = !regressions(&a, 0.02).is_empty();
        v[0] += 1;
        v[1] += u32::from(c.outcome == Outcome::Slower);
        v[2] += u32::from(c.outcome == Outcome::Faster);
        v[3] += u32::from(c.outcome == Outcome::Mixed);
        v[4] += u32::from(c.outcome == Outcome::Equivalent);
        v[5] += u32::from(gate2);
        v[6] += u32::from(!regressions(&a, 0.05).is_empty());
        if let Some(s) = &c.distribution {
            v[7] += u32::from(s.quantiles[0].part == PartMove::Slower);
            if show && (matches!(c.outcome, Outcome::Slower | Outcome::Faster) || gate2) {
                let parts: Vec<String> = s
                    .parts()
                    .map(|q| {
                        let [lo, hi] = q.interval.unwrap_or([f64::NAN; 2]);
                        format!("{:.4} [{lo:.4}, {hi:.4}] {:?}", q.ratio, q.part)
                    })
                    .collect();
                eprintln!(
                    "{profile} {:?} gate2 {gate2}: {}",
                    c.outcome,
                    parts.join("  ")
                );
            }
        }
    }
    v
}

fn main() {
    let reps: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let only = std::env::args().nth(2).unwrap_or_default();
    for profile in NoiseProfile::ALL {
        if !only.is_empty() && !only.split(',').any(|p| p == profile.as_str()) {
            continue;
        }
        for (name, change) in &cases() {
            let half = reps / 2;
            let (x, y) = std::thread::scope(|s| {
                let t = s.spawn(|| cell(profile, name, change, 0..half));
                (
                    cell(profile, name, change, half..reps),
                    t.join().expect("thread"),
                )
            });
            let v: Vec<u32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
            let p = |k: u32| 100.0 * f64::from(k) / f64::from(v[0].max(1));
            println!(
                "{:9} {:10} n {:4} SLOWER {:5.1} FASTER {:5.1} MIXED {:5.1} EQUIV {:5.1} gate2 {:5.1} gate5 {:5.1} p10slower {:5.1}",
                profile.as_str(),
                name,
                v[0],
                p(v[1]),
                p(v[2]),
                p(v[3]),
                p(v[4]),
                p(v[5]),
                p(v[6]),
                p(v[7])
            );
        }
    }
}
