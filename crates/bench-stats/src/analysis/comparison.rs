//! One candidate against its baseline: the comparison record, with the practical gate,
//! the paired detail and the reference workload.

use std::collections::BTreeMap;

use crate::analysis::blocks::BlockTable;
use crate::analysis::config::AnalysisConfig;
use crate::analysis::paired_verdict::min_paired_blocks;
use crate::analysis::significance::PairwiseComparison;
use crate::analysis::verdict::{Facts, describe, outcome_of};
use crate::analysis::warnings;
use crate::descriptive::Sample;
use crate::error::StatsError;
use crate::model::dataset::{Dataset, Series};
use crate::model::report::{
    Comparison, CustomTestReport, EffectReport, MannWhitneyReport, PairedReport, ShiftReport,
    Verdict, VerdictBasis, Warning,
};
use crate::paired::estimators::{PairedAnalysis, PairedEstimator};
use crate::paired::variance::paired_variance_components;
use crate::rank::cliff::{CliffsDelta, Magnitude, cliffs_delta};
use crate::rank::hodges_lehmann::hodges_lehmann;
use crate::rank::mann_whitney::mann_whitney_u;
use crate::rank::wilcoxon::{paired_hodges_lehmann, wilcoxon_signed_rank};
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

    let mw = mann_whitney_u(base, cand).ok();
    let cliff = cliffs_delta(base, cand);
    let hl = hodges_lehmann(base, cand, config.confidence)
        .ok()
        .map(|s| ShiftReport {
            shift: s.shift,
            ci_low: s.ci_low,
            ci_high: s.ci_high,
        });

    let (ratio, ratio_ci) = headline_ratio(input);

    let paired = input.paired.map(|pa| paired_report(pa, input, config));
    let reference = input
        .table
        .and_then(|t| reference_report(input.data, t, input, config, warnings));

    let (verdict, downgraded) = practical_gate(pw, config, name, warnings);
    let outcome = outcome_of(
        verdict,
        ratio,
        ratio_ci,
        input.data.higher_is_better,
        config,
    );
    let summary = describe(&Facts {
        candidate: name,
        baseline: &input.members[input.baseline].name,
        outcome,
        verdict,
        ratio,
        ratio_ci,
        higher_is_better: input.data.higher_is_better,
        blocks: input.paired.map(|p| p.blocks),
        runs: (base.len(), cand.len()),
        basis,
        too_few_blocks: input
            .paired
            .map(|p| p.blocks)
            .filter(|&b| b < min_paired_blocks(config.alpha))
            .map(|b| (b, min_paired_blocks(config.alpha))),
        downgraded,
        effect: pw.effect.as_ref(),
        config,
    });

    Comparison {
        candidate: name.clone(),
        verdict,
        verdict_basis: basis.clone(),
        outcome,
        summary,
        ratio,
        ratio_ci,
        mann_whitney: mw.map(|m| MannWhitneyReport {
            u: m.u,
            p_value: m.p_value,
            method: m.method.as_str().to_string(),
        }),
        p_value_adjusted: pw.p_value_adjusted,
        cliffs_delta: Some(if downgraded.is_some() {
            CliffsDelta {
                magnitude: Magnitude::Negligible,
                ..cliff
            }
        } else {
            cliff
        }),
        hodges_lehmann: hl,
        paired,
        reference,
        custom_test: custom_test_report(basis, pw),
    }
}

/// The ratio the report leads with: the paired estimator's (the ratio of block means for
/// the mean-difference estimator), else the unpaired ratio of medians.
fn headline_ratio(input: &CandidateInput<'_>) -> (Option<f64>, Option<[f64; 2]>) {
    let config = input.config;
    match input.paired {
        Some(pa) => {
            let (point, ci) = match config.paired_estimator {
                PairedEstimator::MedianLogRatio => (pa.median_ratio, &pa.median_ratio_ci),
                PairedEstimator::HodgesLehmannLogRatio => (pa.hl_ratio, &pa.hl_ratio_ci),
                _ => (pa.ratio, &pa.ratio_ci),
            };
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

/// The practical gate, applied to whatever the test said: a significant verdict whose
/// practical value is below the minimum becomes not significant, with a warning. Returns
/// the verdict and the practical value that failed, if one did.
fn practical_gate(
    pw: &PairwiseComparison,
    config: &AnalysisConfig,
    candidate: &str,
    warnings: &mut Vec<Warning>,
) -> (Verdict, Option<f64>) {
    let practical = pw.effect.as_ref().and_then(|e| e.practical_value);
    match practical {
        Some(value)
            if pw.verdict == Verdict::Significant
                && config.min_practical_effect > 0.0
                && value < config.min_practical_effect =>
        {
            warnings.push(warnings::practical_gate(
                candidate,
                pw.effect.as_ref().map_or("", |e| e.metric.as_str()),
                value,
                config.min_practical_effect,
            ));
            (Verdict::NotSignificant, Some(value))
        }
        _ => (pw.verdict, None),
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
    report.wilcoxon_p = wilcoxon_signed_rank(&diffs).ok().map(|w| w.p_value);
    report.hodges_lehmann = paired_hodges_lehmann(&diffs, config.confidence)
        .ok()
        .map(|s| ShiftReport {
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
        replicated
            .then(|| paired_variance_components(base, cand).ok())
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
    let reference = data.reference.as_ref()?;
    let by_block: BTreeMap<u32, f64> = reference.iter().copied().collect();
    let mut rows = Vec::new();
    for (b, id) in table.ids.iter().enumerate() {
        if let Some(&r) = by_block.get(id) {
            rows.push((
                table.means[b][input.baseline],
                table.means[b][input.candidate],
                r,
            ));
        }
    }
    let sample =
        |f: fn(&(f64, f64, f64)) -> f64| Sample::from_vec(rows.iter().map(f).collect()).ok();
    let (b, c, r) = (sample(|x| x.0)?, sample(|x| x.1)?, sample(|x| x.2)?);
    let boot = BootstrapConfig {
        resamples: config.resamples,
        confidence: config.confidence,
        seed: config.seed,
        method: config.interval,
    };
    let ror = crate::paired::reference::ratio_of_ratios(&b, &c, &r, &boot).ok()?;
    if ror.noisy {
        warnings.push(warnings::noisy_reference(
            &input.members[input.candidate].name,
            ror.reference_cv.unwrap_or(0.0),
            ror.approximate_bias.unwrap_or(0.0),
        ));
    }
    Some(ror.to_report())
}
