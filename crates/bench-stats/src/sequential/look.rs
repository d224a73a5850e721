//! The block log-ratios of a dataset, as the analysis summarizes its blocks.

use crate::analysis::blocks::block_table;
use crate::model::dataset::{Dataset, Series};
use crate::paired::estimators::PairedEstimator;

use super::rule::block_log_ratios;

/// The per-block log-ratios `ln(candidate / baseline)` of a two-variant blocked dataset,
/// in block order, of the block summary the default paired estimator uses (each variant's
/// fastest run in the block: the largest value when higher is better);
/// `baseline` names the baseline (default: the first series). `None` when the data are
/// not two blocked series or a block value is not positive. Time: O(values log blocks).
pub fn dataset_log_ratios(data: &Dataset, baseline: Option<&str>) -> Option<Vec<f64>> {
    if data.series.len() != 2 {
        return None;
    }
    let b = match baseline {
        Some(name) => data.series.iter().position(|s| s.name == name)?,
        None => 0,
    };
    let members: Vec<&Series> = vec![&data.series[b], &data.series[1 - b]];
    let table = block_table(&members)?;
    // The default estimator's block summary: each variant's least disturbed run.
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
