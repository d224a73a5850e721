//! The block log-ratios of a dataset, as the analysis summarizes its blocks.

use crate::analysis::blocks::{BlockTable, block_table};
use crate::model::dataset::{Dataset, Series};
use crate::paired::estimators::PairedEstimator;

use crate::paired::shape::{ShapeAnalysis, ShapeConfig, shape_analysis};

use super::rule::{LookDecision, SequentialRule, block_log_ratios};

/// The per-block log-ratios `ln(candidate / baseline)` of a two-variant blocked dataset,
/// in block order, of the block summary the default paired estimator uses (each variant's
/// median run in the block, the typical run of the block);
/// `baseline` names the baseline (default: the first series). `None` when the data are
/// not two blocked series or a block value is not positive. Time: O(values log blocks).
pub fn dataset_log_ratios(data: &Dataset, baseline: Option<&str>) -> Option<Vec<f64>> {
    let table = two_blocked(data, baseline)?;
    // The default estimator's block summary: each variant's median run in the block.
    let summary = PairedEstimator::default()
        .block_summary()
        .oriented(data.higher_is_better);
    let values: Vec<[f64; 2]> = (0..table.ids.len())
        .map(|b| {
            Some([
                summary.of(&table.replicates[0][b])?,
                summary.of(&table.replicates[1][b])?,
            ])
        })
        .collect::<Option<_>>()?;
    block_log_ratios(&values)
}

/// The block table of a two-variant dataset, the baseline (`baseline`, default the first
/// series) first; `None` unless there are exactly two series and their blocks pair up.
fn two_blocked(data: &Dataset, baseline: Option<&str>) -> Option<BlockTable> {
    if data.series.len() != 2 {
        return None;
    }
    let b = match baseline {
        Some(name) => data.series.iter().position(|s| s.name == name)?,
        None => 0,
    };
    let members: Vec<&Series> = vec![&data.series[b], &data.series[1 - b]];
    block_table(&members)
}

/// The shape check of a two-variant blocked dataset ([`crate::paired::shape`]): the two
/// run distributions at p10, p50 and p90 and the mean run, family-wise at `rule.alpha`, margin
/// `rule.margin`. `None` when the data are not two blocked series of positive runs.
pub fn dataset_shape(
    data: &Dataset,
    baseline: Option<&str>,
    rule: &SequentialRule,
) -> Option<ShapeAnalysis> {
    let table = two_blocked(data, baseline)?;
    let config = ShapeConfig {
        alpha: rule.alpha,
        confidence: 1.0 - rule.alpha,
        margin: rule.margin,
        higher_is_better: data.higher_is_better,
        ..ShapeConfig::default()
    };
    shape_analysis(&table.replicates[0], &table.replicates[1], &config).ok()
}

/// Whether a look's decision agrees with the shape check: every part could have been
/// resolved (each has its interval: with too few blocks for a part's share of alpha it
/// cannot move, and its silence is no agreement) and no part moved against the decision
/// beyond the margin (a decision "larger" with no part significantly smaller, "smaller"
/// with none larger, "equivalent" with the typical run shown inside `margin` and the mean
/// run and the tails inside theirs). A sequence
/// stops only on a decision that agrees; undecided looks agree trivially.
pub fn shape_agrees(
    decision: LookDecision,
    shape: &ShapeAnalysis,
    higher_is_better: bool,
    margin: f64,
) -> bool {
    // Parts are oriented: "slower" is worse. "Larger" is worse for times.
    let (larger_worse, worse, better) = (!higher_is_better, shape.any_slower(), shape.any_faster());
    let resolvable = shape.parts().all(|q| q.interval.is_some());
    match decision {
        LookDecision::Larger | LookDecision::Smaller if !resolvable => false,
        LookDecision::Larger if larger_worse => !better,
        LookDecision::Larger => !worse,
        LookDecision::Smaller if larger_worse => !worse,
        LookDecision::Smaller => !better,
        // EQUIVALENT claims the typical run inside the margin and the mean run and the
        // tails inside theirs (`crate::analysis::decision::shape_equivalent`).
        LookDecision::Equivalent => {
            crate::analysis::decision::shape_equivalent(shape, margin, higher_is_better)
        }
        LookDecision::Undecided => true,
    }
}
