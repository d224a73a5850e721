//! One candidate against its baseline: the comparison record, with the practical gate,
//! the paired detail and the reference workload.

use std::collections::BTreeMap;

use crate::analysis::blocks::BlockTable;
use crate::analysis::config::AnalysisConfig;
use crate::analysis::decision::{
    self, Equivalence, Rule, paired_equivalence, unpaired_equivalence,
};
use crate::analysis::paired_verdict::min_blocks;
use crate::analysis::paired_verdict::paired_scale;
use crate::analysis::reach::{FloorTest, TestFloor};
use crate::analysis::sequential_verdict::{SequentialVerdict, reconcile, sequential_verdict};
use crate::analysis::significance::PairwiseComparison;
use crate::analysis::verdict::{Facts, describe, describe_shape};
use crate::analysis::warnings;
use crate::descriptive::Sample;
use crate::error::StatsError;
use crate::model::dataset::{Dataset, Quantity, Series};
use crate::model::report::{
    Comparison, CustomTestReport, DecisionReport, EffectReport, MannWhitneyReport, Outcome,
    PairedReport, ShiftReport, Verdict, VerdictBasis, Warning,
};
use crate::paired::estimators::{PairedAnalysis, PairedEstimator};
use crate::paired::shape::ShapeAnalysis;
use crate::paired::variance::paired_variance_components;
use crate::rank::cliff::{CliffsDelta, Magnitude, cliffs_delta};
use crate::rank::hodges_lehmann::hodges_lehmann;
use crate::rank::mann_whitney::mann_whitney_u;
use crate::rank::wilcoxon::{paired_hodges_lehmann_walsh, signed_rank_no_change};
use crate::resample::bootstrap::{BootstrapConfig, BootstrapInterval};
use crate::resample::median_ratio::median_ratio;

/// Everything [`build_comparison`] reads about one candidate.
pub(crate) struct CandidateInput<'a> {
    pub(crate) data: &'a Dataset,
    pub(crate) config: &'a AnalysisConfig,
    pub(crate) members: &'a [&'a Series],
    pub(crate) samples: &'a [Sample],
    pub(crate) baseline: usize,
    pub(crate) candidate: usize,
    pub(crate) paired: Option<&'a PairedAnalysis>,
    pub(crate) table: Option<&'a BlockTable>,
}

fn interval_bounds(ci: &Result<BootstrapInterval, StatsError>) -> Option<[f64; 2]> {
    ci.as_ref().ok().map(BootstrapInterval::bounds)
}

pub(crate) fn build_comparison(
    input: &CandidateInput<'_>,
    pw: &PairwiseComparison,
    basis: &VerdictBasis,
    warnings: &mut Vec<Warning>,
) -> Comparison {
    let config = input.config;
    let base = &input.samples[input.baseline];
    let cand = &input.samples[input.candidate];
    let name = &input.members[input.candidate].name;

    let cliff = cliffs_delta(base, cand);
    let hl = shift_report(base, cand, config.confidence);
    let mann_whitney = mann_whitney_report(base, cand);

    let (ratio, ratio_ci) = headline_ratio(input);
    let headline_distribution = input
        .paired
        .and_then(|pa| pa.headline().2)
        .filter(|_| ratio_ci.is_some())
        .cloned();

    let paired = input.paired.map(|pa| paired_report(pa, input, config));
    let reference = input
        .table
        .and_then(|t| reference_report(input.data, t, input, config, warnings));

    let shape = input
        .paired
        .and_then(|pa| pa.from_runs.as_ref())
        .and_then(|r| r.shape.as_ref());
    // Unpaired, the rank test decides on which variant's runs tend to be larger: Cliff's
    // delta has its sign, where a ratio of medians can point the other way (bimodal runs
    // whose medians fall in different modes).
    let direction = match (input.paired, cliff.delta) {
        (None, d) if d != 0.0 && d.is_finite() => d,
        _ => direction(ratio, input.paired, hl.as_ref()),
    };
    let decided = decide(input, pw, basis, &cliff, shape, direction, warnings);
    let quantity = input.data.quantity();
    let facts = facts(input, basis, &decided, &quantity, (ratio, ratio_ci));
    let summary = match shape {
        Some(s) if decided.verdict != Verdict::NotTested && facts.too_few_blocks.is_none() => {
            describe_shape(&facts, s)
        }
        _ => describe(&facts),
    };
    let distribution = shape.cloned();

    let seq = sequential(input, shape, &facts);
    let downgraded = decided.downgraded;
    // A sequential verdict reports the confidence sequence's interval, which no sampling
    // distribution stands behind.
    let interval_distribution = headline_distribution.filter(|_| seq.is_none());
    let (verdict, outcome, summary, ratio, ratio_ci, decision, sequential) = match seq {
        Some(s) => (
            s.verdict,
            s.outcome,
            s.summary,
            s.ratio,
            s.ratio_ci,
            s.decision,
            Some(s.report),
        ),
        None => (
            decided.verdict,
            decided.outcome,
            summary,
            ratio,
            ratio_ci,
            decided.decision.clone(),
            None,
        ),
    };

    let decision = deciding_estimate(
        decision,
        shape,
        (outcome, verdict),
        (ratio, ratio_ci),
        &facts,
        sequential.as_ref(),
    );
    Comparison {
        candidate: name.clone(),
        verdict,
        verdict_basis: basis.clone(),
        outcome,
        summary,
        ratio,
        ratio_ci,
        decision: Some(decision),
        mann_whitney,
        p_value_adjusted: pw.p_value_adjusted,
        cliffs_delta: Some(gated_cliff(cliff, downgraded)),
        hodges_lehmann: hl,
        paired,
        reference,
        carryover: None,
        custom_test: custom_test_report(basis, pw),
        sequential,
        distribution,
        interval_distribution,
    }
}

/// The test's answer for one candidate, before a sequential verdict replaces it: the rule,
/// the verdict after the practical gate, the equivalence test, the outcome and the
/// decision record.
struct Decided<'a> {
    rule: Rule,
    verdict: Verdict,
    downgraded: Option<(&'a str, f64)>,
    equivalence: Equivalence,
    outcome: Outcome,
    decision: DecisionReport,
}

/// Decides one candidate: the practical gate on the test's verdict, the equivalence test
/// (the shape check's when there is one, else on the blocks or the runs), the outcome in
/// the change's `direction`, and the deciding test's record.
fn decide<'a>(
    input: &CandidateInput<'_>,
    pw: &'a PairwiseComparison,
    basis: &VerdictBasis,
    cliff: &CliffsDelta,
    shape: Option<&ShapeAnalysis>,
    direction: f64,
    warnings: &mut Vec<Warning>,
) -> Decided<'a> {
    let config = input.config;
    let name = &input.members[input.candidate].name;
    let rule = Rule::of(
        config,
        input.paired.is_some(),
        matches!(basis, VerdictBasis::Custom(_)),
    );
    let (verdict, downgraded) = practical_gate(rule, pw, cliff, name, warnings);
    let (base, cand) = (
        &input.samples[input.baseline],
        &input.samples[input.candidate],
    );
    let equivalence = match (shape, input.paired) {
        (Some(s), _) => {
            decision::shape_equivalence(s, config.equivalence_margin, input.data.higher_is_better)
        }
        (None, Some(pa)) => paired_equivalence(pa.decision_blocks(), config),
        (None, None) => unpaired_equivalence(base, cand, config),
    };
    // The shape check's parts (their intervals and p corrected over the quantiles only,
    // not Holm-corrected over the candidates nor gated by the omnibus or the practical
    // rule) name the direction only of a comparison that is significant; any other is
    // equivalent when the equivalence test shows it, else inconclusive.
    let outcome = match shape {
        Some(s) if verdict == Verdict::Significant => {
            decision::shape_outcome(s, config.equivalence_margin, input.data.higher_is_better)
        }
        _ => decision::outcome(
            rule,
            verdict,
            &equivalence,
            direction,
            input.data.higher_is_better,
        ),
    };
    let (test, scale) = deciding_test(basis, input.paired);
    let decision = decision::report(
        &test,
        scale,
        pw.p_value,
        pw.p_value_adjusted,
        rule,
        &equivalence,
        config,
    );
    Decided {
        rule,
        verdict,
        downgraded,
        equivalence,
        outcome,
        decision,
    }
}

/// What the comparison's sentence is written from: the decision with the counts and the
/// settings it rests on.
fn facts<'a>(
    input: &'a CandidateInput<'a>,
    basis: &VerdictBasis,
    decided: &'a Decided<'a>,
    quantity: &'a Quantity,
    (ratio, ratio_ci): (Option<f64>, Option<[f64; 2]>),
) -> Facts<'a> {
    let config = input.config;
    let (base, cand) = (
        &input.samples[input.baseline],
        &input.samples[input.candidate],
    );
    let min_blocks = min_blocks(config);
    Facts {
        candidate: &input.members[input.candidate].name,
        baseline: &input.members[input.baseline].name,
        outcome: decided.outcome,
        verdict: decided.verdict,
        ratio,
        ratio_ci,
        quantity,
        constant: constant_value(base, cand),
        positive: base.values().iter().chain(cand.values()).all(|&v| v > 0.0),
        blocks: input.paired.map(|p| p.blocks),
        runs: (base.len(), cand.len()),
        decision: &decided.decision,
        rule: decided.rule,
        equivalence: &decided.equivalence,
        too_few_blocks: input
            .paired
            .map(|p| p.blocks)
            .filter(|&b| b < min_blocks)
            .map(|b| (b, min_blocks)),
        too_few_informative: input
            .paired
            .and_then(|pa| crate::analysis::paired_verdict::too_few_informative(pa, config)),
        downgraded: decided.downgraded,
        config,
        floor: test_floor(basis, input.paired, input.members.len(), config.alpha),
        estimator: input.paired.map(|_| config.paired_estimator),
        higher_is_better: input.data.higher_is_better,
    }
}

/// The decision record with the estimate the outcome rests on: the shape check's deciding
/// part (its ratio, its interval and level) when there is one, else the comparison's own
/// ratio and interval (paired, or a sequence's; none for a rank test of the runs, whose
/// interval is the shift's); and for an undecided comparison the parts in the way of
/// EQUIVALENT and the blocks (runs) that would resolve the margin.
fn deciding_estimate(
    mut d: DecisionReport,
    shape: Option<&ShapeAnalysis>,
    (outcome, verdict): (Outcome, Verdict),
    (ratio, ratio_ci): (Option<f64>, Option<[f64; 2]>),
    facts: &Facts<'_>,
    sequential: Option<&crate::model::report::SequentialReport>,
) -> DecisionReport {
    let config = facts.config;
    let margin = config.equivalence_margin;
    let floor = facts.floor.map_or(0, |f| f.count);
    let undecided = matches!(outcome, Outcome::Inconclusive);
    let from_shape = shape.filter(|_| sequential.is_none() || outcome == Outcome::Mixed);
    if let Some(s) = from_shape {
        let significant = verdict == Verdict::Significant;
        let q = decision::deciding_part(s, outcome, significant);
        d.part = Some(decision::part_key(q, facts.higher_is_better).to_owned());
        d.ratio = Some(q.ratio);
        d.interval = q.interval;
        d.level = Some(q.confidence);
        if undecided {
            let (blockers, needed) =
                decision::shape_needs(s, margin, floor, facts.higher_is_better);
            d.blocking = blockers
                .iter()
                .map(|b| decision::part_key(b, facts.higher_is_better).to_owned())
                .collect();
            d.needed = needed.and_then(|n| u32::try_from(n).ok());
        }
        return d;
    }
    d.ratio = ratio;
    let rank_test = facts.blocks.is_none() || d.scale == "custom";
    if !rank_test {
        d.interval = ratio_ci;
        d.level = Some(match sequential {
            Some(r) => 1.0 - r.alpha,
            None => config.confidence,
        });
    }
    if undecided && sequential.is_none() {
        let n = facts.blocks.unwrap_or(facts.runs.0.min(facts.runs.1));
        d.needed = match (facts.too_few_blocks, ratio) {
            (Some((_, need)), _) => Some(need.max(floor)),
            (None, Some(r)) => decision::blocks_to_resolve(
                n,
                r,
                (
                    ratio_ci.map(|i| (i, config.confidence)),
                    d.equivalence_ci.map(|i| (i, 1.0 - 2.0 * config.alpha)),
                ),
                margin,
                floor,
            ),
            (None, None) => None,
        }
        .and_then(|n| u32::try_from(n).ok());
    }
    d
}

/// The sequential verdict of a paired comparison of two variants run under a stop rule,
/// reconciled with the shape check when there is one (whose outcome and sentence it is
/// set against); `None` when the analysis runs no sequential verdict.
fn sequential(
    input: &CandidateInput<'_>,
    shape: Option<&ShapeAnalysis>,
    facts: &Facts<'_>,
) -> Option<SequentialVerdict> {
    let config = input.config;
    let run = config.sequential.as_ref()?;
    input.paired?;
    (input.members.len() == 2).then_some(())?;
    let name = &input.members[input.candidate].name;
    let baseline = &input.members[input.baseline].name;
    let logs = crate::sequential::dataset_log_ratios(input.data, Some(baseline))?;
    let sv = sequential_verdict(&logs, run, input.data.higher_is_better, (name, baseline))?;
    let Some(s) = shape else {
        return Some(sv);
    };
    let shape_outcome =
        decision::shape_outcome(s, config.equivalence_margin, input.data.higher_is_better);
    let sentence = describe_shape(
        &Facts {
            outcome: shape_outcome,
            ..*facts
        },
        s,
    );
    let speed = matches!(facts.quantity, Quantity::Time | Quantity::Throughput);
    Some(reconcile(
        sv,
        s,
        shape_outcome,
        &sentence,
        (input.data.higher_is_better, speed),
    ))
}

/// The Mann-Whitney U test of the runs, as the model reports it.
fn mann_whitney_report(base: &Sample, cand: &Sample) -> Option<MannWhitneyReport> {
    mann_whitney_u(base, cand).ok().map(|m| MannWhitneyReport {
        u: m.u,
        p_value: m.p_value,
        method: m.method.as_str().to_string(),
    })
}

/// Cliff's delta as reported: negligible when the practical gate downgraded the verdict.
fn gated_cliff(cliff: CliffsDelta, downgraded: Option<(&str, f64)>) -> CliffsDelta {
    if downgraded.is_some() {
        CliffsDelta {
            magnitude: Magnitude::Negligible,
            ..cliff
        }
    } else {
        cliff
    }
}

/// The ratio the report leads with: the paired estimator's (the ratio of block means for
/// the mean-difference estimator), else the unpaired ratio of medians.
fn headline_ratio(input: &CandidateInput<'_>) -> (Option<f64>, Option<[f64; 2]>) {
    let config = input.config;
    match input.paired {
        Some(pa) => {
            let (point, ci, _) = pa.headline();
            (point, interval_bounds(ci))
        }
        None => median_ratio(
            &input.samples[input.baseline],
            &input.samples[input.candidate],
            &BootstrapConfig {
                resamples: config.resamples,
                confidence: config.confidence,
                seed: config.seed,
                method: crate::resample::bootstrap::IntervalMethod::Percentile,
            },
        ),
    }
}

/// The practical rule's gate on the test's verdict: under the Cliff and custom rules a
/// significant verdict whose practical value is below the threshold becomes not
/// significant, with a warning. Returns the verdict and what failed (`(what, value)`).
fn practical_gate<'a>(
    rule: Rule,
    pw: &'a PairwiseComparison,
    cliff: &CliffsDelta,
    candidate: &str,
    warnings: &mut Vec<Warning>,
) -> (Verdict, Option<(&'a str, f64)>) {
    let (what, practical) = match rule {
        Rule::Custom(_) => (
            pw.effect.as_ref().map_or("effect", |e| e.metric.as_str()),
            pw.effect.as_ref().and_then(|e| e.practical_value),
        ),
        Rule::Ratio | Rule::Cliff(_) => ("|Cliff's delta|", Some(cliff.delta.abs())),
    };
    match rule.fails(pw.verdict, practical) {
        Some(value) => {
            warnings.push(warnings::practical_gate(
                candidate,
                what,
                value,
                practical_threshold(rule),
            ));
            (Verdict::NotSignificant, Some((what, value)))
        }
        None => (pw.verdict, None),
    }
}

/// The two-sample Hodges-Lehmann shift of the runs, as the model reports it.
fn shift_report(base: &Sample, cand: &Sample, confidence: f64) -> Option<ShiftReport> {
    hodges_lehmann(base, cand, confidence)
        .ok()
        .map(|s| ShiftReport {
            shift: s.shift,
            ci_low: s.ci_low,
            ci_high: s.ci_high,
        })
}

/// The one value every run of both variants has, if they all have the same.
fn constant_value(base: &Sample, cand: &Sample) -> Option<f64> {
    let first = base.values().first().copied();
    first.filter(|&v| base.values().iter().chain(cand.values()).all(|&x| x == v))
}

fn practical_threshold(rule: Rule) -> f64 {
    match rule {
        Rule::Cliff(x) | Rule::Custom(x) => x,
        Rule::Ratio => 0.0,
    }
}

/// The sign of the change, candidate against baseline: of `ln(ratio)` when there is a
/// ratio, else of the paired mean difference or the unpaired shift.
fn direction(
    ratio: Option<f64>,
    paired: Option<&PairedAnalysis>,
    shift: Option<&ShiftReport>,
) -> f64 {
    match (ratio, paired, shift) {
        (Some(r), _, _) if r > 0.0 => r.ln(),
        (_, Some(pa), _) => pa.mean_difference,
        (_, None, Some(s)) => s.shift,
        _ => 0.0,
    }
}

/// The test whose p decided, and the scale it ranked.
/// The floor the deciding test puts under any advice to run more blocks (or runs): the
/// fewest with which its smallest p is below alpha, divided by the comparisons Holm's
/// correction runs over when 3+ variants are compared; `None` for a custom test.
fn test_floor(
    basis: &VerdictBasis,
    paired: Option<&PairedAnalysis>,
    members: usize,
    alpha: f64,
) -> Option<TestFloor> {
    let checked = paired
        .and_then(|pa| pa.from_runs.as_ref())
        .and_then(|r| r.shape.as_ref())
        .map(|s| s.quantiles.len());
    let shaped = checked.is_some();
    let quantiles = FloorTest::Quantiles(checked.unwrap_or(1));
    let candidates = members.saturating_sub(1);
    let (test, holm) = match basis {
        VerdictBasis::Friedman if shaped => (quantiles, candidates),
        VerdictBasis::Friedman => (FloorTest::SignedRank, candidates),
        VerdictBasis::PairedSignedRank(_) => (FloorTest::SignedRank, 1),
        VerdictBasis::PairedBootstrap(PairedEstimator::TypicalRun) if shaped => (quantiles, 1),
        VerdictBasis::PairedBootstrap(PairedEstimator::TypicalRun) => (FloorTest::SignedRank, 1),
        VerdictBasis::PairedBootstrap(_) => (FloorTest::Bootstrap, 1),
        VerdictBasis::MannWhitney => (FloorTest::MannWhitney, 1),
        VerdictBasis::KruskalWallis => (FloorTest::MannWhitney, candidates),
        VerdictBasis::Custom(_) | VerdictBasis::Exact => return None,
    };
    Some(TestFloor::new(test, alpha, holm))
}

fn deciding_test(basis: &VerdictBasis, paired: Option<&PairedAnalysis>) -> (String, &'static str) {
    let scale = || {
        paired.map_or("runs", |pa| {
            let blocks = pa.decision_blocks();
            let base: Vec<f64> = blocks.iter().map(|v| v[0]).collect();
            let cand: Vec<f64> = blocks.iter().map(|v| v[1]).collect();
            paired_scale(&base, &cand).1
        })
    };
    let shaped = paired.is_some_and(|pa| pa.from_runs.as_ref().is_some_and(|r| r.shape.is_some()));
    match basis {
        // 3+ variants under the typical run: each post-hoc test is the shape check's.
        VerdictBasis::Friedman if shaped => ("randomization-quantiles".into(), "runs-in-blocks"),
        VerdictBasis::PairedSignedRank(_) | VerdictBasis::Friedman => {
            ("wilcoxon-signed-rank".into(), scale())
        }
        VerdictBasis::PairedBootstrap(PairedEstimator::TypicalRun) if shaped => {
            ("randomization-quantiles".into(), "runs-in-blocks")
        }
        // Values that are not all positive: the block median runs, by the signed-rank test.
        VerdictBasis::PairedBootstrap(PairedEstimator::TypicalRun) => {
            ("wilcoxon-signed-rank".into(), scale())
        }
        VerdictBasis::PairedBootstrap(e) => (
            "block-bootstrap".into(),
            match e {
                PairedEstimator::MeanDifference => "block-differences",
                PairedEstimator::RatioOfMeans => "block-means",
                PairedEstimator::PooledMedianRatio => "runs-in-blocks",
                PairedEstimator::MedianLogRatio
                | PairedEstimator::HodgesLehmannLogRatio
                | PairedEstimator::HodgesLehmannMinLogRatio
                | PairedEstimator::HodgesLehmannMedianLogRatio
                | PairedEstimator::TypicalRun => "block-log-ratios",
            },
        ),
        VerdictBasis::MannWhitney | VerdictBasis::KruskalWallis => ("mann-whitney".into(), "runs"),
        VerdictBasis::Custom(name) => (name.clone(), "custom"),
        VerdictBasis::Exact => ("exact".into(), "runs"),
    }
}

/// What a custom test answered, when one decided (the built-ins' answers are already in
/// the comparison's own fields).
fn custom_test_report(basis: &VerdictBasis, pw: &PairwiseComparison) -> Option<CustomTestReport> {
    let VerdictBasis::Custom(name) = basis else {
        return None;
    };
    Some(CustomTestReport {
        name: name.clone(),
        p_value: pw.p_value,
        effect: pw.effect.as_ref().map(|e| EffectReport {
            metric: e.metric.clone(),
            value: e.value,
            magnitude: e.magnitude.clone(),
        }),
        shift: pw.shift,
    })
}

fn paired_report(
    pa: &PairedAnalysis,
    input: &CandidateInput<'_>,
    config: &AnalysisConfig,
) -> PairedReport {
    let diffs: Vec<f64> = pa.block_values.iter().map(|v| v[1] - v[0]).collect();
    let mut report = pa.to_report();
    // The p of no change that the interval below agrees with (conditional on the
    // non-zero differences; SciPy's signed-rank p when none is zero or tied).
    report.wilcoxon_p = signed_rank_no_change(&diffs).ok().map(|w| w.p_value);
    let alpha = crate::paired::estimators::level_alpha(config.confidence, config.alpha);
    report.hodges_lehmann = paired_hodges_lehmann_walsh(&diffs, config.confidence, alpha)
        .ok()
        .map(|(s, _, _)| ShiftReport {
            shift: s.estimate,
            ci_low: Some(s.ci_low),
            ci_high: Some(s.ci_high),
        });
    // Variance components need replicates: ABBA gives two runs of each variant per block.
    report.variance_components = input.table.and_then(|t| {
        let (base, cand) = (
            &t.replicates[input.baseline],
            &t.replicates[input.candidate],
        );
        let replicated = base.iter().chain(cand.iter()).any(|r| r.len() > 1);
        fn views(b: &crate::model::Blocks) -> Vec<&[f64]> {
            b.iter().collect()
        }
        replicated
            .then(|| paired_variance_components(&views(base), &views(cand)).ok())
            .flatten()
            .map(|vc| vc.to_report())
    });
    report
}

fn reference_report(
    data: &Dataset,
    table: &BlockTable,
    input: &CandidateInput<'_>,
    config: &AnalysisConfig,
    warnings: &mut Vec<Warning>,
) -> Option<crate::model::report::ReferenceReport> {
    let boot = BootstrapConfig {
        resamples: config.resamples,
        confidence: config.confidence,
        seed: config.seed,
        method: config.interval,
    };
    let rows = reference_rows(data, table, input)?;
    let column = |k: usize| Sample::from_vec(rows.iter().map(|x| x[k]).collect()).ok();
    let (b, c, rb, rc) = (column(0)?, column(1)?, column(2)?, column(3)?);
    let ror = if data.reference_beside.is_empty() {
        crate::paired::reference::ratio_of_ratios(&b, &c, &rb, &boot).ok()?
    } else {
        crate::paired::reference::ratio_of_ratios_beside(&b, &c, &rb, &rc, &boot).ok()?
    };
    if ror.noisy {
        warnings.push(warnings::noisy_reference(
            &input.members[input.candidate].name,
            ror.reference_own_cv.unwrap_or(0.0),
            ror.approximate_bias.unwrap_or(0.0),
            rows.len(),
        ));
    }
    Some(ror.to_report())
}

/// Per block of the table with a reference: `[b, c, rb, rc]`, the two variants' block means
/// and the mean of the reference runs beside each (both the block's one reference when it
/// ran once per block). Blocks missing a reference value are left out.
fn reference_rows(
    data: &Dataset,
    table: &BlockTable,
    input: &CandidateInput<'_>,
) -> Option<Vec<[f64; 4]>> {
    let names = [
        input.members[input.baseline].name.as_str(),
        input.members[input.candidate].name.as_str(),
    ];
    // (block, 0 | 1) -> (sum, count) of the references beside that variant.
    let mut beside: BTreeMap<(u32, usize), (f64, usize)> = BTreeMap::new();
    if data.reference_beside.is_empty() {
        for &(block, v) in data.reference.as_ref()? {
            for k in 0..2 {
                let e = beside.entry((block, k)).or_default();
                *e = (e.0 + v, e.1 + 1);
            }
        }
    } else {
        for r in &data.reference_beside {
            if let Some(k) = names.iter().position(|n| *n == r.variant) {
                let e = beside.entry((r.block, k)).or_default();
                *e = (e.0 + r.value, e.1 + 1);
            }
        }
    }
    let mean_of = |id: u32, k: usize| beside.get(&(id, k)).map(|&(s, n)| s / n as f64);
    let rows = table
        .ids
        .iter()
        .enumerate()
        .filter_map(|(b, &id)| {
            let (rb, rc) = (mean_of(id, 0)?, mean_of(id, 1)?);
            Some([
                table.means[b][input.baseline],
                table.means[b][input.candidate],
                rb,
                rc,
            ])
        })
        .collect();
    Some(rows)
}
