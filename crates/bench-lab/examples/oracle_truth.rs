//! What the decision grid's oracle estimates: the median ratio of the runs the simulated
//! machine did not disturb, beside the median ratio of all runs (the grid's truth,
//! `bench_lab::sim::truth`: 400 sessions of 25 ABBA blocks, seeds 77 on), for the grid's
//! changes that are not shifts on every noise profile.
//!
//! `cargo run -p bench-lab --example oracle_truth`

use bench_lab::sim::{Change, NoiseProfile, SimDesign, simulate_change, truth};

fn main() {
    let changes = [
        Change::share(0.3, (1.2, 1.2)),
        Change::fast_and_slow(0.96, 0.55, 1.15),
        Change::fast_and_slow(0.96, 0.45, 1.15),
        Change::share(0.6, (1.06, 1.14)),
    ];
    println!("| profile | change | median ratio, all runs | median ratio, undisturbed runs |");
    println!("| --- | --- | --- | --- |");
    for profile in NoiseProfile::ALL {
        let cfg = profile.config();
        for change in &changes {
            let mut runs: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
            for s in 0..400u64 {
                let e = simulate_change(&cfg, change, SimDesign::Abba, 25, 1, 77 + s);
                for (&(v, _, _, x), &d) in e.runs.iter().zip(&e.disturbed) {
                    if !d {
                        runs[v].push(x);
                    }
                }
            }
            for r in &mut runs {
                r.sort_by(f64::total_cmp);
            }
            let q = |p: f64| {
                bench_stats::descriptive::quantile_sorted(&runs[1], p)
                    / bench_stats::descriptive::quantile_sorted(&runs[0], p)
            };
            let t = truth(&cfg, change, 400, 25, 77);
            println!(
                "| {} | {} | {:.3} | {:.3} |",
                profile.as_str(),
                change.name,
                t.median,
                q(0.5)
            );
        }
    }
}
