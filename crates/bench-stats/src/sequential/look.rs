//! The block log-ratios of a dataset, as the analysis summarizes its blocks.

use crate::analysis::blocks::block_table;
use crate::model::dataset::{Dataset, Series};

use super::rule::block_log_ratios;

/// The per-block log-ratios `ln(candidate / baseline)` of a two-variant blocked dataset,
/// in block order, from the same block table (block summaries) the paired analysis uses;
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
    let values: Vec<[f64; 2]> = table.means.iter().map(|m| [m[0], m[1]]).collect();
    block_log_ratios(&values)
}
