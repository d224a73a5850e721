//! The two-variant paired verdict: the configured estimator's interval, and the fewest
//! blocks that can reach alpha.

use crate::analysis::config::AnalysisConfig;
use crate::analysis::significance::{
    PairwiseComparison, SignificanceContext, SignificanceReport, dominance_effect,
};
use crate::model::report::Verdict;
use crate::paired::estimators::PairedAnalysis;
use crate::rank::wilcoxon::wilcoxon_signed_rank;

/// The fewest blocks with which a two-sided paired test can reach `alpha` at all: the
/// smallest exact sign or signed-rank p-value with `n` blocks is `2 / 2^n`, so
/// `n >= log2(2 / alpha)` (6 blocks at alpha = 0.05).
pub(crate) fn min_paired_blocks(alpha: f64) -> usize {
    (2.0 / alpha).log2().ceil().max(2.0) as usize
}

/// The two-variant paired verdict: the configured estimator's interval (block bootstrap,
/// or signed-rank inversion for the default) excludes "no difference". Its practical value is the paired dominance over blocks.
pub(crate) fn paired_bootstrap_report(
    ctx: &SignificanceContext<'_>,
    paired: &[Option<PairedAnalysis>],
    config: &AnalysisConfig,
) -> SignificanceReport {
    let pairwise = ctx
        .candidates()
        .map(|i| {
            let name = ctx.groups[i].name.to_string();
            let Some(pa) = &paired[i] else {
                return PairwiseComparison {
                    candidate: name,
                    p_value: None,
                    p_value_adjusted: None,
                    verdict: Verdict::NotTested,
                    effect: None,
                    shift: None,
                };
            };
            let (point, interval) = pa.primary();
            let null = config.paired_estimator.null_value();
            // Too few blocks: no paired test can reach alpha, and an interval formed anyway
            // would cover less than it claims (the signed-rank one falls back to min..max).
            let enough = pa.blocks >= min_paired_blocks(config.alpha)
                && interval
                    .as_ref()
                    .is_ok_and(|ci| ci.confidence + 1e-9 >= config.confidence);
            let verdict = match (point, interval) {
                _ if !enough => Verdict::NotTested,
                (Some(_), Ok(ci)) if ci.low > null || ci.high < null => Verdict::Significant,
                (Some(_), Ok(_)) => Verdict::NotSignificant,
                _ => Verdict::NotTested,
            };
            let base: Vec<f64> = pa.block_values.iter().map(|v| v[0]).collect();
            let cand: Vec<f64> = pa.block_values.iter().map(|v| v[1]).collect();
            let diffs: Vec<f64> = cand.iter().zip(&base).map(|(c, b)| c - b).collect();
            PairwiseComparison {
                candidate: name,
                p_value: wilcoxon_signed_rank(&diffs).ok().map(|w| w.p_value),
                p_value_adjusted: None,
                verdict,
                effect: dominance_effect(&base, &cand),
                shift: None,
            }
        })
        .collect();
    SignificanceReport {
        pairwise,
        omnibus: None,
    }
}
