//! The decisions users act on: one decision with one p, equivalence as a test, practical
//! size on the ratio scale, and the cases of the verdicts issue, through the library.
//! (The same cases through the binary: `crates/bench-cli/tests/integration/verdicts.rs`.)

use bench_stats::{
    AnalysisConfig, Comparison, Dataset, Design, Observation, Outcome, PracticalRule, Series,
    Verdict, analyze,
};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn paired(a: &[f64], b: &[f64]) -> Dataset {
    let series = |name: &str, v: &[f64]| {
        Series::new(
            name,
            v.iter()
                .enumerate()
                .map(|(i, &x)| Observation::in_block(x, i as u32)),
        )
    };
    Dataset::new("ns", vec![series("A", a), series("B", b)]).with_design(Design::Abba)
}

fn only(data: &Dataset, config: &AnalysisConfig) -> Comparison {
    analyze(data, config).unwrap().groups[0].comparisons[0].clone()
}

fn with_alpha(alpha: f64) -> AnalysisConfig {
    AnalysisConfig {
        alpha,
        paired_estimator: bench_stats::PairedEstimator::HodgesLehmannMinLogRatio,
        ..AnalysisConfig::default()
    }
}

/// The 12 blocks: B = A exp(d).
const A12: [f64; 12] = [
    100.0, 101.0, 99.0, 100.5, 100.2, 99.8, 100.1, 100.4, 99.6, 100.3, 100.7, 99.9,
];
const D12: [f64; 12] = [
    0.012, 0.008, -0.004, 0.015, 0.006, 0.010, -0.002, 0.009, 0.011, -0.005, -0.003, 0.007,
];

fn times_exp(a: &[f64], d: &[f64]) -> Vec<f64> {
    a.iter().zip(d).map(|(a, d)| a * d.exp()).collect()
}

#[test]
fn alpha_decides_the_paired_verdict_through_the_signed_rank_p() {
    let data = paired(&A12, &times_exp(&A12, &D12));
    let at_05 = only(&data, &with_alpha(0.05));
    let at_01 = only(&data, &with_alpha(0.01));
    let d = at_05.decision.as_ref().unwrap();
    // scipy.stats.wilcoxon(log(B / A)).pvalue = 0.02099609375 (exact, no ties).
    assert!((d.p_value.unwrap() - 0.02099609375).abs() < 1e-12);
    assert_eq!(
        (d.test.as_str(), d.scale.as_str()),
        ("wilcoxon-signed-rank", "block-log-ratios")
    );
    assert_eq!(at_05.verdict, Verdict::Significant);
    assert_eq!(at_01.verdict, Verdict::NotSignificant);
    assert_ne!(at_01.outcome, Outcome::Slower);
    assert!(at_01.summary.contains("p = 0.021") && at_01.summary.contains("alpha = 0.01"));
}

#[test]
fn the_p_printed_is_the_p_that_decided() {
    let mut d = D12;
    d[6] = -0.009;
    let c = only(&paired(&A12, &times_exp(&A12, &d)), &with_alpha(0.05));
    let p = c.decision.as_ref().unwrap().p_value.unwrap();
    // scipy.stats.wilcoxon(log(B / A)).pvalue = 0.04248046875.
    assert!((p - 0.04248046875).abs() < 1e-12, "{p}");
    assert_eq!(c.verdict, Verdict::Significant, "p < alpha decides");
    let strict = only(&paired(&A12, &times_exp(&A12, &d)), &with_alpha(0.04));
    assert_eq!(strict.verdict, Verdict::NotSignificant, "p > alpha decides");
}

#[test]
fn no_equivalence_from_two_blocks_but_identical_data_are_equivalent() {
    let two = only(&paired(&[100.0, 100.2], &[100.1, 100.3]), &with_alpha(0.05));
    assert_eq!(two.verdict, Verdict::NotTested);
    assert_ne!(two.outcome, Outcome::Equivalent);
    assert!(two.summary.contains("too few"));
    // Identical values in every block (deterministic counts, issue 27) are equivalent:
    // the interval is exactly [1, 1] (tests/determinism.rs checks every estimator).
    let same = only(&paired(&[100.0; 8], &[100.0; 8]), &with_alpha(0.05));
    assert_eq!(same.outcome, Outcome::Equivalent, "{}", same.summary);
    assert_eq!(same.decision.unwrap().equivalence_ci, Some([1.0, 1.0]));
}

#[test]
fn a_steady_tenth_of_a_percent_is_real_but_inside_the_margin() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let a: Vec<f64> = (0..12).map(|_| 100.0 + rng.random::<f64>()).collect();
    let b: Vec<f64> = a
        .iter()
        .map(|x| x * 1.001 * (1.0 + 1e-5 * rng.random::<f64>()))
        .collect();
    let c = only(&paired(&a, &b), &fastest());
    assert_eq!(c.verdict, Verdict::Significant);
    assert_eq!(c.outcome, Outcome::Equivalent);
    assert!(c.summary.contains("a real change"), "{}", c.summary);
    // A margin smaller than the change makes it a slowdown.
    let tight = AnalysisConfig {
        equivalence_margin: 0.0005,
        paired_estimator: bench_stats::PairedEstimator::HodgesLehmannMinLogRatio,
        ..AnalysisConfig::default()
    };
    assert_eq!(only(&paired(&a, &b), &tight).outcome, Outcome::Slower);
}

#[test]
fn a_real_slowdown_seen_in_17_of_30_blocks_is_slower_whatever_its_dominance() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(17);
    let a: Vec<f64> = (0..30).map(|_| 100.0 + rng.random::<f64>()).collect();
    // 17 blocks 2-6% slower, 13 a hair faster: paired dominance (17 - 13) / 30 = 0.133.
    let b: Vec<f64> = a
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let lr = if i % 30 < 17 {
                0.02 + 0.04 * rng.random::<f64>()
            } else {
                -0.001 - 0.003 * rng.random::<f64>()
            };
            x * f64::exp(lr)
        })
        .collect();
    let c = only(&paired(&a, &b), &fastest());
    assert_eq!(c.outcome, Outcome::Slower, "{}", c.summary);
    assert!(!c.summary.contains("too small"));
    assert_eq!(c.decision.unwrap().practical_rule, "ratio");
    // The Cliff rule on the same data measures overlap, and says so when it downgrades.
    let cliff = AnalysisConfig {
        practical: PracticalRule::Cliff(0.9),
        paired_estimator: bench_stats::PairedEstimator::HodgesLehmannMinLogRatio,
        ..AnalysisConfig::default()
    };
    let c = only(&paired(&a, &b), &cliff);
    assert_eq!(c.verdict, Verdict::NotSignificant);
    assert!(c.summary.contains("overlap"), "{}", c.summary);
}

#[test]
fn the_more_blocks_line_states_power_and_the_cost_of_another_look() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let a: Vec<f64> = (0..10).map(|_| 100.0 + 5.0 * rng.random::<f64>()).collect();
    let b: Vec<f64> = a
        .iter()
        .map(|x| x * (0.97 + 0.06 * rng.random::<f64>()))
        .collect();
    let c = only(&paired(&a, &b), &fastest());
    assert_eq!(c.outcome, Outcome::Inconclusive);
    assert!(c.summary.contains("80% power"), "{}", c.summary);
    assert!(c.summary.contains("another look"), "{}", c.summary);
    assert!(!c.summary.contains("likely"), "{}", c.summary);
}

/// `--alpha` changes whether a candidate is significant exactly when the deciding p lies
/// between the two alphas: checked on random data for every design. With 3+ variants the
/// deciding p is the Holm-adjusted one, gated by the omnibus test, so a candidate is
/// significant when both are below alpha: its effective p is the larger of the two.
#[test]
fn alpha_changes_verdicts_exactly_where_the_deciding_p_lies_between() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2024);
    let mut between = 0;
    for case in 0..240 {
        let k = if case % 3 == 2 { 3 } else { 2 };
        let blocked = case % 3 != 1;
        let n = 8 + case % 9;
        let series: Vec<Series> = (0..k)
            .map(|v| {
                let shift = 1.0 + 0.01 * v as f64 * rng.random::<f64>();
                let obs: Vec<Observation> = (0..n)
                    .map(|i| {
                        let x = 100.0 * shift * (1.0 + 0.02 * rng.random::<f64>());
                        if blocked {
                            Observation::in_block(x, i as u32)
                        } else {
                            Observation::new(x)
                        }
                    })
                    .collect();
                Series::new(format!("v{v}"), obs)
            })
            .collect();
        let data = Dataset::new("ns", series);
        let loose = analyze(&data, &with_alpha(0.05)).unwrap();
        let strict = analyze(&data, &with_alpha(0.01)).unwrap();
        let omnibus = loose.groups[0].omnibus.map_or(0.0, |o| o.p_value);
        for (l, s) in loose.groups[0]
            .comparisons
            .iter()
            .zip(&strict.groups[0].comparisons)
        {
            let d = l.decision.as_ref().unwrap();
            let Some(p) = d.p_value_adjusted.or(d.p_value) else {
                continue;
            };
            if l.verdict == Verdict::NotTested {
                continue;
            }
            let p = p.max(omnibus);
            let significant = |c: &Comparison| c.verdict == Verdict::Significant;
            let changed = significant(l) != significant(s);
            assert_eq!(
                changed,
                (0.01..0.05).contains(&p),
                "case {case}: p {p}, {l:?}"
            );
            assert_eq!(significant(l), p < 0.05, "case {case}");
            between += usize::from(changed);
        }
    }
    assert!(
        between > 5,
        "the random cases must exercise the band: {between}"
    );
}

/// These verdicts are the signed-rank semantics of the fastest-run estimator
/// (`hl-min-log-ratio`); the default typical run's are in `decision_grid.rs` (and
/// `cargo xtask decision-grid`), `shape_reference.rs` and the shape module's tests.
fn fastest() -> AnalysisConfig {
    AnalysisConfig {
        paired_estimator: bench_stats::PairedEstimator::HodgesLehmannMinLogRatio,
        ..AnalysisConfig::default()
    }
}

/// The typical run on data with no spread at all, as instruction counts give:
/// identical A/A is EQUIVALENT with an interval of zero width; a constant 0.05% in every
/// block is SLOWER from 7 blocks (three quantiles at alpha / 3).
#[test]
fn the_typical_run_on_counts_without_spread() {
    let typical = AnalysisConfig {
        paired_estimator: bench_stats::PairedEstimator::TypicalRun,
        ..AnalysisConfig::default()
    };
    let same = only(&paired(&[1e6; 8], &[1e6; 8]), &typical);
    assert_eq!(same.outcome, Outcome::Equivalent, "{}", same.summary);
    assert_eq!(same.ratio_ci, Some([1.0, 1.0]));
    let tight = AnalysisConfig {
        equivalence_margin: 0.0001,
        ..typical.clone()
    };
    let seven = only(&paired(&[1e6; 7], &[1.0005e6; 7]), &tight);
    assert_eq!(seven.outcome, Outcome::Slower, "{}", seven.summary);
    // Six blocks reach 2/2^6 = 0.031 (one run per block: the typical run alone, at the
    // whole alpha); five cannot.
    let six = only(&paired(&[1e6; 6], &[1.0005e6; 6]), &tight);
    assert_eq!(six.outcome, Outcome::Slower, "{}", six.summary);
    let five = only(&paired(&[1e6; 5], &[1.0005e6; 5]), &tight);
    assert_eq!(five.verdict, Verdict::NotTested, "{}", five.summary);
}

/// Two runs per block of each variant over `blocks` blocks, every run of A at `a` and of
/// B at `b` (plus `bump` on A's first run), as counts of instructions.
fn counts(blocks: u32, a: f64, b: f64, bump: f64) -> Dataset {
    let series = |name: &str, v: f64, bump: f64| {
        Series::new(
            name,
            (0..blocks)
                .flat_map(|k| [k, k])
                .enumerate()
                .map(move |(i, k)| Observation::in_block(if i == 0 { v + bump } else { v }, k)),
        )
    };
    Dataset::new(
        "instructions",
        vec![series("A", a, bump), series("B", b, 0.0)],
    )
    .with_design(Design::Abba)
    .with_quantity(bench_stats::Quantity::Named("instructions".into()))
}

#[test]
fn identical_counts_in_every_run_are_decided_exactly_at_any_block_count() {
    for blocks in [2, 3, 6, 20] {
        let c = only(
            &counts(blocks, 9_029_733.0, 11_529_657.0, 0.0),
            &AnalysisConfig::default(),
        );
        let r = 11_529_657.0 / 9_029_733.0;
        assert_eq!(
            c.verdict_basis,
            bench_stats::VerdictBasis::Exact,
            "{blocks}"
        );
        assert_eq!(
            (c.verdict, c.outcome),
            (Verdict::Significant, Outcome::Slower)
        );
        assert_eq!(c.ratio_ci, Some([r, r]));
        assert!(
            c.summary.starts_with(
                "B executes 27.7% more instructions than A in every run: 11529657 against 9029733 instructions"
            ),
            "{}",
            c.summary
        );
        assert!(!c.summary.contains("not distinguishable") && !c.summary.contains("no interval"));
        // Fewer counts read as fewer.
        let c = only(
            &counts(blocks, 11_529_657.0, 9_029_733.0, 0.0),
            &AnalysisConfig::default(),
        );
        assert_eq!(c.outcome, Outcome::Faster);
        assert!(
            c.summary
                .starts_with("B executes 21.7% fewer instructions than A in every run"),
            "{}",
            c.summary
        );
    }
}

#[test]
fn identical_counts_between_variants_are_equivalent_and_a_change_inside_the_margin_is_named() {
    let c = only(&counts(3, 1000.0, 1000.0, 0.0), &AnalysisConfig::default());
    assert_eq!(
        (c.verdict, c.outcome),
        (Verdict::NotSignificant, Outcome::Equivalent)
    );
    assert_eq!(c.ratio, Some(1.0));
    assert!(
        c.summary
            .contains("execute the same instructions in every run"),
        "{}",
        c.summary
    );
    // 0.05% more instructions, under the default ±1% margin: a real change, equivalent.
    let c = only(
        &counts(6, 100_000.0, 100_050.0, 0.0),
        &AnalysisConfig::default(),
    );
    assert_eq!(
        (c.verdict, c.outcome),
        (Verdict::Significant, Outcome::Equivalent)
    );
    assert!(
        c.summary.contains("0.050% more instructions")
            && c.summary.contains("inside the ±1.0% margin"),
        "{}",
        c.summary
    );
}

#[test]
fn nearly_deterministic_counts_and_constant_times_keep_the_statistical_path() {
    // One run of A differs by one instruction: not exact.
    let c = only(
        &counts(6, 9_029_733.0, 11_529_657.0, 1.0),
        &AnalysisConfig::default(),
    );
    assert_ne!(c.verdict_basis, bench_stats::VerdictBasis::Exact);
    assert!(
        c.summary.contains("more instructions than"),
        "{}",
        c.summary
    );
    assert!(
        !c.summary.contains("worse") && !c.summary.contains("slower"),
        "{}",
        c.summary
    );
    // Constant times are not counts: the rule is for counts only.
    let mut times = counts(6, 100.0, 120.0, 0.0);
    times.unit = "ns".into();
    times.quantity = None;
    let c = only(&times, &AnalysisConfig::default());
    assert_ne!(c.verdict_basis, bench_stats::VerdictBasis::Exact);
}

/// Issue 42, item 6: the standout of three variants is the one whose largest moved part
/// (the part its verdict rests on, a tail or the mean run included) is furthest from 1,
/// not the one with the largest typical-run ratio.
#[test]
fn the_standout_is_chosen_on_the_part_that_moved_furthest_not_on_the_typical_run_alone() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(42);
    // 30 blocks of A B C C B A, each run 1% noise over a block level of 3%: B every run
    // 6% slower (a shift); C a quarter of its runs 60% slower, the rest unchanged (its
    // typical run barely moves, its slow runs and mean run do).
    let mut obs: [Vec<Observation>; 3] = Default::default();
    for block in 0..30u32 {
        let level: f64 = 0.03 * (rng.random::<f64>() - 0.5) * 3.4;
        for (position, v) in [0usize, 1, 2, 2, 1, 0].into_iter().enumerate() {
            let noise = 0.01 * (rng.random::<f64>() - 0.5) * 3.4;
            let factor = match v {
                1 => 1.06,
                2 if rng.random::<f64>() < 0.25 => 1.6,
                _ => 1.0,
            };
            let value = 1e6 * factor * (level + noise).exp();
            obs[v].push(Observation::in_block(value, block).at_position(position as u32));
        }
    }
    let [a, b, c] = obs;
    let data = Dataset::new(
        "ns",
        vec![
            Series::new("A", a),
            Series::new("B", b),
            Series::new("C", c),
        ],
    )
    .with_design(Design::Abba);
    let analysis = analyze(&data, &AnalysisConfig::default()).unwrap();
    let group = &analysis.groups[0];
    let [b, c] = [&group.comparisons[0], &group.comparisons[1]];
    assert_eq!(b.verdict, Verdict::Significant, "{}", b.summary);
    assert_eq!(c.verdict, Verdict::Significant, "{}", c.summary);
    // On the typical run alone B would stand out.
    let typical = |x: &Comparison| x.ratio.unwrap().ln().abs();
    assert!(typical(b) > typical(c), "{} / {}", b.summary, c.summary);
    let (what, ratio) = c.largest_change().unwrap();
    assert!(ratio > 1.3, "{what} {ratio}");
    assert_eq!(group.standout().map(|s| s.candidate.as_str()), Some("C"));
    let said = analysis
        .warnings
        .iter()
        .find(|w| w.code == bench_stats::WarningCode::Standout)
        .expect("a standout warning");
    assert!(
        said.message.starts_with(&format!(
            "C stands out among 2 candidates ({what} {ratio:.3}x"
        )),
        "{}",
        said.message
    );
}
