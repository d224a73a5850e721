//! The trend across a numeric parameter: Page's L test (Page 1963) on the block table
//! with the benchmarks ordered by their parameter values.
//!
//! A scan's parameter values are ordered, so besides "do the values differ" (the
//! omnibus) one may ask "do they move one way as the parameter grows". Page's L is the
//! blocked analogue of Spearman's rank correlation between the parameter and the values:
//! it ranks within blocks, so session-level drift between blocks cannot fake a trend.
//! It tests a monotone tendency only; a non-monotone pattern (one value standing out)
//! is the omnibus test's and the post-hoc comparisons' to find, never discarded for
//! its shape.

use crate::analysis::blocks::BlockTable;
use crate::model::dataset::Series;
use crate::model::report::{TrendDirection, TrendReport, TrendTest};
use crate::rank::page_trend;

/// The trend of `members` across their shared parameter, when every member carries a
/// parameter of the same name, the values are distinct and 3 or more, and the data are
/// blocked (`table`). `None` otherwise. Time: O(b k log k), plus the exact
/// distribution for small tables.
pub(crate) fn trend(
    members: &[&Series],
    table: Option<&BlockTable>,
    alpha: f64,
) -> Option<TrendReport> {
    let table = table?;
    if members.len() < 3 {
        return None;
    }
    let params: Vec<_> = members
        .iter()
        .map(|s| s.parameter.as_ref())
        .collect::<Option<_>>()?;
    let name = &params[0].name;
    if params
        .iter()
        .any(|p| &p.name != name || !p.value.is_finite())
    {
        return None;
    }
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by(|&a, &b| params[a].value.total_cmp(&params[b].value));
    let values: Vec<f64> = order.iter().map(|&i| params[i].value).collect();
    if values.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    let rows: Vec<Vec<f64>> = table
        .means
        .iter()
        .map(|row| order.iter().map(|&i| row[i]).collect())
        .collect();
    let t = page_trend(&rows).ok()?;
    let direction = if t.z > 0.0 {
        TrendDirection::Increasing
    } else if t.z < 0.0 {
        TrendDirection::Decreasing
    } else {
        TrendDirection::None
    };
    Some(TrendReport {
        test: TrendTest::PageL,
        parameter: name.clone(),
        values,
        statistic: t.statistic,
        z: t.z,
        p_value: t.p_value,
        method: t.method.as_str().to_owned(),
        blocks: t.blocks,
        direction,
        significant: t.p_value < alpha,
        benchmarks: order.iter().map(|&i| members[i].name.clone()).collect(),
        monotone: monotone(&rows, direction),
    })
}

/// Whether the median over blocks of each column of `rows` (benchmarks in parameter
/// order) never steps against `direction`, ties allowed. Time: O(k b log b).
fn monotone(rows: &[Vec<f64>], direction: TrendDirection) -> bool {
    let k = rows.first().map_or(0, Vec::len);
    let medians: Vec<f64> = (0..k)
        .map(|j| {
            let mut col: Vec<f64> = rows.iter().map(|r| r[j]).collect();
            col.sort_by(f64::total_cmp);
            crate::descriptive::summary::quantile_sorted(&col, 0.5)
        })
        .collect();
    medians.windows(2).all(|w| match direction {
        TrendDirection::Increasing => w[1] >= w[0],
        TrendDirection::Decreasing => w[1] <= w[0],
        TrendDirection::None => false,
    })
}
