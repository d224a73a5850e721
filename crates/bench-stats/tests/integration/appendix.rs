//! bench-stats' estimators on Appendix F's data ("Statistical Reasoning for Benchmarks"),
//! `fixtures/appendix/appendix_f.json` (see `fixtures/appendix/README.md`).
//!
//! Deterministic statistics are checked against NumPy's exact values to `EXACT_REL`, and
//! the block bootstrap's endpoints against the fixture's NumPy Monte Carlo (their spread
//! and their mean over 200 seeds). The appendix's *published* figures are verified in one
//! place only: `cargo xtask reproduce-appendix --check` (`xtask/src/appendix/check.rs`,
//! also a `#[test]` there).

use crate::support::{EXACT_REL, assert_close};
use bench_stats::descriptive::summarize;
use bench_stats::paired::{PairedConfig, block_bootstrap, paired_analysis};
use bench_stats::resample::{BootstrapConfig, IntervalMethod, unpaired_bootstrap_difference};
use bench_stats::{PairedEstimator, Sample};
use serde_json::Value;

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/appendix/appendix_f.json"
    );
    let text = std::fs::read_to_string(path).expect("fixture appendix_f.json is readable");
    serde_json::from_str(&text).expect("fixture is valid JSON")
}

fn num(v: &Value) -> f64 {
    v.as_f64().expect("a number")
}

/// Baseline and candidate samples of `which` (`real_effect` or `null_effect`).
fn samples(f: &Value, which: &str) -> (Sample, Sample) {
    let values = |key: &str| -> Vec<f64> {
        f[which][key]
            .as_array()
            .expect("an array")
            .iter()
            .map(num)
            .collect()
    };
    (
        Sample::new(&values("baseline_values")).unwrap(),
        Sample::new(&values("candidate_values")).unwrap(),
    )
}

fn config(seed: u64) -> BootstrapConfig {
    BootstrapConfig {
        resamples: 2000,
        confidence: 0.95,
        seed,
        method: IntervalMethod::Percentile,
    }
}

/// The four endpoints (difference low/high, ratio low/high) under `seed`.
fn endpoints(base: &Sample, cand: &Sample, seed: u64) -> [f64; 4] {
    let d = block_bootstrap(base, cand, PairedEstimator::MeanDifference, &config(seed)).unwrap();
    let r = block_bootstrap(base, cand, PairedEstimator::RatioOfMeans, &config(seed)).unwrap();
    [d.low, d.high, r.low, r.high]
}

const ENDPOINTS: [&str; 4] = [
    "difference_low",
    "difference_high",
    "ratio_low",
    "ratio_high",
];

/// Our block bootstrap against the fixture's NumPy Monte Carlo of the same procedure
/// (`key`: `real` or `null`): over 200 seeds, the sd of each endpoint is within a factor
/// 0.7..1.4 of NumPy's, and the mean within `4 sd sqrt(1/200 + 1/seeds)` of NumPy's mean
/// (both means carry Monte Carlo error).
fn check_bootstrap_against_numpy(which: &str, key: &str) {
    let f = fixture();
    let (base, cand) = samples(&f, which);
    let mc = &f["monte_carlo"];
    let seeds = num(&mc["seeds"]);
    let draws: Vec<[f64; 4]> = (1000..1200).map(|s| endpoints(&base, &cand, s)).collect();
    for (i, name) in ENDPOINTS.iter().enumerate() {
        let (mc_mean, mc_sd) = (num(&mc[key][name]["mean"]), num(&mc[key][name]["sd"]));
        let xs: Vec<f64> = draws.iter().map(|d| d[i]).collect();
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        let sd = (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let ratio = sd / mc_sd;
        assert!(
            (0.7..=1.4).contains(&ratio),
            "{which} {name}: our Monte Carlo sd {sd} vs fixture {mc_sd} (ratio {ratio})"
        );
        let mean_tol = 4.0 * mc_sd * (1.0 / n + 1.0 / seeds).sqrt();
        assert!(
            (m - mc_mean).abs() <= mean_tol,
            "{which} {name}: mean over 200 seeds {m}, NumPy's {mc_mean}, tolerance {mean_tol}"
        );
    }
}

#[test]
fn appendix_f_chains1_median() {
    let f = fixture();
    let (base, _) = samples(&f, "real_effect");
    let s = summarize(&base);
    assert_close(
        s.median,
        num(&f["numpy_exact"]["real"]["median_baseline"]),
        EXACT_REL,
        "median",
    );
    // The low outlier (671.8 in block 4) is reported, not removed.
    assert_eq!(s.outliers.low_severe + s.outliers.low_mild, 1);
    assert_eq!(s.n, 12);
    assert!(s.p99.is_err(), "twelve runs cannot support a p99");
    // The mean moves toward the outlier, the median does not.
    assert!(s.mean < s.median);
}

#[test]
fn appendix_f_real_effect_mean_difference_and_sd() {
    let f = fixture();
    let (base, cand) = samples(&f, "real_effect");
    let p = paired_analysis(&base, &cand, &PairedConfig::default()).unwrap();
    let exact = &f["numpy_exact"]["real"];
    assert_close(
        p.mean_difference,
        num(&exact["mean_difference"]),
        EXACT_REL,
        "mean diff",
    );
    let sd = p.sd_difference.unwrap();
    assert_close(sd, num(&exact["sd_difference"]), EXACT_REL, "sd diff");
    assert_eq!(p.blocks, 12);
}

#[test]
fn appendix_f_real_effect_dz() {
    let f = fixture();
    let (base, cand) = samples(&f, "real_effect");
    let p = paired_analysis(&base, &cand, &PairedConfig::default()).unwrap();
    let dz = p.cohens_dz.unwrap();
    assert_close(
        dz,
        num(&f["numpy_exact"]["real"]["cohens_dz"]),
        EXACT_REL,
        "dz",
    );
    // The unpaired d (pooled marginal sd) for contrast, checked against NumPy.
    let d = p.cohens_d_unpaired.unwrap();
    assert_close(
        d,
        num(&f["numpy_exact"]["real"]["cohens_d_unpaired"]),
        EXACT_REL,
        "d",
    );
}

#[test]
fn appendix_f_real_effect_ratio() {
    let f = fixture();
    let (base, cand) = samples(&f, "real_effect");
    let p = paired_analysis(&base, &cand, &PairedConfig::default()).unwrap();
    let ratio = p.ratio.unwrap();
    assert_close(
        ratio,
        num(&f["numpy_exact"]["real"]["ratio_of_means"]),
        EXACT_REL,
        "ratio",
    );
    // The robust ratio agrees with the ratio of means here, and its interval excludes 1.
    let median_ratio = p.median_ratio.unwrap();
    assert!((median_ratio - ratio).abs() < 0.02, "{median_ratio}");
    assert!(p.median_ratio_ci.unwrap().low > 1.0);
}

#[test]
fn appendix_f_real_effect_bootstrap_matches_numpy_monte_carlo() {
    check_bootstrap_against_numpy("real_effect", "real");
}

#[test]
fn appendix_f_null_effect_bootstrap_matches_numpy_monte_carlo() {
    check_bootstrap_against_numpy("null_effect", "null");
}

#[test]
fn appendix_f_null_effect_includes_zero_by_every_method() {
    let f = fixture();
    let (base, cand) = samples(&f, "null_effect");
    for method in [
        IntervalMethod::Percentile,
        IntervalMethod::Bca,
        IntervalMethod::Studentized,
    ] {
        let config = PairedConfig {
            bootstrap: BootstrapConfig {
                method,
                ..config(1)
            },
            estimator: PairedEstimator::MeanDifference,
            higher_is_better: false,
            ..PairedConfig::default()
        };
        let p = paired_analysis(&base, &cand, &config).unwrap();
        let d = p.difference_ci.unwrap();
        assert!(d.contains(0.0), "{method:?}: {d:?}");
        let r = p.ratio_ci.unwrap();
        assert!(r.contains(1.0), "{method:?}: {r:?}");
        let m = p.median_ratio_ci.unwrap();
        assert!(m.contains(1.0), "{method:?}: {m:?}");
    }
}

#[test]
fn appendix_f_real_effect_excludes_zero_by_every_method() {
    let f = fixture();
    let (base, cand) = samples(&f, "real_effect");
    for method in [
        IntervalMethod::Percentile,
        IntervalMethod::Bca,
        IntervalMethod::Studentized,
    ] {
        let config = PairedConfig {
            bootstrap: BootstrapConfig {
                method,
                ..config(1)
            },
            estimator: PairedEstimator::MeanDifference,
            higher_is_better: false,
            ..PairedConfig::default()
        };
        let p = paired_analysis(&base, &cand, &config).unwrap();
        let d = p.difference_ci.unwrap();
        assert!(d.low > 550.0 && d.high < 670.0, "{method:?}: {d:?}");
        assert!(p.ratio_ci.unwrap().low > 1.8, "{method:?}");
    }
}

#[test]
fn appendix_f_unpaired_interval_is_wider_on_the_null_pair() {
    // The appendix's contrast: resampling runs as if from two unpaired sessions discards
    // the block pairing, which on the null pair widens the interval.
    let f = fixture();
    let (base, cand) = samples(&f, "null_effect");
    let paired =
        block_bootstrap(&base, &cand, PairedEstimator::MeanDifference, &config(1)).unwrap();
    let unpaired = unpaired_bootstrap_difference(&base, &cand, &config(1)).unwrap();
    assert_close(
        unpaired.estimate,
        paired.estimate,
        1e-12,
        "same point estimate",
    );
    assert!(
        unpaired.high - unpaired.low > paired.high - paired.low,
        "unpaired {unpaired:?} vs paired {paired:?}"
    );
}
