//! The whole analysis, end to end from a `Dataset`: verdicts, outcomes, gates, JSON.

use std::sync::Mutex;

use bench_stats::analysis::{
    EffectSize, PairwiseComparison, SignificanceContext, SignificanceReport,
};
use bench_stats::model::report::ShiftReport;
use bench_stats::{
    AnalysisConfig, Dataset, Grouping, Observation, Outcome, PairedEstimator, Series,
    SignificanceTest, Verdict, VerdictBasis, analyze, analyze_with,
};

fn appendix() -> serde_json::Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/appendix/appendix_f.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn values(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn blocked(name: &str, values: &[f64]) -> Series {
    Series::new(
        name,
        values
            .iter()
            .enumerate()
            .map(|(b, &value)| Observation::in_block(value, b as u32)),
    )
}

fn unblocked(name: &str, class: Option<&str>, values: &[f64]) -> Series {
    let s = Series::new(name, values.iter().map(|&value| Observation::new(value)));
    match class {
        Some(c) => s.with_class(c),
        None => s,
    }
}

/// `design` is a design name, or anything else (`"csv"`) for an unknown design.
fn dataset(series: Vec<Series>, higher_is_better: bool, design: &str) -> Dataset {
    let unit = if higher_is_better { "Mops/s" } else { "ns" };
    let data = Dataset::new(unit, series).with_higher_is_better(higher_is_better);
    match design.parse() {
        Ok(d) => data.with_design(d),
        Err(_) => data,
    }
}

fn appendix_pair(key: &str) -> Dataset {
    let a = appendix();
    let e = &a[key];
    dataset(
        vec![
            blocked(
                e["baseline"].as_str().unwrap(),
                &values(&e["baseline_values"]),
            ),
            blocked(
                e["candidate"].as_str().unwrap(),
                &values(&e["candidate_values"]),
            ),
        ],
        true,
        "random",
    )
}

#[test]
fn appendix_f_real_effect_is_faster_with_paired_figures() {
    let analysis = analyze(&appendix_pair("real_effect"), &AnalysisConfig::default()).unwrap();
    let c = &analysis.groups[0].comparisons[0];
    assert_eq!(c.verdict, Verdict::Significant);
    assert_eq!(c.outcome, Outcome::Faster);
    let p = c.paired.as_ref().unwrap();
    assert_eq!(p.blocks, 12);
    assert!(
        (p.mean_difference - 609.3).abs() < 0.05,
        "{}",
        p.mean_difference
    );
    let [lo, hi] = p.difference_ci.unwrap();
    assert!(
        (lo - 599.1).abs() < 3.0 && (hi - 621.4).abs() < 3.0,
        "[{lo}, {hi}]"
    );
    let r = c.ratio.unwrap();
    assert!(r > 1.8 && r < 1.9, "{r}");
    assert!(c.summary.contains("faster"), "{}", c.summary);
}

#[test]
fn appendix_f_null_pair_is_not_significant_and_equivalent_within_one_percent() {
    let analysis = analyze(&appendix_pair("null_effect"), &AnalysisConfig::default()).unwrap();
    let c = &analysis.groups[0].comparisons[0];
    assert_eq!(c.verdict, Verdict::NotSignificant);
    assert_eq!(c.outcome, Outcome::Equivalent, "{}", c.summary);
    let [lo, hi] = c.ratio_ci.unwrap();
    assert!(lo < 1.0 && hi > 1.0);
}

#[test]
fn sequential_design_is_analyzed_unpaired_with_a_warning() {
    let mut data = appendix_pair("real_effect");
    data.design = Some(bench_stats::Design::Sequential);
    let analysis = analyze(&data, &AnalysisConfig::default()).unwrap();
    let c = &analysis.groups[0].comparisons[0];
    assert!(c.paired.is_none());
    assert_eq!(c.verdict_basis, "mann-whitney");
    assert!(
        analysis
            .warnings
            .iter()
            .any(|w| w.code == "unpaired-design")
    );
}

#[test]
fn nbenchmark_three_groups_report_the_omnibus_and_gate_post_hoc() {
    let data = dataset(
        vec![
            unblocked("a", None, &[1.0, 2.0, 3.0]),
            unblocked("b", None, &[4.0, 5.0, 6.0]),
            unblocked("c", None, &[7.0, 8.0, 9.0]),
        ],
        false,
        "csv",
    );
    let analysis = analyze(&data, &AnalysisConfig::default()).unwrap();
    let g = &analysis.groups[0];
    let omnibus = g.omnibus.unwrap();
    assert!((omnibus.statistic - 7.2).abs() < 1e-12);
    assert!((omnibus.p_value - 0.02732372244729256).abs() < 1e-9);
    assert!(omnibus.significant);
    // Post-hoc exact MWU p = 0.1 for 3 vs 3 fully separated: Holm keeps both at 0.2.
    for c in &g.comparisons {
        assert_eq!(c.verdict, Verdict::NotSignificant);
        assert!((c.p_value_adjusted.unwrap() - 0.2).abs() < 1e-12);
    }
}

#[test]
fn omnibus_not_significant_leaves_candidates_not_tested() {
    let data = dataset(
        vec![
            unblocked("a", None, &[1.0, 5.0, 9.0, 3.0]),
            unblocked("b", None, &[2.0, 6.0, 8.0, 4.0]),
            unblocked("c", None, &[1.5, 5.5, 8.5, 3.5]),
        ],
        false,
        "csv",
    );
    let analysis = analyze(&data, &AnalysisConfig::default()).unwrap();
    let g = &analysis.groups[0];
    assert!(!g.omnibus.unwrap().significant);
    assert!(
        g.comparisons
            .iter()
            .all(|c| c.verdict == Verdict::NotTested)
    );
    assert!(g.comparisons.iter().all(|c| c.p_value_adjusted.is_none()));
}

#[test]
fn practical_gate_downgrades_a_negligible_significant_difference_and_warns() {
    // Two large interleaved samples whose shift is real but tiny against the spread.
    let n = 4000;
    let a: Vec<f64> = (0..n)
        .map(|i| 100.0 + ((i * 7919) % 1000) as f64 / 10.0)
        .collect();
    let b: Vec<f64> = a.iter().map(|v| v + 3.0).collect();
    let data = dataset(
        vec![unblocked("a", None, &a), unblocked("b", None, &b)],
        false,
        "csv",
    );
    let gated = analyze(&data, &AnalysisConfig::default()).unwrap();
    let c = &gated.groups[0].comparisons[0];
    assert!(c.mann_whitney.as_ref().unwrap().p_value < 0.05);
    assert_eq!(c.verdict, Verdict::NotSignificant);
    assert_eq!(c.cliffs_delta.as_ref().unwrap().magnitude, "negligible");
    assert!(gated.warnings.iter().any(|w| w.code == "practical-gate"));

    let off = AnalysisConfig {
        min_practical_effect: 0.0,
        ..AnalysisConfig::default()
    };
    let ungated = analyze(&data, &off).unwrap();
    assert_eq!(
        ungated.groups[0].comparisons[0].verdict,
        Verdict::Significant
    );
    assert_eq!(ungated.groups[0].comparisons[0].outcome, Outcome::Slower);
}

#[test]
fn per_class_groups_and_cross_class_single_table() {
    let data = dataset(
        vec![
            unblocked("legacy", Some("Parser"), &[10.0, 11.0, 12.0, 10.5]),
            unblocked("new", Some("Parser"), &[8.0, 8.5, 9.0, 8.2]),
            unblocked("old", Some("Writer"), &[5.0, 5.1, 5.2, 5.3]),
            unblocked("fast", Some("Writer"), &[4.0, 4.1, 4.2, 4.3]),
        ],
        false,
        "csv",
    );
    let per = analyze(&data, &AnalysisConfig::default()).unwrap();
    assert_eq!(per.groups.len(), 2);
    assert_eq!(per.groups[1].class.as_deref(), Some("Writer"));
    assert_eq!(per.groups[1].baseline, "old");
    let cross = AnalysisConfig {
        grouping: Grouping::CrossClass,
        ..AnalysisConfig::default()
    };
    let one = analyze(&data, &cross).unwrap();
    assert_eq!(one.groups.len(), 1);
    assert_eq!(one.groups[0].benchmarks.len(), 4);
    assert_eq!(one.groups[0].benchmarks[2].class.as_deref(), Some("Writer"));
}

#[derive(Debug)]
struct AlwaysSignificant;

impl SignificanceTest for AlwaysSignificant {
    fn name(&self) -> &str {
        "always"
    }
    fn analyze(&self, ctx: &SignificanceContext<'_>) -> SignificanceReport {
        let pairwise = ctx
            .candidates()
            .map(|i| {
                PairwiseComparison::new(ctx.groups[i].name, Verdict::Significant).with_effect(
                    EffectSize::new("always", 0.01, "negligible").with_practical_value(0.01),
                )
            })
            .collect();
        SignificanceReport::new(pairwise)
    }
}

#[test]
fn custom_tests_are_gated_by_the_engine_too() {
    let data = dataset(
        vec![
            unblocked("a", None, &[1.0, 2.0, 3.0]),
            unblocked("b", None, &[1.0, 2.0, 3.5]),
        ],
        false,
        "csv",
    );
    let analysis =
        analyze_with(&data, &AnalysisConfig::default(), Some(&AlwaysSignificant)).unwrap();
    let c = &analysis.groups[0].comparisons[0];
    assert_eq!(c.verdict_basis, "always");
    assert_eq!(c.verdict, Verdict::NotSignificant);
    assert!(analysis.warnings.iter().any(|w| w.code == "practical-gate"));
}

/// A custom test that records the blocks it was given and answers with a fixed p-value,
/// shift and effect per candidate (the candidate's position as the shift).
#[derive(Debug, Default)]
struct Recording {
    blocks_seen: Mutex<Vec<Vec<f64>>>,
}

impl SignificanceTest for Recording {
    fn name(&self) -> &str {
        "recording"
    }
    fn analyze(&self, ctx: &SignificanceContext<'_>) -> SignificanceReport {
        if let Some(blocks) = ctx.blocks {
            self.blocks_seen
                .lock()
                .unwrap()
                .extend(blocks.iter().cloned());
        }
        let pairwise = ctx
            .candidates()
            .map(|i| {
                PairwiseComparison::new(ctx.groups[i].name, Verdict::Significant)
                    .with_p_value(0.001 * i as f64)
                    .with_shift(ShiftReport {
                        shift: i as f64,
                        ci_low: Some(i as f64 - 0.5),
                        ci_high: None,
                    })
                    .with_effect(EffectSize::new("custom-metric", 0.75, "large"))
            })
            .collect();
        SignificanceReport::new(pairwise)
    }
}

#[test]
fn custom_test_on_blocked_data_sees_the_blocks_and_its_answer_is_reported() {
    let data = dataset(
        vec![
            blocked("old", &[10.0, 11.0, 12.0, 13.0]),
            blocked("new", &[9.0, 10.5, 11.0, 12.5]),
        ],
        false,
        "abba",
    );
    let test = Recording::default();
    let analysis = analyze_with(&data, &AnalysisConfig::default(), Some(&test)).unwrap();
    // Called with the per-block values: [old, new] in each of the 4 blocks.
    let seen = test.blocks_seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![
            vec![10.0, 9.0],
            vec![11.0, 10.5],
            vec![12.0, 11.0],
            vec![13.0, 12.5],
        ]
    );
    let c = &analysis.groups[0].comparisons[0];
    assert_eq!(c.verdict_basis, VerdictBasis::Custom("recording".into()));
    assert_eq!(c.verdict, Verdict::Significant);
    assert!(c.paired.is_some(), "the paired detail is still reported");
    let custom = c
        .custom_test
        .as_ref()
        .expect("the custom test's answer is reported");
    assert_eq!(custom.name, "recording");
    assert_eq!(custom.p_value, Some(0.001));
    let shift = custom.shift.expect("shift reported");
    assert_eq!(
        (shift.shift, shift.ci_low, shift.ci_high),
        (1.0, Some(0.5), None)
    );
    let effect = custom.effect.as_ref().expect("effect reported");
    assert_eq!(
        (
            effect.metric.as_str(),
            effect.value,
            effect.magnitude.as_str()
        ),
        ("custom-metric", 0.75, "large")
    );
    let json = serde_json::to_value(&analysis).unwrap();
    assert_eq!(
        json["groups"][0]["comparisons"][0]["custom_test"]["p_value"],
        0.001
    );
}

#[test]
fn built_in_comparisons_serialize_no_custom_test_field() {
    let analysis = analyze(&appendix_pair("real_effect"), &AnalysisConfig::default()).unwrap();
    let c = &analysis.groups[0].comparisons[0];
    assert_eq!(c.custom_test, None);
    let json = serde_json::to_value(&analysis).unwrap();
    let fields = json["groups"][0]["comparisons"][0].as_object().unwrap();
    assert!(!fields.contains_key("custom_test"), "{fields:?}");
    // And a document without the field reads back (to the same document: remedies are
    // not serialized, so the structs themselves may differ).
    let back: bench_stats::Analysis = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back.groups[0].comparisons[0].custom_test, None);
    assert_eq!(serde_json::to_value(&back).unwrap(), json);
}

/// Regression: the Friedman post-hoc once took a candidate's column by its name, so in
/// cross-class mode a candidate named like another class's variant was tested on the
/// wrong column (and `old` of the second class on the baseline's own column: not tested).
#[test]
fn friedman_post_hoc_in_cross_class_mode_tests_each_candidate_on_its_own_column() {
    let blocks = 12;
    let series = |name: &str, class: &str, base: f64| {
        Series::new(
            name,
            (0..blocks).map(|b| Observation::in_block(base + f64::from(b % 4) * 0.1, b)),
        )
        .with_class(class)
    };
    let data = dataset(
        vec![
            series("old", "Reader", 100.0),
            series("new", "Reader", 100.05),
            // Same names as the first class, clearly different values.
            series("old", "Writer", 150.0),
            series("new", "Writer", 50.0),
        ],
        false,
        "abba",
    );
    let config = AnalysisConfig {
        grouping: Grouping::CrossClass,
        ..AnalysisConfig::default()
    };
    let analysis = analyze(&data, &config).unwrap();
    let g = &analysis.groups[0];
    assert_eq!(g.comparisons.len(), 3);
    assert!(g.omnibus.is_some_and(|o| o.significant), "{:?}", g.omnibus);
    for (c, row) in g.comparisons_with_rows() {
        assert_eq!(c.verdict_basis, VerdictBasis::Friedman);
        assert_ne!(
            c.verdict,
            Verdict::NotTested,
            "{} {:?}",
            c.candidate,
            row.unwrap().class
        );
        assert!(c.p_value_adjusted.is_some(), "{}", c.candidate);
    }
    // Writer/old (named like the baseline) is slower, Writer/new faster: each from its own
    // column. Every block orders them the same way, so both are significant.
    let writer: Vec<_> = g
        .comparisons_with_rows()
        .filter(|(_, row)| row.unwrap().class.as_deref() == Some("Writer"))
        .map(|(c, _)| c)
        .collect();
    assert_eq!(writer.len(), 2);
    assert_eq!(writer[0].candidate, "old");
    assert_eq!(writer[0].outcome, Outcome::Slower);
    assert_eq!(writer[1].candidate, "new");
    assert_eq!(writer[1].outcome, Outcome::Faster);
}

#[test]
fn bad_settings_and_unknown_baselines_are_typed_errors() {
    let data = appendix_pair("real_effect");
    let bad = AnalysisConfig {
        min_practical_effect: 1.5,
        ..AnalysisConfig::default()
    };
    assert!(analyze(&data, &bad).is_err());
    let unknown = AnalysisConfig {
        baseline: Some("nope".into()),
        ..AnalysisConfig::default()
    };
    assert!(analyze(&data, &unknown).is_err());
}

#[test]
fn degenerate_inputs_give_not_tested_and_json_without_nan() {
    let cases = vec![
        vec![unblocked("a", None, &[1.0]), unblocked("b", None, &[2.0])],
        vec![
            unblocked("a", None, &[5.0; 6]),
            unblocked("b", None, &[5.0; 6]),
        ],
        vec![
            unblocked("a", None, &[1e-300, 2e-300]),
            unblocked("b", None, &[1e300, 2e300]),
        ],
        vec![
            blocked("a", &[0.0, 0.0, 0.0]),
            blocked("b", &[-1.0, 1.0, 0.0]),
        ],
    ];
    for series in cases {
        let analysis =
            analyze(&dataset(series, false, "abba"), &AnalysisConfig::default()).unwrap();
        let json = serde_json::to_string(&analysis).unwrap();
        assert!(!json.contains("NaN") && !json.contains("inf"), "{json}");
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["schema"], "abba.analysis/1");
    }
}

#[test]
fn same_seed_same_analysis_different_seed_different_intervals() {
    let data = appendix_pair("null_effect");
    let a = analyze(&data, &AnalysisConfig::default()).unwrap();
    let b = analyze(&data, &AnalysisConfig::default()).unwrap();
    assert_eq!(a, b);
    let other = AnalysisConfig {
        seed: 99,
        ..AnalysisConfig::default()
    };
    let c = analyze(&data, &other).unwrap();
    let ci = |x: &bench_stats::Analysis| {
        x.groups[0].comparisons[0]
            .paired
            .as_ref()
            .unwrap()
            .difference_ci
    };
    assert_ne!(ci(&a), ci(&c));
}

#[test]
fn very_many_blocks_use_large_sample_intervals_that_still_cover() {
    use bench_stats::paired::{LARGE_SAMPLE_BLOCKS, PairedConfig, paired_analysis};
    use bench_stats::resample::IntervalMethod;
    use bench_stats::{PairedEstimator, Sample};
    // Deterministic pseudo-noise; candidate is baseline x 1.05 plus independent noise.
    let n = LARGE_SAMPLE_BLOCKS + 5000;
    let mut x: u64 = 7;
    let mut noise = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let base: Vec<f64> = (0..n).map(|_| 100.0 + 10.0 * noise()).collect();
    let cand: Vec<f64> = base.iter().map(|b| b * 1.05 + 2.0 * noise()).collect();
    for estimator in [
        PairedEstimator::MeanDifference,
        PairedEstimator::RatioOfMeans,
        PairedEstimator::MedianLogRatio,
    ] {
        let config = PairedConfig {
            estimator,
            ..PairedConfig::default()
        };
        let p = paired_analysis(
            &Sample::new(&base).unwrap(),
            &Sample::new(&cand).unwrap(),
            &config,
        )
        .unwrap();
        let (point, ci) = p.primary();
        let ci = ci.as_ref().unwrap();
        assert_eq!(ci.method, IntervalMethod::LargeSample);
        assert_eq!(ci.resamples, 0);
        let truth = if estimator == PairedEstimator::MeanDifference {
            5.0
        } else {
            1.05
        };
        let point = point.unwrap();
        assert!(ci.low <= point && point <= ci.high);
        let width = ci.high - ci.low;
        assert!(
            (point - truth).abs() < 2.0 * width,
            "{estimator:?}: {point} vs {truth}, ci {ci:?}"
        );
        assert!(
            width < 0.02 * truth.abs().max(1.0),
            "{estimator:?}: too wide {ci:?}"
        );
    }
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn value() -> impl Strategy<Value = f64> {
        prop_oneof![
            4 => 1.0..1000.0f64,
            1 => Just(5.0),
            1 => prop_oneof![Just(1e-300), Just(1e300), Just(-3.0), Just(0.0)],
            1 => -1e6..1e6f64,
        ]
    }

    fn dataset_strategy() -> impl Strategy<Value = Dataset> {
        (
            2usize..5,
            1usize..16,
            any::<bool>(),
            any::<bool>(),
            proptest::collection::vec(value(), 64..65),
        )
            .prop_map(|(k, n, blocked, classes, pool)| {
                let series = (0..k)
                    .map(|v| {
                        let s = Series::new(
                            format!("v{v}"),
                            (0..n).map(|i| {
                                let value = pool[(v * 17 + i * 5) % pool.len()];
                                if blocked {
                                    Observation::in_block(value, i as u32).at_position(v as u32)
                                } else {
                                    Observation::new(value)
                                }
                            }),
                        );
                        if classes {
                            s.with_class(format!("c{}", v % 2))
                        } else {
                            s
                        }
                    })
                    .collect();
                dataset(series, classes, if blocked { "abba" } else { "csv" })
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Any finite data: an analysis (never a panic), and JSON without NaN or infinities.
        #[test]
        fn analyze_never_panics_and_never_writes_nan(data in dataset_strategy()) {
            let config = AnalysisConfig { resamples: 200, ..AnalysisConfig::default() };
            let analysis = analyze(&data, &config).expect("finite data always analyzes");
            let json = serde_json::to_string(&analysis).unwrap();
            prop_assert!(!json.contains("NaN") && !json.contains("inf"), "{}", json);
            for g in &analysis.groups {
                for c in &g.comparisons {
                    if let Some(p) = c.mann_whitney.as_ref().map(|m| m.p_value) {
                        prop_assert!((0.0..=1.0).contains(&p));
                    }
                    if let Some([lo, hi]) = c.ratio_ci {
                        prop_assert!(lo <= hi);
                    }
                }
            }
        }
    }
}

#[test]
fn too_few_blocks_for_any_paired_test_are_not_tested() {
    // B beats A in every one of 4 blocks, one value of each per block. The default (the
    // typical run, alone with one run per block: an exact swap test at alpha) and the
    // signed-rank test of the block values cannot go below 2 / 16 and need 6.
    let four = dataset(
        vec![
            blocked("a", &[10.0, 11.0, 10.5, 10.2]),
            blocked("b", &[12.0, 14.0, 13.0, 13.5]),
        ],
        false,
        "abba",
    );
    let signed_rank = AnalysisConfig {
        paired_estimator: PairedEstimator::HodgesLehmannMinLogRatio,
        ..AnalysisConfig::default()
    };
    for (config, needs) in [(AnalysisConfig::default(), 6), (signed_rank.clone(), 6)] {
        let analysis = analyze(&four, &config).unwrap();
        let c = &analysis.groups[0].comparisons[0];
        assert_eq!(c.verdict, Verdict::NotTested);
        assert_eq!(c.outcome, Outcome::Inconclusive);
        assert!(
            c.summary.contains(&format!("at least {needs}")),
            "{}",
            c.summary
        );
    }
    // Six blocks all in one direction can be significant for both.
    let a = [10.0, 11.0, 10.5, 10.2, 10.1, 10.9, 10.4];
    let b = [12.0, 14.0, 13.0, 13.5, 12.2, 13.3, 12.8];
    for (config, n) in [(signed_rank, 6), (AnalysisConfig::default(), 6)] {
        let data = dataset(
            vec![blocked("a", &a[..n]), blocked("b", &b[..n])],
            false,
            "abba",
        );
        let analysis = analyze(&data, &config).unwrap();
        assert_eq!(
            analysis.groups[0].comparisons[0].verdict,
            Verdict::Significant,
            "{n} blocks"
        );
    }
}

/// A scan's series carry their parameter; the group reports Page's L across it, in the
/// parameter's order (not the series' order), and only when every series has one.
#[test]
fn page_trend_across_a_scanned_parameter() {
    use bench_stats::model::report::{TrendDirection, TrendTest};
    // Given out of order (4, 1, 3, 2): values fall as n grows, with block-level noise.
    let make = |n: f64| {
        let vals: Vec<f64> = (0..6)
            .map(|b| 100.0 - 5.0 * n + f64::from(b % 3) * 7.0)
            .collect();
        blocked(&format!("n={n}"), &vals).with_parameter("n", n)
    };
    let series = vec![make(4.0), make(1.0), make(3.0), make(2.0)];
    let a = analyze(
        &dataset(series.clone(), false, "abba"),
        &AnalysisConfig::default(),
    )
    .unwrap();
    let t = a.groups[0].trend.as_ref().expect("a trend for a scan");
    assert_eq!(t.test, TrendTest::PageL);
    assert_eq!(t.parameter, "n");
    assert_eq!(t.values, vec![1.0, 2.0, 3.0, 4.0]);
    assert_eq!(t.direction, TrendDirection::Decreasing);
    assert_eq!(t.method, "exact");
    // Every block ranks the four perfectly reversed: L = 6 * (1*4 + 2*3 + 3*2 + 4*1).
    assert_eq!(t.statistic, 120.0);
    assert!(t.significant && t.p_value < 1e-4);
    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json["groups"][0]["trend"]["test"], "page-l");
    assert_eq!(json["groups"][0]["trend"]["direction"], "decreasing");

    // Without parameters, or unpaired: no trend, and no field in the JSON.
    let plain: Vec<Series> = series
        .iter()
        .map(|s| Series::new(s.name.clone(), s.observations.clone()))
        .collect();
    let b = analyze(&dataset(plain, false, "abba"), &AnalysisConfig::default()).unwrap();
    assert!(b.groups[0].trend.is_none());
    assert!(
        serde_json::to_value(&b).unwrap()["groups"][0]
            .get("trend")
            .is_none()
    );
    let c = analyze(
        &dataset(series, false, "sequential"),
        &AnalysisConfig::default(),
    )
    .unwrap();
    assert!(c.groups[0].trend.is_none());
}

/// For throughputs the default's "fastest run" of a block is its largest value: a run
/// slowed by the machine (a lower throughput) does not move the block.
#[test]
fn the_default_summarizes_throughput_blocks_by_their_best_run() {
    use bench_stats::{Design, Observation, Series};
    let series = |name: &str, best: f64| {
        Series::new(
            name,
            (0..10u32).flat_map(move |b| {
                let slowed = best * (0.6 + 0.02 * f64::from(b % 5));
                [
                    Observation::in_block(best, b),
                    Observation::in_block(slowed, b),
                ]
            }),
        )
    };
    let data = Dataset::new("ops/s", vec![series("A", 1000.0), series("B", 1100.0)])
        .with_design(Design::Abba)
        .with_higher_is_better(true);
    let a = analyze(&data, &AnalysisConfig::default()).unwrap();
    let c = &a.groups[0].comparisons[0];
    assert!((c.ratio.unwrap() - 1.1).abs() < 1e-9, "{:?}", c.ratio);
    let ci = c.ratio_ci.unwrap();
    assert!(ci[0] > 1.09 && ci[1] < 1.11, "{ci:?}");
}
