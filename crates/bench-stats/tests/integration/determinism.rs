//! Statistics on deterministic data (instruction counts, issue 27): counts can be
//! identical in every block, or differ by the same amount in every block. Every paired
//! estimator must then decide what the data show exactly: identical A/A counts are
//! EQUIVALENT with a zero-width interval at 1, a constant difference is significant as
//! soon as the blocks can reach alpha (6 at 0.05: the exact signed-rank p of 6 positive
//! differences is 2/2^6 = 0.03125, `scipy.stats.wilcoxon([1] * 6).pvalue`), and every
//! interval has the data's exact width. The tests hold for every estimator, so they do
//! not depend on which one is the default. Counts proper (`instructions`) with no spread
//! at all are decided exactly, without these estimators (`verdicts.rs`,
//! `identical_counts_in_every_run_are_decided_exactly_at_any_block_count`), so the data
//! here are a deterministic value that is not a counter's (`steps`), which keeps the
//! statistical path.

use bench_stats::sequential::{SequenceMethod, SequentialRule, replay};
use bench_stats::{
    AnalysisConfig, Comparison, Dataset, Design, Observation, Outcome, PairedEstimator, Quantity,
    Series, Verdict, analyze,
};

/// `blocks` blocks of `runs` runs per variant: variant `k`'s run value is `values[k]` plus
/// `jitter(block, run)` (a few instructions of layout, or nothing).
fn counts(values: &[f64], blocks: u32, runs: u32, jitter: impl Fn(u32, u32) -> f64) -> Dataset {
    let names = ["A", "B", "C"];
    let series = values
        .iter()
        .zip(names)
        .map(|(&v, name)| {
            let obs: Vec<Observation> = (0..blocks)
                .flat_map(|b| (0..runs).map(move |r| (b, r)))
                .map(|(b, r)| Observation::in_block(v + jitter(b, r), b))
                .collect();
            Series::new(name, obs)
        })
        .collect();
    Dataset::new("steps", series)
        .with_design(Design::Abba)
        .with_quantity(Quantity::Named("steps".into()))
}

fn config(e: PairedEstimator) -> AnalysisConfig {
    AnalysisConfig {
        paired_estimator: e,
        ..AnalysisConfig::default()
    }
}

fn first(data: &Dataset, config: &AnalysisConfig) -> Comparison {
    analyze(data, config).unwrap().groups[0].comparisons[0].clone()
}

fn exact(ci: Option<[f64; 2]>, value: f64) -> bool {
    ci.is_some_and(|[lo, hi]| (lo - value).abs() < 1e-12 && (hi - value).abs() < 1e-12)
}

fn no_nan(c: &Comparison) {
    let text = serde_json::to_string(c).unwrap();
    assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
}

#[test]
fn identical_counts_are_equivalent_with_a_zero_width_interval_for_every_estimator() {
    for runs in [1, 2] {
        let data = counts(&[1.0e7, 1.0e7], 8, runs, |_, _| 0.0);
        // The typical run tests three quantiles at alpha / 3 (7 blocks at 0.05): its counts
        // are checked in its own tests (shape module, verdicts.rs).
        for e in PairedEstimator::ALL
            .into_iter()
            .filter(|e| *e != PairedEstimator::TypicalRun)
        {
            let c = first(&data, &config(e));
            let who = format!("{} with {runs} run(s) per block", e.as_str());
            assert_eq!(c.outcome, Outcome::Equivalent, "{who}: {}", c.summary);
            assert_eq!(c.verdict, Verdict::NotSignificant, "{who}: {}", c.summary);
            assert_eq!(c.ratio, Some(1.0), "{who}");
            assert!(exact(c.ratio_ci, 1.0), "{who}: {:?}", c.ratio_ci);
            let d = c.decision.as_ref().unwrap();
            assert!(exact(d.equivalence_ci, 1.0), "{who}: {d:?}");
            if let Some(p) = d.p_value {
                assert!(
                    (p - 1.0).abs() < 1e-12,
                    "{who}: no evidence of a change, p {p}"
                );
            }
            assert!(c.summary.contains("equivalent"), "{who}: {}", c.summary);
            no_nan(&c);
        }
    }
}

#[test]
fn a_constant_difference_of_five_hundredths_of_a_percent_is_significant_from_six_blocks() {
    let tight = |e| AnalysisConfig {
        equivalence_margin: 0.0001,
        ..config(e)
    };
    // The typical run tests three quantiles at alpha / 3 (7 blocks at 0.05): its counts
    // are checked in its own tests (shape module, verdicts.rs).
    for e in PairedEstimator::ALL
        .into_iter()
        .filter(|e| *e != PairedEstimator::TypicalRun)
    {
        let who = e.as_str();
        let five = first(&counts(&[1.0e7, 1.0005e7], 5, 2, |_, _| 0.0), &tight(e));
        assert_eq!(five.verdict, Verdict::NotTested, "{who}: {}", five.summary);
        assert!(
            five.summary.contains("needs at least 6"),
            "{who}: {}",
            five.summary
        );
        let six = first(&counts(&[1.0e7, 1.0005e7], 6, 2, |_, _| 0.0), &tight(e));
        assert_eq!(six.verdict, Verdict::Significant, "{who}: {}", six.summary);
        assert_eq!(six.outcome, Outcome::Slower, "{who}: {}", six.summary);
        if e == PairedEstimator::MeanDifference {
            // Its own interval is of the difference: exactly 5000 instructions.
            let p = six.paired.as_ref().unwrap();
            assert!(exact(p.difference_ci, 5000.0), "{:?}", p.difference_ci);
        }
        let value = 1.0005;
        assert!((six.ratio.unwrap() - value).abs() < 1e-12, "{who}");
        assert!(exact(six.ratio_ci, value), "{who}: {:?}", six.ratio_ci);
        if e.is_signed_rank() {
            let p = six.decision.as_ref().unwrap().p_value.unwrap();
            assert!((p - 0.03125).abs() < 1e-12, "{who}: {p}");
        }
        // The sentence shows the change, not "1.000x (0.0% more)".
        assert!(
            six.summary.contains("1.00050x") && six.summary.contains("0.050% more steps"),
            "{who}: {}",
            six.summary
        );
        // Under the default ±1% margin the same change is real but negligible.
        let default = first(&counts(&[1.0e7, 1.0005e7], 6, 2, |_, _| 0.0), &config(e));
        assert_eq!(default.verdict, Verdict::Significant, "{who}");
        assert_eq!(default.outcome, Outcome::Equivalent, "{who}");
        no_nan(&six);
    }
}

#[test]
fn alpha_sets_the_fewest_blocks_on_counts() {
    // ceil(log2(2 / 0.01)) = 8 blocks at alpha 0.01.
    // The typical run tests three quantiles at alpha / 3 (7 blocks at 0.05): its counts
    // are checked in its own tests (shape module, verdicts.rs).
    for e in PairedEstimator::ALL
        .into_iter()
        .filter(|e| *e != PairedEstimator::TypicalRun)
    {
        let at = |blocks| {
            let c = AnalysisConfig {
                alpha: 0.01,
                equivalence_margin: 0.0001,
                ..config(e)
            };
            first(&counts(&[1.0e7, 1.0005e7], blocks, 1, |_, _| 0.0), &c).outcome
        };
        assert_eq!(at(7), Outcome::Inconclusive, "{}", e.as_str());
        assert_eq!(at(8), Outcome::Slower, "{}", e.as_str());
    }
}

#[test]
fn layout_jitter_of_a_few_instructions_does_not_hide_half_a_percent() {
    // Environment sizes move a count by a few instructions: the +0.5% is decided anyway.
    let jitter = |b: u32, r: u32| f64::from((b * 7 + r * 3) % 11);
    // The typical run tests three quantiles at alpha / 3 (7 blocks at 0.05): its counts
    // are checked in its own tests (shape module, verdicts.rs).
    for e in PairedEstimator::ALL
        .into_iter()
        .filter(|e| *e != PairedEstimator::TypicalRun)
    {
        // The CLI's default margin for counts (0.1%): +0.5% is outside it.
        let counted = AnalysisConfig {
            equivalence_margin: 0.001,
            ..config(e)
        };
        let c = first(&counts(&[1.0e7, 1.005e7], 6, 2, jitter), &counted);
        assert_eq!(c.outcome, Outcome::Slower, "{}: {}", e.as_str(), c.summary);
        let [lo, hi] = c.ratio_ci.unwrap();
        assert!(lo > 1.0049 && hi < 1.0051, "{}: [{lo}, {hi}]", e.as_str());
        // A/A with the same jitter: equivalent, never significant.
        let aa = first(&counts(&[1.0e7, 1.0e7], 8, 2, jitter), &counted);
        assert_ne!(aa.verdict, Verdict::Significant, "{}", e.as_str());
        assert_eq!(
            aa.outcome,
            Outcome::Equivalent,
            "{}: {}",
            e.as_str(),
            aa.summary
        );
    }
}

#[test]
fn three_identical_variants_and_unpaired_identical_counts() {
    // The omnibus (Friedman) on all-tied blocks must not divide by zero.
    let data = counts(&[1.0e7, 1.0e7, 1.0e7], 8, 1, |_, _| 0.0);
    let a = analyze(&data, &AnalysisConfig::default()).unwrap();
    for c in &a.groups[0].comparisons {
        assert_ne!(c.verdict, Verdict::Significant, "{}", c.summary);
        no_nan(c);
    }
    let text = serde_json::to_string(&a).unwrap();
    assert!(!text.contains("NaN"), "{text}");
    // Unpaired (a sequential design): 10 identical runs each are equivalent.
    let series = |name: &str| Series::new(name, (0..10).map(|_| Observation::new(1.0e7)));
    let unpaired = Dataset::new("instructions", vec![series("A"), series("B")])
        .with_design(Design::Sequential)
        .with_quantity(Quantity::Named("instructions".into()));
    let c = first(&unpaired, &AnalysisConfig::default());
    assert_eq!(c.outcome, Outcome::Equivalent, "{}", c.summary);
    assert!(exact(c.ratio_ci, 1.0), "{:?}", c.ratio_ci);
    no_nan(&c);
}

#[test]
fn the_sequential_rule_stops_at_its_minimum_on_counts() {
    for method in [SequenceMethod::SignMedian, SequenceMethod::AsymptoticMean] {
        let rule = SequentialRule {
            method,
            ..SequentialRule::new(0.05, 0.001)
        };
        let min = rule.min_blocks as usize;
        let change = replay(&[1.005f64.ln(); 30], &rule);
        assert_eq!(change.first_decision, Some(min - 1), "{method:?}");
        let look = change.looks[min - 1];
        assert!((look.ratio_interval[0] - 1.005).abs() < 1e-12, "{look:?}");
        assert!((look.ratio_interval[1] - 1.005).abs() < 1e-12, "{look:?}");
        let same = replay(&[0.0; 30], &rule);
        assert_eq!(same.first_decision, Some(min - 1), "{method:?}");
        assert_eq!(same.looks[min - 1].ratio_interval, [1.0, 1.0], "{method:?}");
        assert!(
            same.looks
                .iter()
                .all(|l| l.p_value.is_none_or(|p| p.is_finite()))
        );
    }
    // 7 blocks at alpha 0.05 for the sign sequence.
    assert_eq!(SequentialRule::needed_blocks(0.05), 7);
}
