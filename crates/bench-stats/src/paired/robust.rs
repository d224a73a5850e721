//! Paired estimators for machines whose runs are mostly tight with a slow minority:
//! block summaries robust to one disturbed run (median, minimum), and the ratio of the
//! variants' pooled medians with a block bootstrap.
//!
//! On a shared machine a third of ABBA blocks can hold a run slowed by 15-100 %. The
//! block mean carries that run into the block's log-ratio with full weight, and the
//! signed-rank test then ranks exactly the disturbed blocks highest. Summarizing each
//! variant's runs in a block by their minimum (or median, with more than two runs) keeps
//! the block's value on the main mode; pooling all runs of a variant and taking the median
//! ignores the slow minority outright, while resampling whole blocks keeps what the
//! variants shared inside a block together (the calibration in `docs/calibration.md` compares
//! them on every noise profile).

use crate::StatsError;
use crate::descriptive::summary::{median, quantile_sorted};
use crate::model::blocks::{AsBlocks, Blocks};
use crate::model::distribution::IntervalDistribution;
use crate::resample::bootstrap::{
    self, BootstrapConfig, BootstrapInterval, IntervalMethod, Statistic, per_resample,
};

/// How the runs of one variant inside one block become the block's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum BlockSummary {
    /// The mean of the runs (the appendix's block value).
    #[default]
    Mean,
    /// The median of the runs (the mean of the middle two for an even count).
    Median,
    /// The smallest value: for times, the fastest run, the one least disturbed by the
    /// machine.
    Min,
    /// The largest value: for throughputs (higher is better), the least disturbed run.
    Max,
}

impl BlockSummary {
    /// The summary of `runs`; `None` when `runs` is empty or holds a non-finite value.
    pub fn of(self, runs: &[f64]) -> Option<f64> {
        if runs.is_empty() || runs.iter().any(|v| !v.is_finite()) {
            return None;
        }
        Some(match self {
            BlockSummary::Mean => runs.iter().sum::<f64>() / runs.len() as f64,
            BlockSummary::Median => median(runs),
            BlockSummary::Min => runs.iter().copied().fold(f64::INFINITY, f64::min),
            BlockSummary::Max => runs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }

    /// This summary for data whose direction is `higher_is_better`: [`BlockSummary::Min`],
    /// which names the least disturbed run, becomes [`BlockSummary::best`] (the largest
    /// value for throughputs); the others stay.
    pub fn oriented(self, higher_is_better: bool) -> BlockSummary {
        match self {
            BlockSummary::Min => BlockSummary::best(higher_is_better),
            other @ (BlockSummary::Mean | BlockSummary::Median | BlockSummary::Max) => other,
        }
    }

    /// The least disturbed run's summary: [`BlockSummary::Min`] when lower is better,
    /// [`BlockSummary::Max`] when higher is better.
    pub fn best(higher_is_better: bool) -> BlockSummary {
        if higher_is_better {
            BlockSummary::Max
        } else {
            BlockSummary::Min
        }
    }
}

/// The ratio of pooled medians, its interval and its bootstrap p-value.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PooledMedianRatio {
    /// Candidate median over baseline median, each over every run of the variant, with
    /// the block-bootstrap interval (or the large-sample one above
    /// [`crate::paired::LARGE_SAMPLE_BLOCKS`] blocks).
    pub interval: BootstrapInterval,
    /// Two-sided p-value of "ratio = 1": twice the smaller share of replicates on either
    /// side of 1 (each share counted as `(k + 1) / (B + 1)`), capped at 1; from the normal
    /// approximation on the large-sample path.
    pub p_value: f64,
    /// The replicates the interval was read from (`None` on the large-sample path).
    pub distribution: Option<IntervalDistribution>,
}

/// Pooled medians over resampled blocks.
struct PooledMedians<'a> {
    baseline: &'a Blocks,
    candidate: &'a Blocks,
}

impl PooledMedians<'_> {
    fn pooled(blocks: &Blocks, idx: &[usize]) -> Option<f64> {
        let runs: Vec<f64> = idx
            .iter()
            .flat_map(|&i| blocks[i].iter().copied())
            .collect();
        (!runs.is_empty()).then(|| median(&runs))
    }
}

impl Statistic for PooledMedians<'_> {
    fn sizes(&self) -> Vec<usize> {
        vec![self.baseline.len()]
    }

    fn value(&self, idx: &[Vec<usize>]) -> Option<f64> {
        let b = Self::pooled(self.baseline, &idx[0])?;
        let c = Self::pooled(self.candidate, &idx[0])?;
        let r = c / b;
        (b > 0.0 && r.is_finite()).then_some(r)
    }
}

/// The ratio of pooled medians, candidate over baseline, with an interval from resampling
/// whole blocks: `baseline[b]` and `candidate[b]` are the runs of each variant in block
/// `b`. Each replicate draws blocks with replacement and recomputes each variant's median
/// over the runs of the drawn blocks. `config.method` picks the interval (percentile,
/// BCa or studentized); the p-value always comes from the replicates.
///
/// Above [`crate::paired::LARGE_SAMPLE_BLOCKS`] blocks the interval is the normal one on
/// the log scale with a block-clustered standard error of the two medians' influence
/// functions (the sparsity estimated from order statistics, Hall & Sheather 1988), which
/// is O(N log N) in the N runs instead of O(B N).
///
/// # Errors
/// [`StatsError::LengthMismatch`] when the block counts differ,
/// [`StatsError::TooFewSamples`] for fewer than 2 blocks or an empty block,
/// [`StatsError::ZeroDenominator`] unless every value is positive and finite, and an
/// invalid `config`.
///
/// # Examples
/// ```
/// use bench_stats::paired::pooled_median_ratio;
/// use bench_stats::resample::BootstrapConfig;
/// let base: Vec<Vec<f64>> = (0..12).map(|i| vec![100.0 + f64::from(i % 3), 101.0]).collect();
/// let cand: Vec<Vec<f64>> = (0..12).map(|i| vec![110.0 + f64::from(i % 3), 111.0]).collect();
/// let r = pooled_median_ratio(&base, &cand, &BootstrapConfig::default())?;
/// assert!(r.interval.low > 1.05 && r.p_value < 0.01);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn pooled_median_ratio(
    baseline: &(impl AsBlocks + ?Sized),
    candidate: &(impl AsBlocks + ?Sized),
    config: &BootstrapConfig,
) -> Result<PooledMedianRatio, StatsError> {
    let (baseline, candidate) = (&*baseline.as_blocks(), &*candidate.as_blocks());
    config.validate()?;
    check_blocks(baseline, candidate)?;
    if baseline.len() > crate::paired::LARGE_SAMPLE_BLOCKS {
        return large_sample(baseline, candidate, config);
    }
    let stat = PooledMedians {
        baseline,
        candidate,
    };
    let (interval, replicates) = bootstrap::run_keeping(&stat, config, true)?;
    let replicates = replicates.ok_or(StatsError::ZeroDenominator {
        what: "bootstrap statistic on every resample",
    })?;
    // The p counts every replicate: the studentized bootstrap keeps only the resamples
    // with a standard error, so its p comes from all of them again.
    let p_value = match replicates.levels {
        Some(_) => bootstrap_p(&replicates.sorted, 1.0),
        None => {
            let mut all: Vec<f64> =
                per_resample(config.resamples, &stat.sizes(), config.seed, |idx| {
                    stat.value(idx)
                })
                .into_iter()
                .flatten()
                .collect();
            all.sort_by(f64::total_cmp);
            bootstrap_p(&all, 1.0)
        }
    };
    if replicates.sorted.len() < 2 {
        return Err(StatsError::TooFewSamples {
            what: "bootstrap replicates of the pooled-median ratio",
            needed: 2,
            got: replicates.sorted.len(),
        });
    }
    Ok(PooledMedianRatio {
        interval,
        p_value,
        distribution: replicates.into_distribution(),
    })
}

fn check_blocks(baseline: &Blocks, candidate: &Blocks) -> Result<(), StatsError> {
    if baseline.len() != candidate.len() {
        return Err(StatsError::LengthMismatch {
            left: baseline.len(),
            right: candidate.len(),
        });
    }
    let empty = baseline.iter().chain(candidate).any(<[f64]>::is_empty);
    if baseline.len() < 2 || empty {
        return Err(StatsError::TooFewSamples {
            what: "paired blocks with runs of both variants",
            needed: 2,
            got: if empty { 0 } else { baseline.len() },
        });
    }
    let positive = baseline
        .iter()
        .chain(candidate)
        .flatten()
        .all(|&v| v > 0.0 && v.is_finite());
    if positive {
        Ok(())
    } else {
        Err(StatsError::ZeroDenominator {
            what: "pooled-median ratio (every run value must be positive and finite)",
        })
    }
}

/// Two-sided bootstrap p-value of `null` from sorted replicates. A replicate equal to
/// `null` counts in both tails: replicates that all equal it (identical data) give p = 1,
/// not the smallest p the resamples allow.
fn bootstrap_p(sorted: &[f64], null: f64) -> f64 {
    let b = sorted.len() as f64;
    let below = sorted.partition_point(|&r| r <= null) as f64;
    let above = b - sorted.partition_point(|&r| r < null) as f64;
    let tail = (below.min(above) + 1.0) / (b + 1.0);
    (2.0 * tail).min(1.0)
}

/// The median of `runs` and its sparsity `1 / f(median)` from order statistics with the
/// Hall-Sheather bandwidth at 95 %.
fn median_and_sparsity(runs: &mut [f64]) -> (f64, f64) {
    runs.sort_by(f64::total_cmp);
    let n = runs.len() as f64;
    let m = quantile_sorted(runs, 0.5);
    // Hall & Sheather's bandwidth at the median: n^(-1/3) z^(2/3) (1.5 phi(0)^2)^(1/3).
    let z = 1.959_963_984_540_054_f64;
    let phi0_sq = 1.0 / std::f64::consts::TAU;
    let h = (n.powf(-1.0 / 3.0) * z.powf(2.0 / 3.0) * (1.5 * phi0_sq).powf(1.0 / 3.0))
        .clamp(1e-4, 0.25);
    let spread = quantile_sorted(runs, 0.5 + h) - quantile_sorted(runs, 0.5 - h);
    (m, spread / (2.0 * h))
}

fn large_sample(
    baseline: &Blocks,
    candidate: &Blocks,
    config: &BootstrapConfig,
) -> Result<PooledMedianRatio, StatsError> {
    let mut a: Vec<f64> = baseline.values().to_vec();
    let mut c: Vec<f64> = candidate.values().to_vec();
    let (na, nc) = (a.len() as f64, c.len() as f64);
    let (ma, sa) = median_and_sparsity(&mut a);
    let (mc, sc) = median_and_sparsity(&mut c);
    // Influence of one run on ln(median): sparsity * (1/2 - [x <= m]) / m.
    let psi = |x: f64, m: f64, s: f64| s * (0.5 - f64::from(u8::from(x <= m))) / m;
    let u: Vec<f64> = baseline
        .iter()
        .zip(candidate)
        .map(|(b, k)| {
            k.iter().map(|&x| psi(x, mc, sc)).sum::<f64>() / nc
                - b.iter().map(|&x| psi(x, ma, sa)).sum::<f64>() / na
        })
        .collect();
    let nb = u.len() as f64;
    let mu = u.iter().sum::<f64>() / nb;
    let se = (u.iter().map(|x| (x - mu).powi(2)).sum::<f64>() * nb / (nb - 1.0)).sqrt();
    let z = crate::special::normal_ppf(0.5 + config.confidence / 2.0).unwrap_or(1.96);
    let log_r = crate::special::log_ratio(mc, ma);
    let p_value = (2.0 * crate::special::normal_sf((log_r / se).abs())).min(1.0);
    let interval = BootstrapInterval {
        estimate: log_r.exp(),
        low: (log_r - z * se).exp(),
        high: (log_r + z * se).exp(),
        standard_error: se * log_r.exp(),
        method: IntervalMethod::LargeSample,
        confidence: config.confidence,
        resamples: 0,
        skipped: 0,
        seed: config.seed,
    };
    if [interval.low, interval.high, p_value]
        .iter()
        .all(|v| v.is_finite())
    {
        Ok(PooledMedianRatio {
            interval,
            p_value,
            distribution: None,
        })
    } else {
        Err(StatsError::NonFinite {
            what: "large-sample pooled-median ratio (the runs' spread is zero or overflows)",
            value: se,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Blocks of 2 + 2 runs: a shared block level, a tight mode and one run in five slowed.
    fn blocks(n: usize, effect: f64, seed: u64) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut run = |level: f64, k: f64| {
            let slow = if rng.random::<f64>() < 0.2 { 1.3 } else { 1.0 };
            level * k * slow * (1.0 + 0.02 * (rng.random::<f64>() - 0.5))
        };
        let mut a = Vec::new();
        let mut b = Vec::new();
        for i in 0..n {
            let level = 50.0 * (1.0 + 0.01 * ((i % 7) as f64 - 3.0));
            a.push(vec![run(level, 1.0), run(level, 1.0)]);
            b.push(vec![run(level, effect), run(level, effect)]);
        }
        (a, b)
    }

    #[test]
    fn summaries_of_runs() {
        let runs = [3.0, 1.0, 2.0, 10.0];
        assert_eq!(BlockSummary::Mean.of(&runs), Some(4.0));
        assert_eq!(BlockSummary::Median.of(&runs), Some(2.5));
        assert_eq!(BlockSummary::Min.of(&runs), Some(1.0));
        assert_eq!(BlockSummary::Max.of(&runs), Some(10.0));
        assert_eq!(BlockSummary::best(true), BlockSummary::Max);
        assert_eq!(BlockSummary::Min.of(&[]), None);
        assert_eq!(BlockSummary::Mean.of(&[1.0, f64::NAN]), None);
    }

    #[test]
    fn the_point_is_the_ratio_of_pooled_medians() {
        let (a, b) = blocks(30, 1.05, 3);
        let r = pooled_median_ratio(&a, &b, &BootstrapConfig::default()).unwrap();
        let med = |x: &[Vec<f64>]| median(&x.iter().flatten().copied().collect::<Vec<_>>());
        assert!((r.interval.estimate - med(&b) / med(&a)).abs() < 1e-12);
        assert!(r.interval.low < r.interval.estimate && r.interval.estimate < r.interval.high);
        assert!(r.p_value < 0.01, "{}", r.p_value);
    }

    #[test]
    fn large_sample_standard_error_agrees_with_the_bootstrap() {
        // The influence-function path (used above LARGE_SAMPLE_BLOCKS) against the block
        // bootstrap on the same 2000 blocks: the standard errors of the ratio agree within
        // the bootstrap's and the sparsity estimate's own noise.
        let (a, b) = blocks(2000, 1.01, 5);
        let config = BootstrapConfig {
            resamples: 400,
            ..BootstrapConfig::default()
        };
        let boot = pooled_median_ratio(&a, &b, &config).unwrap();
        let large = large_sample(&Blocks::from(&a), &Blocks::from(&b), &config).unwrap();
        let ratio = large.interval.standard_error / boot.interval.standard_error;
        assert!((0.75..1.33).contains(&ratio), "se ratio {ratio}");
        assert!((large.interval.estimate - boot.interval.estimate).abs() < 1e-12);
    }

    #[test]
    fn bad_blocks_are_named_errors() {
        let ok = vec![vec![1.0, 2.0]; 4];
        let config = BootstrapConfig::default();
        assert!(matches!(
            pooled_median_ratio(&ok, &ok[..3], &config),
            Err(StatsError::LengthMismatch { .. })
        ));
        let mut empty = ok.clone();
        empty[2].clear();
        assert!(matches!(
            pooled_median_ratio(&ok, &empty, &config),
            Err(StatsError::TooFewSamples { .. })
        ));
        let mut zero = ok.clone();
        zero[0][0] = 0.0;
        assert!(matches!(
            pooled_median_ratio(&zero, &ok, &config),
            Err(StatsError::ZeroDenominator { .. })
        ));
    }
}
