//! How many runs per variant per block pay off: Kalibera and Jones's cost-ratio rule
//! ("Rigorous benchmarking in reasonable time", ISMM 2013, section 4).
//!
//! With `r` runs of each variant per block, a block's log-ratio has variance
//! `s2_block + 2 s2_run / r` (the block-level variance of the effect plus the run noise
//! averaged over the replicates) and costs `c_block + 2 r c_run`. Their product, the
//! variance per unit of time, is smallest at
//!
//! ```text
//! r* = sqrt( (c_block / c_run) * (s2_run / s2_block) )
//! ```
//!
//! (their `n_i = sqrt(c_{i+1} / c_i * S_i^2 / S_{i+1}^2)` for two levels): more runs per
//! block pay off only when starting a block is expensive against a run and the run noise
//! dominates the block-to-block variation of the effect.

/// The rule's inputs and answer.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunsAdvice {
    /// Variance of one run's log value around its block's mean, pooled over both variants.
    pub run_variance: f64,
    /// Block-level variance of the effect: the block log-ratios' variance less what the
    /// run noise explains (`None` when the run noise explains all of it).
    pub block_variance: Option<f64>,
    /// Cost of one run, seconds.
    pub run_cost_s: f64,
    /// Cost of starting a block beyond its runs (per-block warm-ups, hooks), seconds.
    pub block_cost_s: f64,
    /// Runs per variant per block that minimize variance per unit time (`None` when the
    /// block-level variance is not detectable: then only the total run count matters).
    pub optimal_runs: Option<f64>,
    /// Runs per variant per block the design makes (2 in ABBA for two variants).
    pub design_runs: u32,
}

/// The rule for `blocks` (each `[baseline replicates, candidate replicates]`, positive
/// values), at costs `run_cost_s` and `block_cost_s`; `None` with fewer than two blocks or
/// a block without two replicates of each. Time: O(values).
pub fn runs_per_block(
    blocks: &[[Vec<f64>; 2]],
    run_cost_s: f64,
    block_cost_s: f64,
) -> Option<RunsAdvice> {
    let r_min = blocks.iter().flat_map(|b| b.iter().map(Vec::len)).min()?;
    if blocks.len() < 2 || r_min < 2 {
        return None;
    }
    let mut within = 0.0;
    let mut df = 0.0;
    let mut ratios = Vec::with_capacity(blocks.len());
    for b in blocks {
        let mut means = [0.0; 2];
        for (k, reps) in b.iter().enumerate() {
            let logs: Vec<f64> = reps.iter().map(|v| v.ln()).collect();
            let m = logs.iter().sum::<f64>() / logs.len() as f64;
            within += logs.iter().map(|x| (x - m).powi(2)).sum::<f64>();
            df += (logs.len() - 1) as f64;
            means[k] = m;
        }
        ratios.push(means[1] - means[0]);
    }
    let run_variance = within / df;
    let n = ratios.len() as f64;
    let mean = ratios.iter().sum::<f64>() / n;
    let total = ratios.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let r = blocks
        .iter()
        .map(|b| b[0].len() + b[1].len())
        .sum::<usize>() as f64
        / (2.0 * n);
    let block_variance = Some(total - 2.0 * run_variance / r).filter(|v| *v > 0.0);
    let optimal_runs = block_variance
        .map(|vb| ((block_cost_s / run_cost_s.max(1e-12)) * (run_variance / vb)).sqrt());
    Some(RunsAdvice {
        run_variance,
        block_variance,
        run_cost_s,
        block_cost_s,
        optimal_runs,
        design_runs: r.round() as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_blocks_want_the_fewest_runs_and_costly_blocks_more() {
        // Run noise ~1%, block effects varying by ~3%.
        let blocks: Vec<[Vec<f64>; 2]> = (0..40)
            .map(|i| {
                let e = 1.0 + 0.02 * (f64::from(i % 5) - 2.0);
                [vec![100.0, 101.0], vec![100.0 * e, 101.0 * e * 1.01]]
            })
            .collect();
        let free = runs_per_block(&blocks, 0.05, 0.0).unwrap();
        assert_eq!(free.optimal_runs, Some(0.0));
        let costly = runs_per_block(&blocks, 0.05, 5.0).unwrap();
        assert!(costly.optimal_runs.unwrap() > 1.0);
        assert_eq!(costly.design_runs, 2);
    }
}
