//! Paired analysis of blocked data: the block bootstrap and paired effect sizes.
//!
//! Input is one value per block per variant (the block mean when a block holds several
//! runs of a variant, e.g. the two runs of an ABBA block). The block is the resampling
//! unit: a resample draws whole blocks with replacement, keeping each block's baseline and
//! candidate together, so whatever the two shared inside a block (thermal state, frequency,
//! background load) stays out of the difference (Efron & Tibshirani 1993, §8.3 on
//! resampling the independent unit).
//!
//! Conventions: differences are candidate minus baseline; ratios are candidate over
//! baseline.

use crate::descriptive::summary::{mean, median, variance_parts};
use crate::model::blocks::{AsBlocks, Blocks as RunBlocks};
use crate::model::distribution::{DistributionKind, IntervalDistribution};
use crate::model::report::PairedReport;
use crate::paired::robust::{BlockSummary, pooled_median_ratio};
use crate::paired::shape::{ShapeAnalysis, ShapeConfig, shape_analysis_keeping};
use crate::rank::wilcoxon::paired_hodges_lehmann_walsh;
use crate::resample::bootstrap::{
    self, BootstrapConfig, BootstrapInterval, IntervalMethod, Statistic,
};
use crate::{Sample, StatsError};

/// The paired statistic: what [`block_bootstrap`] resamples, and in [`PairedConfig`] the
/// single switch choosing which estimate decides a paired verdict.
///
/// The default is [`PairedEstimator::TypicalRun`], the same for [`PairedConfig`] and
/// [`crate::AnalysisConfig`]; `MeanDifference` is the appendix's statistic. The default is
/// chosen by calibration (`docs/estimator-grid.md`, with the commands that print its
/// tables) and may change with it: read [`PairedAnalysis::primary`] rather than hard-code
/// a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum PairedEstimator {
    /// Mean of per-block differences, candidate - baseline. Unit: the data's unit.
    MeanDifference,
    /// Ratio of block means, `mean(candidate) / mean(baseline)`. Needs positive values.
    RatioOfMeans,
    /// `exp(median(ln(candidate_i / baseline_i)))`: a robust ratio that one outlying block
    /// cannot move far. Needs positive values. Prefer percentile or BCa intervals for it:
    /// the studentized interval relies on the jackknife standard error, which is not
    /// consistent for a median (Efron 1982) and comes out erratic with few blocks.
    MedianLogRatio,
    /// `exp` of the Hodges-Lehmann estimate of the per-block log-ratios (the median of their
    /// Walsh averages), with the interval from inverting the Wilcoxon signed-rank test
    /// instead of a bootstrap ([`IntervalMethod::SignedRank`]). Valid when the log-ratios
    /// are symmetric under no change, which ABBA/BAAB and randomized orders give. The
    /// block values are the means of each variant's runs in the block. Needs positive
    /// values.
    #[cfg_attr(feature = "serde", serde(rename = "hl-log-ratio"))]
    HodgesLehmannLogRatio,
    /// The Hodges-Lehmann ratio with its signed-rank interval, as
    /// [`PairedEstimator::HodgesLehmannLogRatio`], of the per-block log-ratios of each
    /// variant's fastest run in the block ([`BlockSummary::Min`] for times, the largest
    /// value when higher is better): a run slowed by the machine does not move its block.
    /// Its estimand is the fastest run of each block, not the typical run: a change that
    /// slows only some runs leaves it unmoved; its power on pure shifts against the other
    /// estimators is in `docs/estimator-grid.md`. Needs positive values.
    #[cfg_attr(feature = "serde", serde(rename = "hl-min-log-ratio"))]
    HodgesLehmannMinLogRatio,
    /// The same on each variant's median run in the block ([`BlockSummary::Median`]; with
    /// two runs per variant this is the mean). Needs positive values.
    #[cfg_attr(feature = "serde", serde(rename = "hl-median-log-ratio"))]
    HodgesLehmannMedianLogRatio,
    /// The candidate's median over all its runs divided by the baseline's, with a block
    /// bootstrap that resamples whole blocks ([`crate::paired::pooled_median_ratio`]);
    /// decided by the bootstrap p-value. Needs positive values.
    PooledMedianRatio,
    /// The **typical run**, abba's default (`--estimator typical-run`). The ratio of the two
    /// variants' median runs, every run counted, each divided by its block's center (the
    /// geometric mean of the variants' fastest runs in the block) so that session noise
    /// cancels, with the fast (p10) and slow (p90) runs checked beside it
    /// ([`crate::paired::shape`]): a randomization test that swaps the variants' runs
    /// inside blocks, with the mean run (the blocks' ratios of means, signed-rank) as a
    /// fourth part, a weighted min-p adjustment over the four, intervals from the same
    /// reference distributions. Its expectation does not depend on how many runs a block
    /// holds. Needs positive values. Chosen by the whole-decision grid on changes that are
    /// not shifts (its error rates, with the command that prints them:
    /// `docs/estimator-grid.md`).
    #[default]
    TypicalRun,
}

impl PairedEstimator {
    /// Stable kebab-case name: `typical-run`, `mean-difference`, `ratio-of-means`, `median-log-ratio`,
    /// `hl-log-ratio`, `hl-min-log-ratio`, `hl-median-log-ratio`, `pooled-median-ratio`.
    pub fn as_str(self) -> &'static str {
        match self {
            PairedEstimator::MeanDifference => "mean-difference",
            PairedEstimator::RatioOfMeans => "ratio-of-means",
            PairedEstimator::MedianLogRatio => "median-log-ratio",
            PairedEstimator::HodgesLehmannLogRatio => "hl-log-ratio",
            PairedEstimator::HodgesLehmannMinLogRatio => "hl-min-log-ratio",
            PairedEstimator::HodgesLehmannMedianLogRatio => "hl-median-log-ratio",
            PairedEstimator::PooledMedianRatio => "pooled-median-ratio",
            PairedEstimator::TypicalRun => "typical-run",
        }
    }

    /// Every estimator, in the order of [`PairedEstimator::as_str`]'s list.
    pub const ALL: [PairedEstimator; 8] = [
        PairedEstimator::TypicalRun,
        PairedEstimator::MeanDifference,
        PairedEstimator::RatioOfMeans,
        PairedEstimator::MedianLogRatio,
        PairedEstimator::HodgesLehmannLogRatio,
        PairedEstimator::HodgesLehmannMinLogRatio,
        PairedEstimator::HodgesLehmannMedianLogRatio,
        PairedEstimator::PooledMedianRatio,
    ];

    /// How this estimator summarizes a variant's runs in one block, for data where lower
    /// is better ([`BlockSummary::Min`] becomes [`BlockSummary::Max`] when higher is
    /// better: [`PairedConfig::higher_is_better`]).
    pub fn block_summary(self) -> BlockSummary {
        match self {
            PairedEstimator::HodgesLehmannMinLogRatio => BlockSummary::Min,
            PairedEstimator::HodgesLehmannMedianLogRatio | PairedEstimator::TypicalRun => {
                BlockSummary::Median
            }
            PairedEstimator::MeanDifference
            | PairedEstimator::RatioOfMeans
            | PairedEstimator::MedianLogRatio
            | PairedEstimator::HodgesLehmannLogRatio
            | PairedEstimator::PooledMedianRatio => BlockSummary::Mean,
        }
    }

    /// `true` for the Hodges-Lehmann estimators, whose interval inverts the signed-rank
    /// test and whose verdict is that test's p.
    pub fn is_signed_rank(self) -> bool {
        matches!(
            self,
            PairedEstimator::HodgesLehmannLogRatio
                | PairedEstimator::HodgesLehmannMinLogRatio
                | PairedEstimator::HodgesLehmannMedianLogRatio
        )
    }

    /// `true` when the estimator needs every run of a block, not only the block means.
    pub fn needs_runs(self) -> bool {
        matches!(
            self,
            PairedEstimator::HodgesLehmannMinLogRatio
                | PairedEstimator::HodgesLehmannMedianLogRatio
                | PairedEstimator::PooledMedianRatio
                | PairedEstimator::TypicalRun
        )
    }

    /// What the estimate is about, for sentences: "the typical run", "the fastest run of
    /// each block", "the block means".
    pub fn estimand(self) -> &'static str {
        match self {
            PairedEstimator::TypicalRun => "the typical run",
            PairedEstimator::HodgesLehmannMinLogRatio => "the fastest run of each block",
            PairedEstimator::HodgesLehmannMedianLogRatio => "the median run of each block",
            PairedEstimator::PooledMedianRatio => "the median of all runs",
            PairedEstimator::MeanDifference
            | PairedEstimator::RatioOfMeans
            | PairedEstimator::MedianLogRatio
            | PairedEstimator::HodgesLehmannLogRatio => "the block means",
        }
    }

    /// The estimator called `name` ([`PairedEstimator::as_str`]), if any.
    pub fn from_name(name: &str) -> Option<PairedEstimator> {
        Self::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// The value meaning "no difference": 0 for the difference, 1 for the ratios.
    pub fn null_value(self) -> f64 {
        match self {
            PairedEstimator::MeanDifference => 0.0,
            PairedEstimator::RatioOfMeans
            | PairedEstimator::MedianLogRatio
            | PairedEstimator::HodgesLehmannLogRatio
            | PairedEstimator::HodgesLehmannMinLogRatio
            | PairedEstimator::HodgesLehmannMedianLogRatio
            | PairedEstimator::PooledMedianRatio
            | PairedEstimator::TypicalRun => 1.0,
        }
    }
}

/// Settings of [`paired_analysis`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedConfig {
    /// Resamples, confidence, seed and interval method of every interval
    /// (default: 2000 resamples, 95 %, seed 1, percentile).
    pub bootstrap: BootstrapConfig,
    /// Which estimate is primary (default [`PairedEstimator::TypicalRun`]).
    pub estimator: PairedEstimator,
    /// `true` when larger values are better (throughput): the "fastest run" of a block is
    /// then its largest value ([`BlockSummary::best`]). Default `false` (times).
    pub higher_is_better: bool,
    /// Family-wise alpha of the typical-run estimator's shape decision (default 0.05).
    pub alpha: f64,
    /// Its practical margin on the ratio scale (default 0.01).
    pub margin: f64,
}

impl Default for PairedConfig {
    fn default() -> Self {
        PairedConfig {
            bootstrap: BootstrapConfig::default(),
            estimator: PairedEstimator::default(),
            higher_is_better: false,
            alpha: 0.05,
            margin: 0.01,
        }
    }
}

/// Block values with the derived per-block quantities, checked once.
#[derive(Debug)]
struct Blocks<'a> {
    baseline: &'a [f64],
    candidate: &'a [f64],
    differences: Vec<f64>,
    /// `ln(c_i) - ln(b_i)`, present when every value is positive.
    log_ratios: Option<Vec<f64>>,
}

impl<'a> Blocks<'a> {
    fn new(baseline: &'a Sample, candidate: &'a Sample) -> Result<Self, StatsError> {
        let (b, c) = (baseline.values(), candidate.values());
        if b.len() != c.len() {
            return Err(StatsError::LengthMismatch {
                left: b.len(),
                right: c.len(),
            });
        }
        let differences: Vec<f64> = b.iter().zip(c).map(|(b, c)| c - b).collect();
        if let Some(&d) = differences.iter().find(|d| !d.is_finite()) {
            return Err(StatsError::NonFinite {
                what: "block difference (candidate - baseline overflows f64; rescale the data)",
                value: d,
            });
        }
        let positive = b.iter().chain(c).all(|&v| v > 0.0);
        // The same log-ratios the signed-rank p is computed from (`paired_scale`), so that
        // the interval and the p agree bit for bit.
        let log_ratios = positive.then(|| {
            b.iter()
                .zip(c)
                .map(|(b, c)| crate::special::log_ratio(*c, *b))
                .collect()
        });
        Ok(Blocks {
            baseline: b,
            candidate: c,
            differences,
            log_ratios,
        })
    }

    fn positive(&self) -> Result<&[f64], StatsError> {
        self.log_ratios
            .as_deref()
            .ok_or(StatsError::ZeroDenominator {
                what: "paired ratio (every block value must be positive)",
            })
    }
}

/// One paired statistic over resampled blocks.
struct BlockStat<'a, 'b> {
    blocks: &'b Blocks<'a>,
    estimator: PairedEstimator,
}

impl Statistic for BlockStat<'_, '_> {
    fn sizes(&self) -> Vec<usize> {
        vec![self.blocks.differences.len()]
    }

    fn value(&self, idx: &[Vec<usize>]) -> Option<f64> {
        let idx = &idx[0];
        let b = self.blocks;
        let v = match self.estimator {
            PairedEstimator::MeanDifference => {
                mean(&idx.iter().map(|&i| b.differences[i]).collect::<Vec<_>>())
            }
            PairedEstimator::RatioOfMeans => {
                let num = mean(&idx.iter().map(|&i| b.candidate[i]).collect::<Vec<_>>());
                let den = mean(&idx.iter().map(|&i| b.baseline[i]).collect::<Vec<_>>());
                if den == 0.0 {
                    return None;
                }
                num / den
            }
            PairedEstimator::MedianLogRatio => {
                let l = b.log_ratios.as_ref()?;
                median(&idx.iter().map(|&i| l[i]).collect::<Vec<_>>()).exp()
            }
            // The typical run is a randomization test of every run, not a block statistic.
            PairedEstimator::PooledMedianRatio | PairedEstimator::TypicalRun => return None,
            PairedEstimator::HodgesLehmannLogRatio
            | PairedEstimator::HodgesLehmannMinLogRatio
            | PairedEstimator::HodgesLehmannMedianLogRatio => {
                // The Hodges-Lehmann estimators, on whatever block values were given.
                let l = b.log_ratios.as_ref()?;
                let picked: Vec<f64> = idx.iter().map(|&i| l[i]).collect();
                crate::rank::wilcoxon::paired_hl_estimate(&picked)?.exp()
            }
        };
        v.is_finite().then_some(v)
    }

    fn standard_error(&self, idx: &[Vec<usize>]) -> Option<f64> {
        if self.estimator == PairedEstimator::MeanDifference {
            let d: Vec<f64> = idx[0].iter().map(|&i| self.blocks.differences[i]).collect();
            return variance_parts(&d).map(|(_, sd)| sd / (d.len() as f64).sqrt());
        }
        // The jackknife standard error for the ratios (same formula as the trait default,
        // specialised to one sample of blocks).
        jackknife_se(self, idx)
    }
}

fn jackknife_se(stat: &BlockStat<'_, '_>, idx: &[Vec<usize>]) -> Option<f64> {
    let full = &idx[0];
    let n = full.len();
    if n < 2 {
        return None;
    }
    let mut values = Vec::with_capacity(n);
    let mut work = vec![Vec::with_capacity(n - 1)];
    for i in 0..n {
        work[0].clear();
        work[0].extend(
            full.iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &k)| k),
        );
        values.push(stat.value(&work)?);
    }
    let se = crate::resample::jackknife_standard_error(&values);
    se.is_finite().then_some(se)
}

/// Block bootstrap interval of one paired statistic.
///
/// `baseline[i]` and `candidate[i]` are block `i`'s values. Whole blocks are resampled
/// with replacement; see [`crate::resample::BootstrapConfig`] and [`crate::resample::IntervalMethod`] for the
/// interval. Time: O(B n) for the mean difference and ratio, O(B n log n) for the median
/// (O(B n² log n) when studentized, through the jackknife standard error).
///
/// # Errors
/// [`StatsError::LengthMismatch`]; [`StatsError::TooFewSamples`] for fewer than 2 blocks;
/// [`StatsError::ZeroDenominator`] for a ratio with a value that is not positive; invalid
/// `config`; BCa/studentized degeneracies (e.g. every block difference equal).
///
/// # Examples
/// ```
/// use bench_stats::{PairedEstimator, Sample};
/// use bench_stats::paired::block_bootstrap;
/// use bench_stats::resample::BootstrapConfig;
/// let base = Sample::new(&[100.0, 104.0, 98.0, 101.0, 99.0, 103.0])?;
/// let cand = Sample::new(&[90.0, 95.0, 88.0, 91.0, 90.0, 92.0])?;
/// let ci = block_bootstrap(&base, &cand, PairedEstimator::MeanDifference,
///                          &BootstrapConfig::default())?;
/// assert!(ci.high < 0.0); // the candidate is lower in every block
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn block_bootstrap(
    baseline: &Sample,
    candidate: &Sample,
    estimator: PairedEstimator,
    config: &BootstrapConfig,
) -> Result<BootstrapInterval, StatsError> {
    let blocks = Blocks::new(baseline, candidate)?;
    interval(&blocks, estimator, config)
}

fn interval(
    blocks: &Blocks<'_>,
    estimator: PairedEstimator,
    config: &BootstrapConfig,
) -> Result<BootstrapInterval, StatsError> {
    interval_keeping(blocks, estimator, config, 1.0 - config.confidence, false)
        .map(|(interval, _)| interval)
}

/// [`interval`], with the distribution it was read from when `keep` is set: the block
/// bootstrap's replicates, or the Walsh averages of the signed-rank interval (none for a
/// large-sample interval).
///
/// `alpha` is `1 - config.confidence`, or the analysis' alpha when the level is
/// `1 - alpha` up to rounding ([`level_alpha`]): the signed-rank interval then excludes
/// no change exactly when its p is below that alpha.
fn interval_keeping(
    blocks: &Blocks<'_>,
    estimator: PairedEstimator,
    config: &BootstrapConfig,
    alpha: f64,
    keep: bool,
) -> Result<(BootstrapInterval, Option<IntervalDistribution>), StatsError> {
    let n = blocks.differences.len();
    if n < 2 {
        return Err(StatsError::TooFewSamples {
            what: "paired blocks",
            needed: 2,
            got: n,
        });
    }
    if estimator != PairedEstimator::MeanDifference {
        blocks.positive()?;
    }
    if estimator.is_signed_rank() {
        return signed_rank_interval(blocks, config, alpha, keep);
    }
    if estimator == PairedEstimator::PooledMedianRatio {
        return Err(StatsError::InvalidParameter {
            name: "paired estimator",
            value: f64::NAN,
            reason: "the pooled-median ratio needs every run of a block: use paired::pooled_median_ratio",
        });
    }
    if n > LARGE_SAMPLE_BLOCKS {
        return large_sample_interval(blocks, estimator, config, alpha, keep);
    }
    let (interval, replicates) =
        bootstrap::run_keeping(&BlockStat { blocks, estimator }, config, keep)?;
    Ok((
        interval,
        replicates.and_then(bootstrap::Replicates::into_distribution),
    ))
}

/// The Hodges-Lehmann ratio of the per-block log-ratios and its signed-rank interval,
/// exponentiated. Time: O(n^2 log n) for up to 2048 blocks (subsampled by stride above).
fn signed_rank_interval(
    blocks: &Blocks<'_>,
    config: &BootstrapConfig,
    alpha: f64,
    keep: bool,
) -> Result<(BootstrapInterval, Option<IntervalDistribution>), StatsError> {
    let l = blocks.positive()?;
    let (hl, walsh, k) = paired_hodges_lehmann_walsh(l, config.confidence, alpha)?;
    let (estimate, low, high) = (hl.estimate.exp(), hl.ci_low.exp(), hl.ci_high.exp());
    if ![estimate, low, high].iter().all(|v| v.is_finite()) {
        return Err(StatsError::NonFinite {
            what: "hodges-lehmann ratio (overflows f64; rescale the data)",
            value: f64::INFINITY,
        });
    }
    let z = crate::special::normal_ppf(0.5 + config.confidence / 2.0).unwrap_or(1.96);
    let interval = BootstrapInterval {
        estimate,
        low,
        high,
        standard_error: (high - low) / (2.0 * z),
        method: IntervalMethod::SignedRank,
        confidence: hl.achieved_confidence,
        resamples: 0,
        skipped: 0,
        seed: config.seed,
    };
    let kept = keep.then(|| walsh_distribution(walsh, k)).flatten();
    Ok((interval, kept))
}

/// The Walsh averages of the log-ratios as ratios, with the levels of the interval's
/// ends, the `k`-th smallest and the `k`-th largest (no levels when the interval was
/// widened to reach no change: an end is then not one of them).
fn walsh_distribution(walsh: Vec<f64>, k: Option<usize>) -> Option<IntervalDistribution> {
    let last = walsh.len().saturating_sub(1).max(1) as f64;
    let levels = k.map(|k| [(k - 1) as f64 / last, (walsh.len() - k) as f64 / last]);
    IntervalDistribution::new(DistributionKind::WalshAverages, walsh, levels)?.map(f64::exp)
}

/// The alpha of an interval at `confidence` beside a decision at `alpha`: `alpha` itself
/// when `confidence` is `1 - alpha` up to rounding, else `1 - confidence`.
pub(crate) fn level_alpha(confidence: f64, alpha: f64) -> f64 {
    if (1.0 - confidence - alpha).abs() < 1e-12 {
        alpha
    } else {
        1.0 - confidence
    }
}

/// Above this many blocks the paired intervals come from large-sample theory instead of
/// the bootstrap ([`IntervalMethod::LargeSample`]): at 20,000 blocks the bootstrap's
/// O(resamples x blocks) work takes seconds per interval while the normal approximation
/// of a mean, and the order-statistic interval of a median, are accurate to well under the
/// Monte Carlo error of 2000 resamples.
pub const LARGE_SAMPLE_BLOCKS: usize = 20_000;

/// Normal-theory interval of the mean difference, delta-method interval of the ratio of
/// means, and the distribution-free order-statistic interval of the median log-ratio
/// (ranks n/2 -+ z sqrt(n)/2 of the sorted log-ratios). Time: O(n log n).
fn large_sample_interval(
    blocks: &Blocks<'_>,
    estimator: PairedEstimator,
    config: &BootstrapConfig,
    alpha: f64,
    keep: bool,
) -> Result<(BootstrapInterval, Option<IntervalDistribution>), StatsError> {
    let n = blocks.differences.len() as f64;
    let z = crate::special::normal_ppf(0.5 + config.confidence / 2.0).ok_or(
        StatsError::InvalidParameter {
            name: "confidence",
            value: config.confidence,
            reason: "must be strictly between 0 and 1",
        },
    )?;
    let (estimate, low, high, standard_error) = match estimator {
        PairedEstimator::MeanDifference => {
            let (m, sd) = variance_parts(&blocks.differences).ok_or(StatsError::TooFewSamples {
                what: "paired blocks",
                needed: 2,
                got: blocks.differences.len(),
            })?;
            let se = sd / n.sqrt();
            (m, m - z * se, m + z * se, se)
        }
        PairedEstimator::RatioOfMeans => {
            let (mb, mc) = (mean(blocks.baseline), mean(blocks.candidate));
            let r = mc / mb;
            // Var(c - r b) / (n mb^2): the delta method for a ratio of means.
            let resid: Vec<f64> = blocks
                .candidate
                .iter()
                .zip(blocks.baseline)
                .map(|(c, b)| c - r * b)
                .collect();
            let sd = variance_parts(&resid).map_or(0.0, |(_, sd)| sd);
            let se = sd / (n.sqrt() * mb);
            (r, r - z * se, r + z * se, se)
        }
        PairedEstimator::MedianLogRatio => {
            let mut l = blocks.positive()?.to_vec();
            l.sort_by(f64::total_cmp);
            let m = crate::descriptive::summary::quantile_sorted(&l, 0.5).exp();
            let (lo, hi) = crate::descriptive::summary::median_interval_sorted(&l, z);
            let (low, high) = (lo.exp(), hi.exp());
            (m, low, high, (high - low) / (2.0 * z))
        }
        // The Hodges-Lehmann family (its interval is not a bootstrap at any size); the
        // pooled-median ratio is refused before this point, and the typical run is never
        // a block statistic.
        PairedEstimator::HodgesLehmannLogRatio
        | PairedEstimator::HodgesLehmannMinLogRatio
        | PairedEstimator::HodgesLehmannMedianLogRatio
        | PairedEstimator::PooledMedianRatio
        | PairedEstimator::TypicalRun => {
            return signed_rank_interval(blocks, config, alpha, keep);
        }
    };
    if ![estimate, low, high, standard_error]
        .iter()
        .all(|v| v.is_finite())
    {
        return Err(StatsError::NonFinite {
            what: "large-sample interval (overflows f64; rescale the data)",
            value: f64::INFINITY,
        });
    }
    let interval = BootstrapInterval {
        estimate,
        low,
        high,
        standard_error,
        method: IntervalMethod::LargeSample,
        confidence: config.confidence,
        resamples: 0,
        skipped: 0,
        seed: config.seed,
    };
    // Normal theory and order statistics: no distribution of replicates to keep.
    Ok((interval, None))
}

/// Everything the paired analysis of one candidate against a baseline yields.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PairedAnalysis {
    /// Number of blocks.
    pub blocks: usize,
    /// The primary estimator chosen in [`PairedConfig`].
    pub estimator: PairedEstimator,
    /// Mean of per-block differences (candidate - baseline).
    pub mean_difference: f64,
    /// Block-bootstrap interval of the mean difference, or why there is none.
    pub difference_ci: Result<BootstrapInterval, StatsError>,
    /// Sample sd (n - 1) of the per-block differences.
    pub sd_difference: Option<f64>,
    /// Ratio of block means, candidate over baseline (`None` unless every value is
    /// positive).
    pub ratio: Option<f64>,
    /// Block-bootstrap interval of the ratio, or why there is none.
    pub ratio_ci: Result<BootstrapInterval, StatsError>,
    /// `exp(median of per-block log-ratios)` (`None` unless every value is positive).
    pub median_ratio: Option<f64>,
    /// Block-bootstrap interval of the median ratio, or why there is none.
    pub median_ratio_ci: Result<BootstrapInterval, StatsError>,
    /// `exp` of the Hodges-Lehmann estimate of the per-block log-ratios (`None` unless
    /// every value is positive).
    pub hl_ratio: Option<f64>,
    /// Its signed-rank interval ([`IntervalMethod::SignedRank`]), or why there is none.
    pub hl_ratio_ci: Result<BootstrapInterval, StatsError>,
    /// Paired Cohen's dz: mean difference / sd of the differences; `None` when that sd
    /// is 0 (or there is one block).
    pub cohens_dz: Option<f64>,
    /// Unpaired Cohen's d, difference of the marginal means over the pooled sd, ignoring
    /// the blocks: shown for contrast with `cohens_dz`. `None` when the pooled sd is 0.
    pub cohens_d_unpaired: Option<f64>,
    /// Per-block `[baseline, candidate]` values.
    pub block_values: Vec<[f64; 2]>,
    /// For the estimators that need every run ([`PairedEstimator::needs_runs`]): the
    /// estimate, its interval and its p-value, from [`paired_analysis_of_runs`]. `None`
    /// for the others, and when the analysis was given block values only.
    pub from_runs: Option<RunsEstimate>,
    /// The distribution behind the interval of the ratio a comparison leads with
    /// ([`PairedAnalysis::headline`]) when it is one of the block-mean intervals above:
    /// `ratio_ci`'s replicates for `mean-difference` and `ratio-of-means`,
    /// `median_ratio_ci`'s for `median-log-ratio`, the Walsh averages of `hl_ratio_ci` for
    /// `hl-log-ratio`. `None` for the others (see [`RunsEstimate::distribution`]) and for
    /// large-sample intervals.
    pub distribution: Option<IntervalDistribution>,
}

/// The configured estimator computed from every run of every block.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunsEstimate {
    /// The ratio, `None` when undefined for the data.
    pub ratio: Option<f64>,
    /// Its interval, or why there is none.
    pub interval: Result<BootstrapInterval, StatsError>,
    /// The p-value of "no change" that decides: the signed-rank p of the summarized
    /// block log-ratios, or the pooled-median ratio's bootstrap p.
    pub p_value: Option<f64>,
    /// Per-block `[baseline, candidate]` summaries ([`BlockSummary`]) for the
    /// Hodges-Lehmann estimators and the typical run (block medians); empty for the
    /// pooled-median ratio.
    pub block_values: Vec<[f64; 2]>,
    /// For the typical run: the comparison at every checked quantile.
    pub shape: Option<ShapeAnalysis>,
    /// The distribution `interval` was read from: the Walsh averages of the summarized
    /// block log-ratios, the pooled-median ratio's bootstrap replicates, or the typical
    /// run's inverted randomization test ([`crate::model::DistributionKind::Randomization`]).
    /// `None` for large-sample intervals.
    pub distribution: Option<IntervalDistribution>,
}

impl PairedAnalysis {
    /// The analysis model's [`PairedReport`], with the fields this analysis does not
    /// compute (`wilcoxon_p`, `hodges_lehmann`, `variance_components`) left `None` for the
    /// caller to fill.
    pub fn to_report(&self) -> PairedReport {
        let bounds = |ci: &Result<BootstrapInterval, StatsError>| {
            ci.as_ref().ok().map(BootstrapInterval::bounds)
        };
        PairedReport {
            blocks: self.blocks,
            mean_difference: self.mean_difference,
            difference_ci: bounds(&self.difference_ci),
            ratio: self.ratio,
            ratio_ci: bounds(&self.ratio_ci),
            cohens_dz: self.cohens_dz,
            wilcoxon_p: None,
            median_ratio: self.median_ratio,
            median_ratio_ci: bounds(&self.median_ratio_ci),
            hodges_lehmann: None,
            block_values: self.block_values.clone(),
            variance_components: None,
        }
    }

    /// The estimate and interval of the configured estimator: `(point, interval)`.
    /// The point is `None` when that estimator is undefined for the data.
    pub fn primary(&self) -> (Option<f64>, &Result<BootstrapInterval, StatsError>) {
        match self.estimator {
            PairedEstimator::MeanDifference => (Some(self.mean_difference), &self.difference_ci),
            PairedEstimator::RatioOfMeans => (self.ratio, &self.ratio_ci),
            PairedEstimator::MedianLogRatio => (self.median_ratio, &self.median_ratio_ci),
            PairedEstimator::HodgesLehmannLogRatio => (self.hl_ratio, &self.hl_ratio_ci),
            PairedEstimator::HodgesLehmannMinLogRatio
            | PairedEstimator::HodgesLehmannMedianLogRatio
            | PairedEstimator::PooledMedianRatio
            | PairedEstimator::TypicalRun => match &self.from_runs {
                Some(r) => (r.ratio, &r.interval),
                None => (None, &Err(NEEDS_RUNS)),
            },
        }
    }

    /// The ratio a comparison leads with, its interval and the distribution that interval
    /// was read from: the ratio of block means for `mean-difference` (whose own estimate
    /// is a difference), else [`PairedAnalysis::primary`].
    pub fn headline(
        &self,
    ) -> (
        Option<f64>,
        &Result<BootstrapInterval, StatsError>,
        Option<&IntervalDistribution>,
    ) {
        let (point, ci) = match self.estimator {
            PairedEstimator::MeanDifference => (self.ratio, &self.ratio_ci),
            PairedEstimator::RatioOfMeans
            | PairedEstimator::MedianLogRatio
            | PairedEstimator::HodgesLehmannLogRatio
            | PairedEstimator::HodgesLehmannMinLogRatio
            | PairedEstimator::HodgesLehmannMedianLogRatio
            | PairedEstimator::PooledMedianRatio
            | PairedEstimator::TypicalRun => self.primary(),
        };
        let distribution = match &self.from_runs {
            Some(r) => r.distribution.as_ref(),
            None => self.distribution.as_ref(),
        };
        (point, ci, distribution.filter(|_| ci.is_ok()))
    }

    /// The per-block values the deciding estimator ranks: its block summaries when it
    /// computed its own, else the block means.
    pub fn decision_blocks(&self) -> &[[f64; 2]] {
        match &self.from_runs {
            Some(r) if !r.block_values.is_empty() => &r.block_values,
            _ => &self.block_values,
        }
    }
}

/// Why an estimator that needs every run has no estimate.
const NEEDS_RUNS: StatsError = StatsError::InvalidParameter {
    name: "paired estimator",
    value: f64::NAN,
    reason: "this estimator needs every run of a block (paired_analysis_of_runs)",
};

/// [`paired_analysis`] of the block means, plus the configured estimator computed from
/// every run when it needs them ([`PairedEstimator::needs_runs`]): `baseline[b]` and
/// `candidate[b]` are the runs of each variant in block `b`.
///
/// # Errors
/// As [`paired_analysis`]; [`StatsError::TooFewSamples`] when a block has no run of a
/// variant.
///
/// # Examples
/// ```
/// use bench_stats::PairedEstimator;
/// use bench_stats::paired::{paired_analysis_of_runs, PairedConfig};
/// // Eight blocks of 2 + 2 runs; one run of each block is disturbed, the candidate is
/// // 10 % slower on the quiet runs.
/// let base: Vec<Vec<f64>> = (0..8).map(|i| vec![100.0, 100.0 + 30.0 * f64::from(i % 2)]).collect();
/// let cand: Vec<Vec<f64>> = (0..8).map(|i| vec![110.0 + 30.0 * f64::from(1 - i % 2), 110.0]).collect();
/// let config = PairedConfig { estimator: PairedEstimator::HodgesLehmannMinLogRatio, ..PairedConfig::default() };
/// let p = paired_analysis_of_runs(&base, &cand, &config)?;
/// let (ratio, _) = p.primary();
/// assert!((ratio.unwrap() - 1.1).abs() < 1e-9);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn paired_analysis_of_runs(
    baseline: &(impl AsBlocks + ?Sized),
    candidate: &(impl AsBlocks + ?Sized),
    config: &PairedConfig,
) -> Result<PairedAnalysis, StatsError> {
    let (baseline, candidate) = (&*baseline.as_blocks(), &*candidate.as_blocks());
    let means = |blocks| summarize(blocks, BlockSummary::Mean);
    let mut analysis = paired_analysis(&means(baseline)?, &means(candidate)?, config)?;
    if config.estimator.needs_runs() {
        analysis.from_runs = Some(runs_estimate(baseline, candidate, config)?);
    }
    Ok(analysis)
}

/// One value per block: `summary` of the block's runs.
fn summarize(blocks: &RunBlocks, summary: BlockSummary) -> Result<Sample, StatsError> {
    let values: Option<Vec<f64>> = blocks.iter().map(|r| summary.of(r)).collect();
    let values = values.ok_or(StatsError::TooFewSamples {
        what: "runs in every block",
        needed: 1,
        got: 0,
    })?;
    Ok(Sample::from_vec(values)?)
}

fn runs_estimate(
    baseline: &RunBlocks,
    candidate: &RunBlocks,
    config: &PairedConfig,
) -> Result<RunsEstimate, StatsError> {
    if config.estimator == PairedEstimator::PooledMedianRatio {
        let r = pooled_median_ratio(baseline, candidate, &config.bootstrap);
        return Ok(RunsEstimate {
            ratio: r.as_ref().ok().map(|r| r.interval.estimate),
            p_value: r.as_ref().ok().map(|r| r.p_value),
            distribution: r.as_ref().ok().and_then(|r| r.distribution.clone()),
            interval: r.map(|r| r.interval),
            block_values: Vec::new(),
            shape: None,
        });
    }
    if config.estimator == PairedEstimator::TypicalRun {
        return typical_run_estimate(baseline, candidate, config);
    }
    let summary = config
        .estimator
        .block_summary()
        .oriented(config.higher_is_better);
    let (b, c) = (
        summarize(baseline, summary)?,
        summarize(candidate, summary)?,
    );
    let blocks = Blocks::new(&b, &c)?;
    let alpha = level_alpha(config.bootstrap.confidence, config.alpha);
    let (interval, distribution) =
        match interval_keeping(&blocks, config.estimator, &config.bootstrap, alpha, true) {
            Ok((i, d)) => (Ok(i), d),
            Err(e) => (Err(e), None),
        };
    // The p on the scale the block means would be ranked on: `ln(c / b)` when every value
    // is positive, else the differences.
    let (ranked, scale) = crate::analysis::paired_verdict::paired_scale(b.values(), c.values());
    let p_value = crate::analysis::paired_verdict::signed_rank_p(&ranked, scale);
    Ok(RunsEstimate {
        ratio: interval.as_ref().ok().map(|i| i.estimate),
        interval,
        p_value,
        block_values: b
            .values()
            .iter()
            .zip(c.values())
            .map(|(&b, &c)| [b, c])
            .collect(),
        shape: None,
        distribution,
    })
}

/// The typical-run estimate: the shape analysis, led by its median. Values that are not
/// all positive have no ratio and no quantile ratios: the typical run of each block (its
/// median run) is then compared as [`PairedEstimator::HodgesLehmannMedianLogRatio`] does,
/// by the signed-rank test of the block differences, with no shape check.
fn typical_run_estimate(
    baseline: &RunBlocks,
    candidate: &RunBlocks,
    config: &PairedConfig,
) -> Result<RunsEstimate, StatsError> {
    if baseline
        .values()
        .iter()
        .chain(candidate.values())
        .any(|&x| !(x > 0.0 && x.is_finite()))
    {
        let medians = PairedConfig {
            estimator: PairedEstimator::HodgesLehmannMedianLogRatio,
            ..*config
        };
        return runs_estimate(baseline, candidate, &medians);
    }
    let shape_config = ShapeConfig {
        permutations: config.bootstrap.resamples as usize,
        seed: config.bootstrap.seed,
        alpha: config.alpha,
        confidence: config.bootstrap.confidence,
        margin: config.margin,
        higher_is_better: config.higher_is_better,
    };
    let (b, c) = (
        summarize(baseline, BlockSummary::Median)?,
        summarize(candidate, BlockSummary::Median)?,
    );
    let block_values = b
        .values()
        .iter()
        .zip(c.values())
        .map(|(&b, &c)| [b, c])
        .collect();
    let (shape, distribution) = shape_analysis_keeping(baseline, candidate, &shape_config)?;
    // Ratios beyond f64 (runs of 1e-300 against 1e300): no ratio to report, as for values
    // that are not positive.
    if shape
        .quantiles
        .iter()
        .any(|q| !(q.ratio.is_finite() && q.ratio > 0.0))
    {
        let medians = PairedConfig {
            estimator: PairedEstimator::HodgesLehmannMedianLogRatio,
            ..*config
        };
        return runs_estimate(baseline, candidate, &medians);
    }
    let typical = shape.typical();
    let interval = match typical.interval {
        Some([low, high]) => Ok(BootstrapInterval {
            estimate: typical.ratio,
            low,
            high,
            standard_error: {
                let z = crate::special::normal_ppf(0.5 + shape.confidence / 2.0).unwrap_or(2.0);
                (high.ln() - low.ln()) / (2.0 * z) * typical.ratio
            },
            method: IntervalMethod::Permutation,
            confidence: shape.confidence,
            resamples: shape.permutations as u32,
            skipped: 0,
            seed: config.bootstrap.seed,
        }),
        None => Err(StatsError::TooFewSamples {
            what: "blocks for the typical run's interval at its share of the family level",
            needed: crate::paired::shape::min_typical_blocks(
                1.0 - config.bootstrap.confidence,
                shape.parts().count(),
            ),
            got: shape.blocks,
        }),
    };
    let distribution = distribution.filter(|_| interval.is_ok());
    Ok(RunsEstimate {
        ratio: Some(typical.ratio),
        interval,
        p_value: Some(shape.p_value),
        block_values,
        shape: Some(shape),
        distribution,
    })
}

/// Paired analysis of blocked data: mean difference, ratio of block means and median
/// log-ratio, each with a block-bootstrap interval, plus Cohen's dz and (for contrast) the
/// unpaired d.
///
/// Every interval uses the same `config.bootstrap` (same seed, so the same resampled
/// blocks). Time: three bootstraps, O(B n log n) together.
///
/// # Errors
/// [`StatsError::LengthMismatch`] when the two samples differ in length;
/// [`StatsError::TooFewSamples`] for fewer than 2 blocks; [`StatsError::NonFinite`] when a
/// block difference overflows `f64`; an invalid bootstrap config.
/// Failures of an individual interval are reported in its field instead.
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::paired::{paired_analysis, PairedConfig};
/// let base = Sample::new(&[725.4, 720.8, 726.0, 671.8, 719.2, 722.7])?;
/// let cand = Sample::new(&[1356.3, 1338.7, 1314.4, 1329.9, 1328.3, 1332.6])?;
/// let p = paired_analysis(&base, &cand, &PairedConfig::default())?;
/// assert!(p.difference_ci?.low > 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn paired_analysis(
    baseline: &Sample,
    candidate: &Sample,
    config: &PairedConfig,
) -> Result<PairedAnalysis, StatsError> {
    config.bootstrap.validate()?;
    let blocks = Blocks::new(baseline, candidate)?;
    let n = blocks.differences.len();
    if n < 2 {
        return Err(StatsError::TooFewSamples {
            what: "paired blocks",
            needed: 2,
            got: n,
        });
    }
    let mean_difference = mean(&blocks.differences);
    let sd_difference = variance_parts(&blocks.differences).map(|(_, sd)| sd);
    let cohens_dz = sd_difference
        .filter(|&sd| sd > 0.0)
        .map(|sd| mean_difference / sd)
        .filter(|v| v.is_finite());
    let whole = vec![(0..n).collect::<Vec<_>>()];
    let point = |estimator| {
        blocks.log_ratios.as_ref().and_then(|_| {
            BlockStat {
                blocks: &blocks,
                estimator,
            }
            .value(&whole)
        })
    };
    let ratio = point(PairedEstimator::RatioOfMeans);
    let median_ratio = point(PairedEstimator::MedianLogRatio);
    // The headline interval keeps its distribution (`PairedAnalysis::distribution`).
    let headline = match config.estimator {
        PairedEstimator::MeanDifference | PairedEstimator::RatioOfMeans => {
            Some(PairedEstimator::RatioOfMeans)
        }
        PairedEstimator::MedianLogRatio => Some(PairedEstimator::MedianLogRatio),
        PairedEstimator::HodgesLehmannLogRatio => Some(PairedEstimator::HodgesLehmannLogRatio),
        PairedEstimator::HodgesLehmannMinLogRatio
        | PairedEstimator::HodgesLehmannMedianLogRatio
        | PairedEstimator::PooledMedianRatio
        | PairedEstimator::TypicalRun => None,
    };
    let alpha = level_alpha(config.bootstrap.confidence, config.alpha);
    let mut distribution = None;
    let mut of = |estimator| {
        let keep = headline == Some(estimator);
        interval_keeping(&blocks, estimator, &config.bootstrap, alpha, keep).map(|(i, d)| {
            if keep {
                distribution = d;
            }
            i
        })
    };
    let hl_ratio_ci = of(PairedEstimator::HodgesLehmannLogRatio);
    let difference_ci = of(PairedEstimator::MeanDifference);
    let ratio_ci = of(PairedEstimator::RatioOfMeans);
    let median_ratio_ci = of(PairedEstimator::MedianLogRatio);
    Ok(PairedAnalysis {
        blocks: n,
        estimator: config.estimator,
        mean_difference,
        difference_ci,
        sd_difference,
        ratio,
        ratio_ci,
        median_ratio,
        median_ratio_ci,
        hl_ratio: hl_ratio_ci.as_ref().ok().map(|i| i.estimate),
        hl_ratio_ci,
        cohens_dz,
        cohens_d_unpaired: cohens_d_slices(blocks.baseline, blocks.candidate),
        block_values: blocks
            .baseline
            .iter()
            .zip(blocks.candidate)
            .map(|(&b, &c)| [b, c])
            .collect(),
        from_runs: None,
        distribution,
    })
}

/// Unpaired Cohen's d: `(mean(c) - mean(b)) / s_pooled`, with
/// `s_pooled² = ((n_b - 1) s_b² + (n_c - 1) s_c²) / (n_b + n_c - 2)` (Cohen 1988).
/// `None` when either sample has one value or the pooled sd is 0. Time: O(n).
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::paired::cohens_d;
/// let a = Sample::new(&[1.0, 2.0, 3.0])?;
/// let b = Sample::new(&[3.0, 4.0, 5.0])?;
/// assert_eq!(cohens_d(&a, &b), Some(2.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn cohens_d(baseline: &Sample, candidate: &Sample) -> Option<f64> {
    cohens_d_slices(baseline.values(), candidate.values())
}

fn cohens_d_slices(b: &[f64], c: &[f64]) -> Option<f64> {
    let (mb, sb) = variance_parts(b)?;
    let (mc, sc) = variance_parts(c)?;
    let (nb, nc) = (b.len() as f64, c.len() as f64);
    // Pooled variance from sd ratios to keep the squares in range.
    let scale = sb.max(sc);
    if scale == 0.0 {
        return None;
    }
    let pooled = scale
        * (((nb - 1.0) * (sb / scale).powi(2) + (nc - 1.0) * (sc / scale).powi(2))
            / (nb + nc - 2.0))
            .sqrt();
    let d = (mc - mb) / pooled;
    d.is_finite().then_some(d)
}
