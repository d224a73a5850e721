//! The history statistics against independent references: e-divisive means against
//! MongoDB's `signal-processing-algorithms` (`fixtures/history/edivisive.json`, written by
//! `fixtures/history/generate_edivisive.py`), the chain of paired steps against hand
//! computation and against the coverage of its interval on simulated paired experiments.

use crate::support::{EXACT_REL, assert_close};
use bench_lab::sim::{NoiseProfile, SimDesign, simulate};
use bench_stats::history::{ChangePointConfig, Step, chain, e_divisive, energy_split_statistics};
use bench_stats::sequential::dataset_log_ratios;
use bench_stats::special::student_t_sf;
use serde_json::Value;

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/history/edivisive.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("edivisive.json is readable"))
        .expect("valid JSON")
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

fn indices(v: &Value) -> Vec<usize> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_u64().expect("an index") as usize)
        .collect()
}

fn cases() -> Vec<Value> {
    let r = reference();
    let cases = r["cases"].as_array().expect("cases").clone();
    assert_eq!(cases.len(), 7);
    cases
}

/// The best split of `series[a..b]` by our statistic: `(a + tau, q)`, first on ties.
fn best(series: &[f64], a: usize, b: usize) -> (usize, f64) {
    let q = energy_split_statistics(&series[a..b]);
    let mut best = (a + 1, q[1]);
    for (tau, &v) in q.iter().enumerate().skip(1) {
        if v > best.1 {
            best = (a + tau, v);
        }
    }
    best
}

#[test]
fn mongodb_energy_statistic_of_every_split() {
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let series = numbers(&case["series"]);
        let want = numbers(&case["q"]);
        let got = energy_split_statistics(&series);
        assert_eq!(got.len(), want.len(), "{name}");
        for (tau, (&g, &w)) in got.iter().zip(&want).enumerate() {
            assert_close(g, w, EXACT_REL, &format!("{name} q({tau})"));
        }
    }
}

#[test]
fn mongodb_best_split_of_every_segment() {
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let series = numbers(&case["series"]);
        for seg in case["segments"].as_array().unwrap() {
            let at = |k: &str| seg[k].as_u64().unwrap() as usize;
            let (split, q) = best(&series, at("start"), at("end"));
            assert_eq!(split, at("split"), "{name} segment {seg}");
            assert_close(q, seg["q"].as_f64().unwrap(), EXACT_REL, name);
        }
    }
}

#[test]
fn mongodb_change_points_on_clear_cases() {
    let r = reference();
    let alpha = r["pvalue"].as_f64().unwrap();
    let permutations = r["permutations"].as_u64().unwrap() as usize;
    let mut compared = 0;
    for case in cases() {
        if !case["stable"].as_bool().unwrap() {
            continue;
        }
        compared += 1;
        let name = case["name"].as_str().unwrap();
        let series = numbers(&case["series"]);
        let want = indices(&case["change_points"]);
        // MongoDB has no minimum segment; 1 is the same search. Four of our seeds.
        for seed in 0..4 {
            let cfg = ChangePointConfig {
                min_segment: 1,
                alpha,
                permutations,
                seed,
            };
            let got: Vec<usize> = e_divisive(&series, &cfg).iter().map(|c| c.index).collect();
            assert_eq!(got, want, "{name}, seed {seed}");
        }
        // The default configuration (min segment 5) agrees on these clear cases too.
        let got: Vec<usize> = e_divisive(&series, &ChangePointConfig::default())
            .iter()
            .map(|c| c.index)
            .collect();
        assert_eq!(got, want, "{name}, default configuration");
    }
    assert!(compared >= 6, "only {compared} stable cases");
}

#[test]
fn change_point_sizes_are_the_medians_of_the_segments() {
    let case = cases()
        .into_iter()
        .find(|c| c["name"] == "two_steps_100")
        .unwrap();
    let series = numbers(&case["series"]);
    let found = e_divisive(&series, &ChangePointConfig::default());
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    };
    assert_eq!(found.len(), 2);
    let (a, b) = (found[0].index, found[1].index);
    assert_close(found[0].before, median(&series[..a]), 1e-15, "before");
    assert_close(found[0].after, median(&series[a..b]), 1e-15, "after");
    assert_close(found[1].before, median(&series[a..b]), 1e-15, "before 2");
    assert_close(found[1].after, median(&series[b..]), 1e-15, "after 2");
    assert_close(
        found[0].ratio,
        found[0].after / found[0].before,
        1e-15,
        "ratio",
    );
    // The smallest p 199 permutations can give.
    assert!(found.iter().all(|c| c.p_value == 1.0 / 200.0));
}

#[test]
fn chain_by_hand() {
    // Steps of +2%, -1%, +0.5% (log ratios 0.0198026, -0.0100503, 0.0049875) with SEs
    // 0.01, 0.004, 0.002: D = 0.0147398, var = 1e-4 + 1.6e-5 + 4e-6 = 1.2e-4,
    // SE = 0.0109545, 95%: exp(0.0147398 -+ 1.959964 * 0.0109545 = 0.0214703) = [0.993292,
    // 1.036874].
    let steps = [
        Step {
            log_ratio: 1.02f64.ln(),
            std_error: 0.01,
        },
        Step {
            log_ratio: 0.99f64.ln(),
            std_error: 0.004,
        },
        Step {
            log_ratio: 1.005f64.ln(),
            std_error: 0.002,
        },
    ];
    let c = chain(&steps, 0.95).unwrap();
    assert_close(c.ratio, 1.02 * 0.99 * 1.005, 1e-14, "ratio");
    assert_close(c.std_error, 1.2e-4f64.sqrt(), 1e-14, "se");
    assert_close(c.interval[0], 0.993_292, 1e-6, "low");
    assert_close(c.interval[1], 1.036_874, 1e-6, "high");
    // 0.0198 alone is more than half of 0.0147.
    assert_eq!(c.largest_steps, vec![0]);
    // Four equal steps of +1% and one of -1%: the total is 3%, half of it needs two.
    let mut steps = vec![
        Step {
            log_ratio: 0.01,
            std_error: 0.01,
        };
        4
    ];
    steps.insert(
        2,
        Step {
            log_ratio: -0.01,
            std_error: 0.01,
        },
    );
    let c = chain(&steps, 0.9).unwrap();
    assert_eq!(c.largest_steps, vec![0, 1]);
    // 90%: z = 1.644854, SE = sqrt(5) * 0.01.
    assert_close(
        c.interval[1],
        (0.03 + 1.644_853_626_951_472_2 * 5f64.sqrt() * 0.01).exp(),
        1e-12,
        "90% high",
    );
    // A regression given as a faster-is-negative chain: the direction follows the total.
    let down = [
        Step {
            log_ratio: -0.03,
            std_error: 0.01,
        },
        Step {
            log_ratio: 0.005,
            std_error: 0.01,
        },
        Step {
            log_ratio: -0.01,
            std_error: 0.01,
        },
    ];
    assert_eq!(chain(&down, 0.95).unwrap().largest_steps, vec![0]);
}

/// One simulated paired experiment of a commit against its parent: the per-block log
/// ratios of the default block summary, their mean, and its Student-t 95% interval turned
/// into a [`Step`].
fn paired_step(profile: NoiseProfile, effect: f64, blocks: u32, seed: u64) -> Step {
    let e = simulate(
        &profile.config().with_effect(effect),
        SimDesign::Abba,
        blocks,
        seed,
    );
    let logs = dataset_log_ratios(&e.dataset, None).unwrap();
    let n = logs.len() as f64;
    let mean = logs.iter().sum::<f64>() / n;
    let sd = (logs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    // t quantile at 0.975 with n - 1 df, by bisection on the survival function.
    let (mut lo, mut hi) = (0.0, 50.0);
    for _ in 0..80 {
        let mid = (lo + hi) / 2.0;
        if student_t_sf(mid, n - 1.0).unwrap() > 0.025 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let half = lo * sd / n.sqrt();
    Step::from_interval(mean.exp(), [(mean - half).exp(), (mean + half).exp()], 0.95).unwrap()
}

#[test]
fn chain_interval_covers_the_cumulative_change_on_simulated_steps() {
    // 300 chains of 10 paired steps (12 ABBA blocks each) on the shared VM, true steps of
    // 0, +1%, -0.5%, ... : the 95% chain interval should hold the true product about 95%
    // of the time (binomial SD 1.3 points).
    let effects = [1.0, 1.01, 0.995, 1.0, 1.02, 1.0, 0.99, 1.005, 1.0, 1.01];
    let truth: f64 = effects.iter().product();
    let reps = 300u64;
    let mut covered = 0;
    for r in 0..reps {
        let steps: Vec<Step> = effects
            .iter()
            .enumerate()
            .map(|(i, &e)| paired_step(NoiseProfile::SharedVm, e, 12, 9_000 + r * 16 + i as u64))
            .collect();
        let c = chain(&steps, 0.95).unwrap();
        covered += u32::from(c.interval[0] <= truth && truth <= c.interval[1]);
    }
    let rate = f64::from(covered) / reps as f64;
    assert!((0.91..=0.99).contains(&rate), "coverage {rate}");
}
