//! Carryover diagnostics on back-to-back blocks, calibrated by simulation.
//!
//! `abba compare` runs blocks back to back, so position 0 of a block follows the previous
//! block's last run. The simulator here does the same (until the shared simulator in
//! `tests/sim/` models it): every run is `100 exp(0.02 z)` ms, one run in ten slowed by
//! 15-40 % (a heavy right tail), plus a slow linear drift, plus the carryover of the run
//! just before it. Two variants: a run right after the other variant reads `l_A` (for A) or
//! `l_B` (for B) more. Three variants in Williams blocks: a run reads `rho_u` more when
//! variant `u` ran just before it.
//!
//! Run with `cargo test -p bench-stats --test integration carryover_sim:: -- --nocapture` to see the
//! tables. A false-alarm rate `p` over `R` sessions may exceed `alpha` by at most
//! `3 sqrt(alpha (1 - alpha) / R)`.

use bench_stats::diagnostics::{
    BlockJoin, CarryoverConfig, CarryoverFinding, CarryoverRun, carryover, residual_carryover,
};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const ALPHA: f64 = 0.05;
const BLOCKS: u32 = 30;
const SESSIONS: u64 = 600;

fn normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// One noisy run at time `t` (no carryover).
fn noise(rng: &mut Xoshiro256PlusPlus, t: u32) -> f64 {
    let mut v = 100.0 * (0.02 * normal(rng)).exp() * (1.0 + 0.0002 * f64::from(t));
    if rng.random::<f64>() < 0.1 {
        v *= 1.15 + 0.25 * rng.random::<f64>();
    }
    v
}

/// Blocks back to back; `orders[b % len]` is block `b`'s variant order; `carry(prev, v)`
/// the extra value of a run of `v` right after `prev`.
fn session(
    orders: &[Vec<usize>],
    carry: &dyn Fn(usize, usize) -> f64,
    seed: u64,
) -> Vec<CarryoverRun> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut runs = Vec::new();
    let mut prev: Option<usize> = None;
    let mut t = 0;
    for block in 0..BLOCKS {
        for (p, &v) in orders[block as usize % orders.len()].iter().enumerate() {
            let value = noise(&mut rng, t) + prev.map_or(0.0, |u| carry(u, v));
            runs.push(CarryoverRun {
                variant: v,
                block,
                position: p as u32,
                value,
            });
            prev = Some(v);
            t += 1;
        }
    }
    runs
}

fn abba() -> Vec<Vec<usize>> {
    vec![vec![0, 1, 1, 0], vec![1, 0, 0, 1]]
}

/// `l_A` on A runs right after B, `l_B` on B runs right after A.
fn into(l: [f64; 2]) -> impl Fn(usize, usize) -> f64 {
    move |prev, v| if prev != v { l[v] } else { 0.0 }
}

fn bound(reps: u64) -> f64 {
    ALPHA + 3.0 * (ALPHA * (1.0 - ALPHA) / reps as f64).sqrt()
}

fn mean_se(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

/// `mean(B) - mean(A)` over the session: what the version difference reads.
fn version_difference(runs: &[CarryoverRun]) -> f64 {
    let m = |v: usize| {
        let x: Vec<f64> = runs
            .iter()
            .filter(|r| r.variant == v)
            .map(|r| r.value)
            .collect();
        x.iter().sum::<f64>() / x.len() as f64
    };
    m(1) - m(0)
}

#[test]
fn back_to_back_contrast_sees_three_quarters_and_the_diagnostic_corrects_it() {
    let back = CarryoverConfig::default();
    let separated = CarryoverConfig {
        join: BlockJoin::Separated,
        ..back
    };
    println!(
        "\nsymmetric carryover, two variants, {BLOCKS} ABBA blocks back to back, {SESSIONS} sessions"
    );
    println!("carry | mean contrast | estimate (back-to-back) | read as separated | fires");
    let mut rows = Vec::new();
    for c in [0.0, 1.0, 2.0, 4.0] {
        let (mut est, mut raw, mut fired) = (Vec::new(), Vec::new(), 0u32);
        for s in 0..SESSIONS {
            let runs = session(&abba(), &into([c, c]), 10_000 + s);
            let r = carryover(&runs, &back).unwrap();
            let plain = carryover(&runs, &separated).unwrap();
            est.push(r.position_effect);
            raw.push(plain.position_effect);
            fired += u32::from(r.finding != CarryoverFinding::NotDetected);
        }
        let (e, se) = mean_se(&est);
        let (k, _) = mean_se(&raw);
        let rate = f64::from(fired) / SESSIONS as f64;
        println!("{c:>5.1} | {k:>13.3} | {e:>15.3} ({se:.3}) | {k:>17.3} | {rate:.3}");
        rows.push((c, e, se, k, rate));
    }
    for &(c, e, se, k, rate) in &rows {
        // Unbiased for the carryover; the uncorrected contrast reads 3/4 of it.
        assert!((e - c).abs() < 4.0 * se, "carry {c}: estimate {e} +- {se}");
        assert!(
            (k - 0.75 * c).abs() < 4.0 * 0.75 * se,
            "carry {c}: contrast {k}"
        );
        if c == 0.0 {
            assert!(rate <= bound(SESSIONS), "false alarms {rate}");
        }
    }
    assert!(rows[3].4 >= 0.8, "4 % carryover found in {}", rows[3].4);
}

#[test]
fn differential_carryover_from_abba_against_baab() {
    println!(
        "\ncarryover that differs between versions: l_A = 1, l_B = 1 + d; two variants, {BLOCKS} blocks back to back, {SESSIONS} sessions"
    );
    println!("    d | estimate of d (SE) | bias of B - A: estimated | simulated | detected");
    let mut rows = Vec::new();
    for d in [0.0, 2.0, 4.0, 8.0] {
        let (mut est, mut bias, mut seen, mut hits) = (Vec::new(), Vec::new(), Vec::new(), 0u32);
        for s in 0..SESSIONS {
            let runs = session(&abba(), &into([1.0, 1.0 + d]), 20_000 + s);
            let r = carryover(&runs, &CarryoverConfig::default()).unwrap();
            let diff = r.differential.expect("30 blocks give both kinds");
            est.push(diff.estimate);
            bias.push(diff.version_bias);
            seen.push(version_difference(&runs));
            hits += u32::from(diff.detected);
        }
        let (e, se) = mean_se(&est);
        let (b, _) = mean_se(&bias);
        let (v, _) = mean_se(&seen);
        let rate = f64::from(hits) / SESSIONS as f64;
        println!("{d:>5.1} | {e:>9.3} ({se:.3}) | {b:>24.3} | {v:>9.3} | {rate:.3}");
        rows.push((d, e, se, b, v, rate));
    }
    for &(d, e, se, b, v, _) in &rows {
        assert!((e - d).abs() < 4.0 * se, "d {d}: {e} +- {se}");
        // The bias of the version difference is 3/4 of d back to back, and the diagnostic
        // reads it (within the same Monte Carlo margin, scaled).
        assert!((b - 0.75 * d).abs() < 4.0 * 0.75 * se, "d {d}: bias {b}");
        assert!(
            (v - 0.75 * d).abs() < 4.0 * 0.75 * se + 0.3,
            "d {d}: simulated {v}"
        );
    }
    assert!(rows[0].5 <= bound(SESSIONS), "false alarms {}", rows[0].5);
    // Differential carryover is hard to see: its contrast is a difference of two halves of
    // the blocks. Under this noise (run SD ~9 %) a difference of 8 % is found in about
    // 7 sessions of 10 at 30 blocks.
    assert!(rows[3].5 >= 0.5, "d = 8 found in {}", rows[3].5);
    assert!(rows[1].5 < rows[2].5 && rows[2].5 < rows[3].5);
}

/// Williams rows for 3 variants, as `bench-sched` plans them.
fn williams3() -> Vec<Vec<usize>> {
    vec![
        vec![0, 2, 1],
        vec![1, 0, 2],
        vec![2, 1, 0],
        vec![1, 2, 0],
        vec![2, 0, 1],
        vec![0, 1, 2],
    ]
}

#[test]
fn residual_carryover_of_three_variants_per_candidate() {
    println!(
        "\nresidual carryover, 3 variants in Williams blocks back to back, {BLOCKS} blocks, {SESSIONS} sessions"
    );
    println!(
        "rho (A, B, C) | candidate | estimate (SE) | true | bias of C - A: est. | simulated | detected"
    );
    let cases: [([f64; 3], f64); 4] = [
        ([0.0, 0.0, 0.0], 0.0),
        ([2.0, 2.0, 2.0], 0.0),
        ([0.0, 0.0, 4.0], 4.0),
        ([0.0, 0.0, 8.0], 8.0),
    ];
    let mut rates = Vec::new();
    for (rho, truth) in cases {
        let (mut est, mut bias, mut seen, mut hits) = (Vec::new(), Vec::new(), Vec::new(), 0u32);
        for s in 0..SESSIONS {
            let runs = session(&williams3(), &move |u, _| rho[u], 30_000 + s);
            let r = residual_carryover(&runs, 3, 0, 2, BlockJoin::BackToBack, ALPHA).unwrap();
            est.push(r.estimate);
            bias.push(r.version_bias);
            let m = |v: usize| {
                let x: Vec<f64> = runs
                    .iter()
                    .filter(|r| r.variant == v)
                    .map(|r| r.value)
                    .collect();
                x.iter().sum::<f64>() / x.len() as f64
            };
            seen.push(m(2) - m(0));
            hits += u32::from(r.detected);
        }
        let (e, se) = mean_se(&est);
        let (b, _) = mean_se(&bias);
        let (v, _) = mean_se(&seen);
        let rate = f64::from(hits) / SESSIONS as f64;
        println!(
            "{rho:?} | C vs A | {e:>7.3} ({se:.3}) | {truth:>4.1} | {b:>19.3} | {v:>9.3} | {rate:.3}"
        );
        assert!((e - truth).abs() < 4.0 * se, "{rho:?}: {e} +- {se}");
        // The diagnostic's bias estimate matches the bias the version difference shows.
        assert!(
            (v - b).abs() < 4.0 * se + 0.3,
            "{rho:?}: simulated bias {v}, estimated {b}"
        );
        rates.push(rate);
    }
    assert!(rates[0] <= bound(SESSIONS), "false alarms {}", rates[0]);
    assert!(
        rates[1] <= bound(SESSIONS),
        "false alarms, equal carryover {}",
        rates[1]
    );
    assert!(rates[3] >= 0.7, "rho_C = 8 found in {}", rates[3]);
    assert!(rates[2] < rates[3]);
}

/// The same diagnostics on the library's simulator (`bench_stats::sim`, back to back, with
/// its bursts, spikes, load phases and a per-session first-run-of-block factor), on every
/// noise profile, with each profile's own symmetric carryover and no version effect.
#[test]
fn on_the_library_simulator_profiles() {
    use bench_lab::sim::{NoiseProfile, SimDesign, simulate};
    const REPS: u64 = 300;
    println!(
        "\nbench_stats::sim profiles, {BLOCKS} ABBA blocks, {REPS} sessions, symmetric carryover x5 of the profile's"
    );
    println!(
        "profile   | carry (ms) | position effect (SE) | fires | fires, no carryover | differential false alarms"
    );
    for profile in NoiseProfile::ALL {
        let base = profile.config();
        let cfg = base.with_carryover(5.0 * base.carryover);
        let carry_ms = cfg.carryover * cfg.mean * cfg.noise_mean();
        let (mut est, mut fires, mut fires_null, mut diff_alarms) = (Vec::new(), 0u32, 0u32, 0u32);
        for r in 0..REPS {
            let to_runs = |e: &bench_lab::sim::Experiment| -> Vec<CarryoverRun> {
                e.runs
                    .iter()
                    .map(|&(variant, block, position, value)| CarryoverRun {
                        variant,
                        block,
                        position,
                        value,
                    })
                    .collect()
            };
            let e = simulate(&cfg, SimDesign::Abba, BLOCKS, 40_000 + r);
            let rep = carryover(&to_runs(&e), &CarryoverConfig::default()).unwrap();
            // The simulator's carryover makes the run faster: a negative extra value.
            est.push(-rep.position_effect);
            fires += u32::from(rep.finding != CarryoverFinding::NotDetected);
            diff_alarms += u32::from(rep.differential.is_some_and(|d| d.detected));
            let quiet = simulate(
                &base.with_carryover(0.0),
                SimDesign::Abba,
                BLOCKS,
                50_000 + r,
            );
            let rep0 = carryover(&to_runs(&quiet), &CarryoverConfig::default()).unwrap();
            fires_null += u32::from(rep0.finding != CarryoverFinding::NotDetected);
        }
        let (m, se) = mean_se(&est);
        let rate = |n: u32| f64::from(n) / REPS as f64;
        println!(
            "{:<9} | {carry_ms:>10.3} | {m:>10.3} ({se:.3}) | {:.3} | {:>19.3} | {:.3}",
            profile.as_str(),
            rate(fires),
            rate(fires_null),
            rate(diff_alarms)
        );
        // Unbiased for the carryover back to back (the first-run factor has mean 0 over
        // sessions); the uncorrected contrast would read 3/4 of it.
        assert!(
            (m - carry_ms).abs() < 4.0 * se + 0.05 * carry_ms,
            "{}: {m} +- {se} vs {carry_ms}",
            profile.as_str()
        );
        // A symmetric carryover is not mistaken for a differential one.
        assert!(rate(diff_alarms) <= bound(REPS), "{}", profile.as_str());
    }
}
