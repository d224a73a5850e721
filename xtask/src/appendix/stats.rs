//! The appendix's statistics: the paired analysis of one block table (block bootstrap of
//! the mean difference and of the ratio of means, Cohen's dz), the unpaired contrast, and
//! the simulated false-positive rate of the null interval.

use anyhow::{Context, Result, bail};
use bench_stats::descriptive::{Summary, summarize};
use bench_stats::paired::{PairedAnalysis, PairedConfig, paired_analysis};
use bench_stats::resample::{
    BootstrapConfig, BootstrapInterval, IntervalMethod, bootstrap_mean,
    unpaired_bootstrap_difference,
};
use bench_stats::{PairedEstimator, Sample};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::fixture::{Fixture, PairedTable};
use super::{CONFIDENCE, NULL_SIMULATIONS, RESAMPLES};

/// The bootstrap settings of every interval here: the appendix's procedure.
pub(super) fn bootstrap(seed: u64) -> BootstrapConfig {
    BootstrapConfig {
        resamples: RESAMPLES,
        confidence: CONFIDENCE,
        seed,
        method: IntervalMethod::Percentile,
    }
}

/// Everything computed from one paired table.
#[derive(Debug, Clone)]
pub struct PairedStats {
    /// The data.
    pub table: PairedTable,
    /// Descriptives of the baseline row.
    pub baseline: Summary,
    /// Descriptives of the candidate row.
    pub candidate: Summary,
    /// Mean difference, dz, unpaired d, ...
    pub analysis: PairedAnalysis,
    /// Block-bootstrap interval of the mean difference.
    pub difference_ci: BootstrapInterval,
    /// Block-bootstrap interval of the ratio of means.
    pub ratio_ci: BootstrapInterval,
}

impl PairedStats {
    /// Computes the paired statistics of `table` with bootstrap seed `seed`.
    /// Time: two block bootstraps of 2000 resamples, O(2000 n).
    ///
    /// # Errors
    /// Non-finite or non-positive values, fewer than 2 blocks, unequal rows, or a
    /// degenerate interval.
    pub fn compute(table: PairedTable, seed: u64) -> Result<PairedStats> {
        let b = Sample::new(&table.baseline_values)
            .with_context(|| format!("the {} row", table.baseline))?;
        let c = Sample::new(&table.candidate_values)
            .with_context(|| format!("the {} row", table.candidate))?;
        let config = PairedConfig {
            bootstrap: bootstrap(seed),
            estimator: PairedEstimator::MeanDifference,
            higher_is_better: false,
            ..PairedConfig::default()
        };
        let analysis = paired_analysis(&b, &c, &config)?;
        let difference_ci = analysis.difference_ci.clone()?;
        let ratio_ci = analysis.ratio_ci.clone()?;
        Ok(PairedStats {
            baseline: summarize(&b),
            candidate: summarize(&c),
            analysis,
            difference_ci,
            ratio_ci,
            table,
        })
    }

    /// Per-block differences, candidate minus baseline.
    pub(super) fn differences(&self) -> Vec<f64> {
        let t = &self.table;
        t.baseline_values
            .iter()
            .zip(&t.candidate_values)
            .map(|(b, c)| c - b)
            .collect()
    }
}

/// The unpaired contrast: two independently collected sessions compared by resampling
/// individual runs.
#[derive(Debug, Clone)]
pub struct UnpairedStats {
    /// Where the two samples came from.
    pub source: String,
    /// First session's values (M ops/s).
    pub first: Vec<f64>,
    /// Second session's values (M ops/s).
    pub second: Vec<f64>,
    /// Descriptives of the first session.
    pub first_summary: Summary,
    /// Descriptives of the second session.
    pub second_summary: Summary,
    /// Unpaired bootstrap interval of mean(second) - mean(first).
    pub difference_ci: BootstrapInterval,
}

impl UnpairedStats {
    /// Resamples runs of each session separately ([`unpaired_bootstrap_difference`]).
    ///
    /// # Errors
    /// Empty or non-finite samples.
    pub fn compute(source: &str, first: Vec<f64>, second: Vec<f64>, seed: u64) -> Result<Self> {
        let a = Sample::new(&first)?;
        let b = Sample::new(&second)?;
        let difference_ci = unpaired_bootstrap_difference(&a, &b, &bootstrap(seed))?;
        Ok(UnpairedStats {
            source: source.to_owned(),
            first_summary: summarize(&a),
            second_summary: summarize(&b),
            first,
            second,
            difference_ci,
        })
    }
}

/// The three analyses of one data source (this machine, or the appendix's tables).
#[derive(Debug, Clone)]
pub struct Side {
    /// Real effect, chains=1 vs chains=2.
    pub real: PairedStats,
    /// Null pair, run A vs run B.
    pub null: PairedStats,
    /// Unpaired contrast.
    pub unpaired: UnpairedStats,
    /// Share of simulated null repetitions whose 95 % interval excluded 0 (see
    /// [`null_exclusion_rate`]).
    pub null_exclusion: f64,
}

impl Side {
    /// The appendix's own tables. Its unpaired sessions are not published, so the
    /// unpaired contrast resamples the runs of its null table with the blocks ignored.
    ///
    /// # Errors
    /// As [`PairedStats::compute`].
    pub fn appendix(fixture: &Fixture, seed: u64) -> Result<Side> {
        let null = PairedStats::compute(fixture.null_effect.clone(), seed)?;
        let unpaired = UnpairedStats::compute(
            "the null table's run A and run B rows, blocks ignored (the appendix does not \
             publish its unpaired sessions)",
            null.table.baseline_values.clone(),
            null.table.candidate_values.clone(),
            seed,
        )?;
        let null_exclusion = null_exclusion_rate(&null.differences(), NULL_SIMULATIONS, seed)?;
        Ok(Side {
            real: PairedStats::compute(fixture.real_effect.clone(), seed)?,
            null,
            unpaired,
            null_exclusion,
        })
    }
}

/// How often a 95 % block-bootstrap interval of the mean difference excludes 0 when the
/// true difference is 0: `reps` simulated experiments, each drawing `n` block differences
/// with replacement from `differences` shifted to mean 0, each analysed with the
/// appendix's 2000-resample percentile interval. By construction about 5 %; more when
/// the percentile interval undercovers at small `n`. Time: O(reps × 2000 × n).
///
/// # Errors
/// Fewer than 2 differences or a degenerate bootstrap.
pub fn null_exclusion_rate(differences: &[f64], reps: u32, seed: u64) -> Result<f64> {
    let n = differences.len();
    if n < 2 || reps == 0 {
        bail!("the null simulation needs at least 2 blocks and 1 repetition");
    }
    let mean = differences.iter().sum::<f64>() / n as f64;
    let centered: Vec<f64> = differences.iter().map(|d| d - mean).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6e75_6c6c);
    let mut excluded = 0u32;
    for rep in 0..reps {
        let draw: Vec<f64> = (0..n).map(|_| centered[rng.random_range(0..n)]).collect();
        let ci = bootstrap_mean(
            &Sample::new(&draw)?,
            &bootstrap(seed.wrapping_add(u64::from(rep))),
        )?;
        if !ci.contains(0.0) {
            excluded += 1;
        }
    }
    Ok(f64::from(excluded) / f64::from(reps))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Centred block differences with no effect, 12 blocks as in the appendix.
    const NULL_DIFFERENCES: [f64; 12] = [
        1.0, -2.0, 0.5, 3.0, -1.5, 2.5, -0.5, 1.5, -3.0, 0.0, 2.0, -1.0,
    ];
    /// Simulated experiments of the test below.
    const REPS: u32 = 1000;
    /// The long-run rate of the procedure on [`NULL_DIFFERENCES`]:
    /// `null_exclusion_rate(&NULL_DIFFERENCES, 4000, 99)` = 335/4000. Above the nominal 5 %
    /// because the 95 % percentile interval undercovers at 12 blocks, as the report's note
    /// says.
    const LONG_RUN: (u32, u32) = (335, 4000);

    /// Whether `rate`, a share of `REPS` simulated experiments, lies in the 99.9 % Monte
    /// Carlo interval of the long-run rate p: `p ± 3.29 √(p(1-p) (1/REPS + 1/4000))`, the
    /// binomial sd of both estimates (normal approximation, fine at p·n ≥ 80).
    fn within_monte_carlo(rate: f64) -> bool {
        let p = f64::from(LONG_RUN.0) / f64::from(LONG_RUN.1);
        let var = p * (1.0 - p) * (1.0 / f64::from(REPS) + 1.0 / f64::from(LONG_RUN.1));
        (rate - p).abs() <= 3.29 * var.sqrt()
    }

    #[test]
    fn null_simulation_rejects_at_its_long_run_rate() {
        // The interval is about [0.052, 0.116]: it can fail, both below and above.
        assert!(!within_monte_carlo(0.12));
        assert!(!within_monte_carlo(0.04));
        let rate = null_exclusion_rate(&NULL_DIFFERENCES, REPS, 7).unwrap();
        assert!(within_monte_carlo(rate), "{rate}");
        assert!(null_exclusion_rate(&NULL_DIFFERENCES[..1], 10, 7).is_err());
    }
}
