//! The suite layer: its corrections against SciPy, and its error rates by simulation.
//!
//! Calibration: A/A suites of 20 and 50 benchmarks (every benchmark its own simulated
//! session of the `shared-vm` machine, 12 ABBA blocks): the share of suites with any
//! FASTER or SLOWER benchmark must stay at or below alpha with Holm, and with
//! Benjamini-Hochberg (under A/A every discovery is false, so the false discovery rate is
//! that same share); uncorrected, the share is far above alpha, which shows the check can
//! fail. With real changes in some benchmarks, BH's false discovery proportion averages
//! at most alpha.

use crate::support::{EXACT_REL, assert_close};
use bench_lab::sim::{NoiseProfile, SimDesign, simulate};
use bench_stats::suite::{
    Correction, SuiteConfig, analyze_suite, benjamini_hochberg, split_by_class,
};
use bench_stats::{AnalysisConfig, Dataset, Design, Outcome, Series};
use serde_json::Value;

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/scipy/suite.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn options(v: &Value) -> Vec<Option<f64>> {
    v.as_array().unwrap().iter().map(Value::as_f64).collect()
}

#[test]
fn scipy_false_discovery_control_bh_cases() {
    let r = reference();
    let cases = r["bh"].as_array().unwrap();
    assert!(cases.len() >= 50);
    for (i, c) in cases.iter().enumerate() {
        let p = options(&c["p"]);
        let want = options(&c["adjusted"]);
        let got = benjamini_hochberg(&p);
        for (j, (g, w)) in got.iter().zip(&want).enumerate() {
            match (g, w) {
                (Some(g), Some(w)) => assert_close(*g, *w, EXACT_REL, &format!("bh {i}[{j}]")),
                (None, None) => {}
                _ => panic!("bh {i}[{j}]: got {g:?}, expected {w:?}"),
            }
        }
        let level = Correction::BenjaminiHochberg.levels(&p, 0.05);
        let want_level = c["level_at_0.05"].as_f64().unwrap();
        for l in level {
            assert_close(l, want_level, EXACT_REL, &format!("bh level {i}"));
        }
    }
}

/// A simulated suite: `effects[k]` is benchmark k's true ratio (1 = A/A).
fn suite(effects: &[f64], blocks: u32, seed: u64) -> Dataset {
    let profile = NoiseProfile::SharedVm.config();
    let mut series = Vec::new();
    for (k, &effect) in effects.iter().enumerate() {
        let e = simulate(
            &profile.with_effect(effect),
            SimDesign::Abba,
            blocks,
            seed.wrapping_mul(1000).wrapping_add(k as u64),
        );
        for s in e.dataset.series {
            let mut renamed = Series::new(format!("b{k}/{}", s.name), s.observations);
            renamed.class = Some(format!("b{k}"));
            series.push(renamed);
        }
    }
    Dataset::new("ms", series).with_design(Design::Abba)
}

fn config(correction: Correction) -> SuiteConfig {
    let analysis = AnalysisConfig {
        resamples: 200,
        paired_estimator: bench_stats::PairedEstimator::HodgesLehmannMinLogRatio,
        ..AnalysisConfig::default()
    };
    SuiteConfig::new(analysis, correction)
}

/// Per suite: (false discoveries, discoveries).
fn discoveries(effects: &[f64], suites: u64, correction: Correction) -> Vec<(usize, usize)> {
    (0..suites)
        .map(|seed| {
            let data = suite(effects, 12, seed + 1);
            let report = analyze_suite(&split_by_class(&data), &config(correction)).unwrap();
            let mut false_ones = 0;
            let mut all = 0;
            for (k, b) in report.benchmarks.iter().enumerate() {
                let c = &b.analysis.groups[0].comparisons[0];
                if matches!(c.outcome, Outcome::Faster | Outcome::Slower) {
                    all += 1;
                    if effects[k] == 1.0 {
                        false_ones += 1;
                    }
                }
            }
            (false_ones, all)
        })
        .collect()
}

fn share_with_any(found: &[(usize, usize)]) -> f64 {
    found.iter().filter(|f| f.0 > 0).count() as f64 / found.len() as f64
}

#[test]
fn a_a_suites_of_20_and_50_keep_any_false_change_at_alpha_with_holm_and_bh() {
    // 150 suites: the Monte Carlo SD of a 5% rate is 1.8 points; the bound is alpha plus
    // two of them.
    let mut fig = bench_docs::Figure::new(
        "docs/ci.md",
        "cargo test -p bench-stats --test integration suite::a_a_suites -- --nocapture",
    );
    let suites = 150;
    for m in [20usize, 50] {
        let effects = vec![1.0; m];
        let holm = share_with_any(&discoveries(&effects, suites, Correction::Holm));
        let bh = share_with_any(&discoveries(
            &effects,
            suites,
            Correction::BenjaminiHochberg,
        ));
        fig.line(format!(
            "A/A suites of {m}: any false change: holm {holm:.3}, bh {bh:.3}"
        ));
        assert!(holm <= 0.05 + 0.036, "holm, {m} benchmarks: {holm}");
        assert!(bh <= 0.05 + 0.036, "bh, {m} benchmarks: {bh}");
    }
    // Uncorrected, twenty benchmarks at 5% each flag something in most suites.
    let none = share_with_any(&discoveries(&[1.0; 20], 60, Correction::None));
    fig.line(format!("A/A suites of 20, uncorrected: {none:.3}"));
    assert!(none > 0.25, "uncorrected: {none}");
    fig.check();
}

#[test]
fn bh_false_discovery_proportion_averages_at_most_alpha_with_real_changes() {
    // 40 benchmarks, 8 of them 15% slower.
    let mut effects = vec![1.0; 40];
    for e in effects.iter_mut().take(8) {
        *e = 1.15;
    }
    let found = discoveries(&effects, 80, Correction::BenjaminiHochberg);
    let fdp: f64 = found
        .iter()
        .map(|&(f, a)| if a == 0 { 0.0 } else { f as f64 / a as f64 })
        .sum::<f64>()
        / found.len() as f64;
    let power: f64 = found
        .iter()
        .map(|&(f, a)| (a - f) as f64 / 8.0)
        .sum::<f64>()
        / 80.0;
    let mut fig = bench_docs::Figure::new(
        "docs/ci.md",
        "cargo test -p bench-stats --test integration suite::bh_false_discovery -- --nocapture",
    );
    fig.line(format!(
        "BH with 8 of 40 changed: mean FDP {fdp:.3}, power {power:.3}"
    ));
    assert!(fdp <= 0.05 + 0.02, "mean false discovery proportion {fdp}");
    assert!(power > 0.5, "the changed benchmarks are found: {power}");
    fig.check();
}

#[test]
fn the_geometric_mean_of_a_suite_is_the_mean_of_its_log_ratios_with_a_covering_interval() {
    let effects = [1.05, 1.0, 0.97, 1.02];
    let data = suite(&effects, 20, 7);
    let report = analyze_suite(
        &split_by_class(&data),
        &config(Correction::BenjaminiHochberg),
    )
    .unwrap();
    let g = report.geometric_mean.unwrap();
    let ratios: Vec<f64> = report
        .benchmarks
        .iter()
        .map(|b| b.analysis.groups[0].comparisons[0].ratio.unwrap())
        .collect();
    let expected = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
    // Each benchmark's ratio is the default estimator's (Hodges-Lehmann of its block
    // log-ratios on the block summary), the same quantity the geometric mean averages.
    assert_close(g.ratio, expected, 1e-9, "geometric mean");
    let ci = g.ci.unwrap();
    assert!(ci[0] < g.ratio && g.ratio < ci[1]);
    let truth = (effects.iter().map(|e: &f64| e.ln()).sum::<f64>() / 4.0).exp();
    assert!(ci[0] < truth && truth < ci[1], "{ci:?} vs {truth}");
    assert_eq!(g.blocks, 20);
    assert_eq!(g.benchmarks, 4);
    let counted = report.counts.faster
        + report.counts.slower
        + report.counts.equivalent
        + report.counts.inconclusive;
    assert_eq!(counted, 4);
}

#[test]
fn each_benchmark_is_decided_at_its_level_with_an_interval_at_that_level() {
    let mut effects = vec![1.0; 10];
    effects[0] = 1.2;
    let data = suite(&effects, 16, 3);
    let report = analyze_suite(&split_by_class(&data), &config(Correction::Holm)).unwrap();
    for b in &report.benchmarks {
        assert_eq!(b.levels.len(), 1);
        let level = b.levels[0];
        assert!(level <= 0.05 + 1e-15);
        assert_close(
            b.analysis.alpha,
            level,
            1e-12,
            "alpha of the benchmark's analysis",
        );
        let p = b.p_values_adjusted[0].unwrap();
        let c = &b.analysis.groups[0].comparisons[0];
        let changed = matches!(c.outcome, Outcome::Faster | Outcome::Slower);
        if changed {
            assert!(p <= 0.05, "{}: changed at adjusted p {p}", b.name);
        }
    }
    assert_eq!(
        report.benchmarks[0].analysis.groups[0].comparisons[0].outcome,
        Outcome::Slower
    );
}
