//! The two-variant paired verdict: the configured estimator's interval, and the fewest
//! blocks that can reach alpha.

use crate::analysis::config::AnalysisConfig;
use crate::analysis::significance::SignificanceTest;
use crate::analysis::significance::{
    PairwiseComparison, SignificanceContext, SignificanceReport, dominance_effect,
};
use crate::descriptive::Sample;
use crate::model::report::Verdict;
use crate::paired::estimators::{PairedAnalysis, PairedConfig, paired_analysis};
use crate::rank::wilcoxon::signed_rank_no_change;
use crate::resample::bootstrap::BootstrapConfig;

/// The fewest blocks with which a two-sided paired test can reach `alpha` at all: the
/// smallest exact sign or signed-rank p-value with `n` blocks is `2 / 2^n`, so
/// `n >= log2(2 / alpha)` (6 blocks at alpha = 0.05).
pub(crate) fn min_paired_blocks(alpha: f64) -> usize {
    (2.0 / alpha).log2().ceil().max(2.0) as usize
}

/// The fewest blocks the configured paired estimator can decide with: the typical run
/// tests its parts min-p adjusted ([`crate::paired::shape::min_shape_blocks`], 6 at
/// 0.05), the others one test at `alpha` ([`min_paired_blocks`], 6 at 0.05).
pub(crate) fn min_blocks(config: &AnalysisConfig) -> usize {
    if config.paired_estimator == crate::PairedEstimator::TypicalRun {
        crate::paired::shape::min_shape_blocks(config.alpha, crate::paired::shape::SHAPE_PARTS)
    } else {
        min_paired_blocks(config.alpha)
    }
}

/// The per-block values a paired test ranks: the log-ratios `ln(c / b)` when every value
/// is positive (the scale of the ratio the report leads with), else the differences
/// `c - b`; and the scale's name.
pub(crate) fn paired_scale(base: &[f64], cand: &[f64]) -> (Vec<f64>, &'static str) {
    if base.iter().chain(cand).all(|&v| v > 0.0) {
        let logs = cand
            .iter()
            .zip(base)
            .map(|(c, b)| crate::special::log_ratio(*c, *b))
            .collect();
        (logs, "block-log-ratios")
    } else {
        let diffs = cand.iter().zip(base).map(|(c, b)| c - b).collect();
        (diffs, "block-differences")
    }
}

/// The two-sided p of no change of `ranked` on `scale` (see [`paired_scale`]), the one the
/// Hodges-Lehmann interval of the same values agrees with
/// ([`crate::rank::signed_rank_no_change`]: conditional on the informative blocks, and
/// no smaller than the interval's own p): 1 when every block log-ratio is exactly zero
/// (no block differs, as identical instruction counts give), `None` when no test can be
/// made (all-zero differences of values that are not all positive stay untested: their
/// sentence says nothing varies).
pub(crate) fn signed_rank_p(ranked: &[f64], scale: &str) -> Option<f64> {
    let positive = scale == "block-log-ratios";
    if positive && !ranked.is_empty() && ranked.iter().all(|&d| d == 0.0) {
        return Some(1.0);
    }
    signed_rank_no_change(ranked).ok().map(|t| t.p_value)
}

/// The blocks whose ranked value (log-ratio or difference) is not exactly zero: the ones
/// that inform a signed-rank test of no change.
pub(crate) fn informative_blocks(blocks: &[[f64; 2]]) -> usize {
    let base: Vec<f64> = blocks.iter().map(|v| v[0]).collect();
    let cand: Vec<f64> = blocks.iter().map(|v| v[1]).collect();
    let (ranked, _) = paired_scale(&base, &cand);
    ranked.iter().filter(|&&d| d != 0.0).count()
}

/// `(informative, blocks, needed)` when a signed-rank estimator's comparison has enough
/// blocks but too few of them differ for its test to reach alpha (some, not none, differ:
/// when no block differs the p is 1 and the comparison is tested).
pub(crate) fn too_few_informative(
    pa: &PairedAnalysis,
    config: &AnalysisConfig,
) -> Option<(usize, usize, usize)> {
    if !config.paired_estimator.is_signed_rank() {
        return None;
    }
    let blocks = pa.decision_blocks();
    let need = min_paired_blocks(config.alpha);
    let informative = informative_blocks(blocks);
    (blocks.len() >= need && informative > 0 && informative < need).then_some((
        informative,
        blocks.len(),
        need,
    ))
}

/// The two-variant paired verdict, one decision with one p: for the default estimator the
/// Wilcoxon signed-rank test of the block log-ratios (the test whose inversion gives the
/// Hodges-Lehmann interval) against alpha; for a bootstrap estimator, its block-bootstrap
/// interval at `1 - alpha` against no change. Fewer blocks than can reach alpha are not
/// tested, and for the signed-rank estimators neither are fewer *informative* blocks
/// (block log-ratios not exactly zero: the test is conditional on them). Its practical
/// value is the paired dominance over blocks.
pub(crate) fn paired_bootstrap_report(
    ctx: &SignificanceContext<'_>,
    paired: &[Option<PairedAnalysis>],
    config: &AnalysisConfig,
) -> SignificanceReport {
    let pairwise = ctx
        .candidates()
        .map(|i| {
            let name = ctx.groups[i].name;
            let Some(pa) = &paired[i] else {
                return PairwiseComparison::new(name, Verdict::NotTested);
            };
            let base: Vec<f64> = pa.block_values.iter().map(|v| v[0]).collect();
            let cand: Vec<f64> = pa.block_values.iter().map(|v| v[1]).collect();
            let p = decision_p(pa);
            // Fewer blocks, or fewer blocks that differ, than the test needs to reach
            // alpha: no test.
            let enough =
                pa.blocks >= min_blocks(config) && too_few_informative(pa, config).is_none();
            let estimator = config.paired_estimator;
            let (verdict, p) = match p {
                _ if !enough => (Verdict::NotTested, p),
                Some(p) if estimator.is_signed_rank() || estimator.needs_runs() => {
                    (verdict_of(p, config.alpha), Some(p))
                }
                _ if estimator.is_signed_rank() || estimator.needs_runs() => {
                    (Verdict::NotTested, None)
                }
                _ => (bootstrap_verdict(pa, config), None),
            };
            let mut pw = PairwiseComparison::new(name, verdict);
            if let Some(p) = p {
                pw = pw.with_p_value(p);
            }
            match dominance_effect(&base, &cand) {
                Some(effect) => pw.with_effect(effect),
                None => pw,
            }
        })
        .collect();
    SignificanceReport::new(pairwise)
}

/// The p-value of the deciding test: the estimator's own (signed-rank p of its summarized
/// block log-ratios, or the pooled-median ratio's bootstrap p) when it computed one from the
/// runs, else the signed-rank p of the block-mean log-ratios.
fn decision_p(pa: &PairedAnalysis) -> Option<f64> {
    if let Some(r) = &pa.from_runs {
        return r.p_value;
    }
    let base: Vec<f64> = pa.block_values.iter().map(|v| v[0]).collect();
    let cand: Vec<f64> = pa.block_values.iter().map(|v| v[1]).collect();
    let (ranked, scale) = paired_scale(&base, &cand);
    signed_rank_p(&ranked, scale)
}

/// A bootstrap estimator's verdict: its block-bootstrap interval at `1 - alpha` excludes
/// no change (recomputed at that level when the reported intervals use another).
fn bootstrap_verdict(pa: &PairedAnalysis, config: &AnalysisConfig) -> Verdict {
    let level = 1.0 - config.alpha;
    let recomputed;
    let analysis =
        if (pa.primary().1.as_ref().map_or(level, |ci| ci.confidence) - level).abs() < 1e-12 {
            pa
        } else {
            let side = |k: usize| Sample::from_vec(pa.block_values.iter().map(|v| v[k]).collect());
            let (Ok(b), Ok(c)) = (side(0), side(1)) else {
                return Verdict::NotTested;
            };
            let at_level = PairedConfig {
                bootstrap: BootstrapConfig {
                    resamples: config.resamples,
                    confidence: level,
                    seed: config.seed,
                    method: config.interval,
                },
                estimator: config.paired_estimator,
                // The bootstrap estimators recomputed here all use block means.
                higher_is_better: false,
                alpha: config.alpha,
                margin: config.equivalence_margin,
            };
            match paired_analysis(&b, &c, &at_level) {
                Ok(a) => {
                    recomputed = a;
                    &recomputed
                }
                Err(_) => return Verdict::NotTested,
            }
        };
    let null = config.paired_estimator.null_value();
    match analysis.primary() {
        (Some(_), Ok(ci)) if ci.low > null || ci.high < null => Verdict::Significant,
        (Some(_), Ok(_)) => Verdict::NotSignificant,
        _ => Verdict::NotTested,
    }
}

fn verdict_of(p: f64, alpha: f64) -> Verdict {
    if p < alpha {
        Verdict::Significant
    } else {
        Verdict::NotSignificant
    }
}

/// Three or more blocked variants under the typical run: one set of values for every
/// step. The Friedman omnibus ranks each variant's median run per block (the typical run
/// of the block, not its mean), and each candidate's post-hoc test is its own shape
/// check's randomization p (the one its printed ratio, interval and equivalence come
/// from), Holm-adjusted over the candidates and gated by the omnibus. When a candidate has
/// no shape check (values that are not all positive), the signed-rank test of the same
/// block medians decides, as for two variants.
pub(crate) fn typical_run_omnibus(
    ctx: &SignificanceContext<'_>,
    replicates: &[crate::model::Blocks],
    paired: &[Option<PairedAnalysis>],
    config: &AnalysisConfig,
) -> SignificanceReport {
    let blocks = replicates.first().map_or(0, crate::model::Blocks::len);
    let medians: Option<Vec<Vec<f64>>> = (0..blocks)
        .map(|b| {
            replicates
                .iter()
                .map(|g| crate::paired::BlockSummary::Median.of(&g[b]))
                .collect()
        })
        .collect();
    let Some(medians) = medians else {
        return crate::analysis::significance::FriedmanTest.analyze(ctx);
    };
    let on_medians = SignificanceContext {
        groups: ctx.groups,
        baseline: ctx.baseline,
        alpha: ctx.alpha,
        blocks: Some(&medians),
    };
    let mut report = crate::analysis::significance::FriedmanTest.analyze(&on_medians);
    let candidates: Vec<usize> = ctx.candidates().collect();
    let shape_p: Option<Vec<f64>> = candidates
        .iter()
        .map(|&i| {
            paired[i]
                .as_ref()?
                .from_runs
                .as_ref()?
                .shape
                .as_ref()
                .map(|s| s.p_value)
        })
        .collect();
    let gated = report.omnibus.as_ref().is_some_and(|o| o.significant);
    let (Some(shape_p), true) = (shape_p, gated) else {
        return report;
    };
    let adjusted =
        crate::rank::holm::holm_bonferroni(&shape_p.iter().map(|&p| Some(p)).collect::<Vec<_>>());
    let enough = blocks >= min_blocks(config);
    for ((pw, &p), adj) in report.pairwise.iter_mut().zip(&shape_p).zip(adjusted) {
        pw.p_value = Some(p);
        pw.p_value_adjusted = adj;
        pw.verdict = match adj {
            Some(a) if enough => verdict_of(a, config.alpha),
            _ => Verdict::NotTested,
        };
    }
    report
}
