//! The seeded bootstrap engine: percentile, BCa and studentized intervals.
//!
//! # Resampling and reproducibility
//! Resample `i` (0-based) draws its indices from its own
//! [`Xoshiro256PlusPlus`] stream, seeded with `seed_from_u64(mix(seed, i))` where `mix` is
//! the SplitMix64 finaliser applied twice. No stream depends on another or on the order in
//! which threads pick up work, so the replicates, and every interval, are bit-identical
//! for a given seed on one thread or many (rayon, behind the `parallel` feature).
//! Indices are drawn with `Rng::random_range(0..n)`.
//!
//! # Interval methods
//! All quantiles of the replicate distribution use linear interpolation between order
//! statistics, Hyndman & Fan definition 7 (NumPy's default `method="linear"`).
//!
//! - [`IntervalMethod::Percentile`]: the `alpha/2` and `1 - alpha/2` quantiles of the
//!   replicates, `alpha = 1 - confidence` (Efron & Tibshirani 1993, §13.3).
//! - [`IntervalMethod::Bca`]: bias-corrected and accelerated (Efron 1987; Efron &
//!   Tibshirani §14.3), formed exactly as `scipy.stats.bootstrap(method="BCa")` forms it
//!   (mid-rank `z0`, per-sample weighted jackknife acceleration; see [`BcaParameters`]),
//!   with quantile levels `Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`. When the jackknife
//!   values are all equal, `a = 0`. Checked against SciPy in `tests/bootstrap_reference.rs`.
//! - [`IntervalMethod::Studentized`]: bootstrap-t (Efron & Tibshirani §12.5). Each resample
//!   gives `t* = (theta* - theta_hat) / se*`, and the interval is `[theta_hat - t*_(1-alpha/2)
//!   se_hat, theta_hat - t*_(alpha/2) se_hat]`. The standard error is analytic for
//!   mean-type statistics (`sd / sqrt(n)`, combined over samples) and the jackknife
//!   standard error otherwise (O(n) statistic evaluations per resample).
//!
//! A resample on which the statistic is undefined (a zero denominator, a zero standard
//! error for bootstrap-t) is skipped and counted in [`BootstrapInterval::skipped`].

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::Sample;
use crate::StatsError;
use crate::descriptive::summary::{mean, quantile_sorted, variance_parts};
use crate::model::distribution::{DistributionKind, IntervalDistribution};
use crate::special::{normal_cdf, normal_ppf};

/// Fewest resamples [`BootstrapConfig::validate`] accepts.
pub const MIN_RESAMPLES: u32 = 100;

/// How a bootstrap interval is formed from the replicates. See the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[non_exhaustive]
pub enum IntervalMethod {
    /// Quantiles of the replicates (the appendix's method). The default.
    #[default]
    Percentile,
    /// Bias-corrected and accelerated, acceleration from the jackknife.
    Bca,
    /// Bootstrap-t with an analytic (mean-type) or jackknife standard error.
    Studentized,
    /// No resampling: a normal-theory (mean, delta-method ratio) or order-statistic
    /// (median) interval. The paired analysis switches to it by itself above
    /// [`crate::paired::LARGE_SAMPLE_BLOCKS`] blocks, where the bootstrap would cost minutes and the
    /// large-sample theory is accurate; it cannot be requested for a bootstrap.
    LargeSample,
    /// No resampling: the Hodges-Lehmann interval from inverting the Wilcoxon signed-rank
    /// test (exact critical values for small untied samples), reported by
    /// [`crate::PairedEstimator::HodgesLehmannLogRatio`]; it cannot be requested for a
    /// bootstrap.
    SignedRank,
    /// No resampling: inverted randomization tests that swap the variants' runs inside
    /// blocks ([`crate::paired::shape`]), reported by
    /// [`crate::PairedEstimator::TypicalRun`]; it cannot be requested for a bootstrap.
    Permutation,
}

impl IntervalMethod {
    /// Stable lower-case name: `percentile`, `bca`, `studentized`.
    pub fn as_str(self) -> &'static str {
        match self {
            IntervalMethod::Percentile => "percentile",
            IntervalMethod::Bca => "bca",
            IntervalMethod::Studentized => "studentized",
            IntervalMethod::LargeSample => "large-sample",
            IntervalMethod::SignedRank => "signed-rank",
            IntervalMethod::Permutation => "permutation",
        }
    }
}

/// Settings of one bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BootstrapConfig {
    /// Number of resamples. Default 2000; at least [`MIN_RESAMPLES`].
    pub resamples: u32,
    /// Confidence level, strictly between 0 and 1. Default 0.95.
    pub confidence: f64,
    /// Seed of every resample stream. Default 1.
    pub seed: u64,
    /// Interval method. Default [`IntervalMethod::Percentile`].
    pub method: IntervalMethod,
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        BootstrapConfig {
            resamples: 2000,
            confidence: 0.95,
            seed: 1,
            method: IntervalMethod::Percentile,
        }
    }
}

impl BootstrapConfig {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`StatsError::InvalidParameter`] for `confidence` outside `(0, 1)` (or NaN) and for
    /// fewer than [`MIN_RESAMPLES`] resamples.
    pub fn validate(&self) -> Result<(), StatsError> {
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(StatsError::InvalidParameter {
                name: "confidence",
                value: self.confidence,
                reason: "must be strictly between 0 and 1",
            });
        }
        if self.resamples < MIN_RESAMPLES {
            return Err(StatsError::InvalidParameter {
                name: "resamples",
                value: f64::from(self.resamples),
                reason: "at least 100 resamples are needed for a stable interval",
            });
        }
        Ok(())
    }
}

/// A bootstrap confidence interval with its provenance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BootstrapInterval {
    /// The statistic on the original data.
    pub estimate: f64,
    /// Lower bound.
    pub low: f64,
    /// Upper bound (`low <= high`).
    pub high: f64,
    /// Standard deviation of the replicates (the bootstrap standard error).
    pub standard_error: f64,
    /// Method that formed the bounds.
    pub method: IntervalMethod,
    /// Confidence level.
    pub confidence: f64,
    /// Resamples that produced a replicate.
    pub resamples: u32,
    /// Resamples skipped because the statistic was undefined on them.
    pub skipped: u32,
    /// Seed used.
    pub seed: u64,
}

impl BootstrapInterval {
    /// `[low, high]`, the shape the analysis model stores.
    pub fn bounds(&self) -> [f64; 2] {
        [self.low, self.high]
    }

    /// `true` when `value` lies within `[low, high]`.
    pub fn contains(&self, value: f64) -> bool {
        self.low <= value && value <= self.high
    }
}

/// A statistic of one or more independently resampled samples.
///
/// `idx` holds one index vector per sample (`idx[s][j]` indexes sample `s`); the original
/// data is the identity indexing. Implemented by the crate's own statistics.
pub(crate) trait Statistic: Sync {
    /// Sizes of the samples (each at least 1).
    fn sizes(&self) -> Vec<usize>;
    /// The statistic on the indexed data, `None` when undefined there.
    fn value(&self, idx: &[Vec<usize>]) -> Option<f64>;
    /// Standard error on the indexed data, for bootstrap-t. Default: the jackknife.
    fn standard_error(&self, idx: &[Vec<usize>]) -> Option<f64> {
        let jack = jackknife(self, idx)?;
        let mut total = 0.0;
        for values in &jack {
            let n = values.len() as f64;
            let m = mean(values);
            let ss: f64 = values.iter().map(|v| (v - m).powi(2)).sum();
            total += (n - 1.0) / n * ss;
        }
        let se = total.sqrt();
        se.is_finite().then_some(se)
    }
}

/// Leave-one-out values of `stat` on the indexed data, one vector per sample. `None` when
/// a sample has a single element or the statistic is undefined on a leave-one-out set.
fn jackknife<S: Statistic + ?Sized>(stat: &S, idx: &[Vec<usize>]) -> Option<Vec<Vec<f64>>> {
    let mut out = Vec::with_capacity(idx.len());
    let mut work: Vec<Vec<usize>> = idx.to_vec();
    for s in 0..idx.len() {
        let n = idx[s].len();
        if n < 2 {
            return None;
        }
        let mut values = Vec::with_capacity(n);
        for i in 0..n {
            work[s].clear();
            work[s].extend(
                idx[s]
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, &k)| k),
            );
            values.push(stat.value(&work)?);
        }
        work[s].clone_from(&idx[s]);
        out.push(values);
    }
    Some(out)
}

/// SplitMix64's output function (Steele, Lea & Flood 2014).
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The generator of resample `i` under `seed`.
pub(crate) fn stream(seed: u64, i: u64) -> Xoshiro256PlusPlus {
    let key = mix64(seed ^ mix64(i.wrapping_add(0x9E37_79B9_7F4A_7C15)));
    Xoshiro256PlusPlus::seed_from_u64(key)
}

/// One resample's index vectors.
#[cfg(test)]
fn draw(sizes: &[usize], seed: u64, i: u64) -> Vec<Vec<usize>> {
    let mut idx = vec![Vec::new(); sizes.len()];
    draw_into(&mut idx, sizes, seed, i);
    idx
}

/// Fills `idx` (one vector per sample, reused between resamples) with resample `i`.
fn draw_into(idx: &mut [Vec<usize>], sizes: &[usize], seed: u64, i: u64) {
    let mut rng = stream(seed, i);
    for (v, &n) in idx.iter_mut().zip(sizes) {
        v.clear();
        v.extend((0..n).map(|_| rng.random_range(0..n)));
    }
}

/// Computes `f(indices of resample i)` for every resample `i`, in index order, in
/// parallel when enabled. Each worker reuses one index buffer; the indices of resample
/// `i` depend only on `(seed, i)`, never on which worker draws them.
pub(crate) fn per_resample<T: Send>(
    count: u32,
    sizes: &[usize],
    seed: u64,
    f: impl Fn(&[Vec<usize>]) -> T + Sync + Send,
) -> Vec<T> {
    let buffer = || vec![Vec::new(); sizes.len()];
    per_index(count, buffer, |idx: &mut Vec<Vec<usize>>, i: u64| {
        draw_into(idx, sizes, seed, i);
        f(idx)
    })
}

/// `f(scratch, i)` for every resample `i` in `0..count`, in index order: the one loop
/// over resamples every bootstrap of the crate runs (in parallel when enabled, each
/// worker with its own `scratch` from `init`). Whatever `f` draws must depend on `i` only
/// ([`stream`]), so the results are the same on any number of threads.
pub(crate) fn per_index<T: Send, W>(
    count: u32,
    init: impl Fn() -> W + Sync + Send,
    f: impl Fn(&mut W, u64) -> T + Sync + Send,
) -> Vec<T> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..u64::from(count))
            .into_par_iter()
            .map_init(init, f)
            .collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        let mut scratch = init();
        (0..u64::from(count)).map(|i| f(&mut scratch, i)).collect()
    }
}

/// Runs the bootstrap of `stat` under `config`.
pub(crate) fn run<S: Statistic>(
    stat: &S,
    config: &BootstrapConfig,
) -> Result<BootstrapInterval, StatsError> {
    run_keeping(stat, config, false).map(|(interval, _)| interval)
}

/// The replicates a bootstrap interval was read from ([`run_keeping`]).
#[derive(Debug, Clone)]
pub(crate) struct Replicates {
    /// Every replicate, ascending.
    pub sorted: Vec<f64>,
    /// The quantile levels of the interval's ends (`None` when studentized).
    pub levels: Option<[f64; 2]>,
}

impl Replicates {
    /// As the analysis model keeps them.
    pub(crate) fn into_distribution(self) -> Option<IntervalDistribution> {
        IntervalDistribution::new(DistributionKind::BlockBootstrap, self.sorted, self.levels)
    }
}

/// [`run`], with the replicates the interval was read from when `keep` is set.
pub(crate) fn run_keeping<S: Statistic>(
    stat: &S,
    config: &BootstrapConfig,
    keep: bool,
) -> Result<(BootstrapInterval, Option<Replicates>), StatsError> {
    config.validate()?;
    let sizes = stat.sizes();
    let identity: Vec<Vec<usize>> = sizes.iter().map(|&n| (0..n).collect()).collect();
    let estimate = stat.value(&identity).ok_or(StatsError::ZeroDenominator {
        what: "bootstrap statistic on the original data",
    })?;
    let seed = config.seed;

    let ReadInterval {
        replicates,
        low,
        high,
        levels,
    } = match config.method {
        IntervalMethod::LargeSample | IntervalMethod::SignedRank | IntervalMethod::Permutation => {
            return Err(StatsError::InvalidParameter {
                name: "interval method",
                value: f64::NAN,
                reason: "large-sample, signed-rank and permutation intervals are not a bootstrap; choose percentile, bca or studentized",
            });
        }
        IntervalMethod::Percentile | IntervalMethod::Bca => {
            quantile_interval(stat, config, &identity, estimate)?
        }
        IntervalMethod::Studentized => studentized_interval(stat, config, &identity, estimate)?,
    };
    if !(low.is_finite() && high.is_finite()) {
        return Err(StatsError::NonFinite {
            what: "bootstrap interval (overflows f64; rescale the data)",
            value: if low.is_finite() { high } else { low },
        });
    }
    let used = replicates.len() as u32;
    let standard_error = variance_parts(&replicates).map_or(0.0, |(_, sd)| sd);
    let interval = BootstrapInterval {
        estimate,
        low: low.min(high),
        high: high.max(low),
        standard_error,
        method: config.method,
        confidence: config.confidence,
        resamples: used,
        skipped: config.resamples - used,
        seed,
    };
    let kept = keep.then(|| {
        let mut sorted = replicates;
        if levels.is_none() {
            sorted.sort_by(f64::total_cmp);
        }
        Replicates { sorted, levels }
    });
    Ok((interval, kept))
}

/// The replicates a bootstrap drew and the interval read from them.
struct ReadInterval {
    /// Every replicate (ascending when `levels` is set).
    replicates: Vec<f64>,
    low: f64,
    high: f64,
    /// The quantile levels of the interval's ends (`None` when studentized).
    levels: Option<[f64; 2]>,
}

/// The percentile or BCa interval: quantiles of the sorted replicates, at `alpha / 2` and
/// `1 - alpha / 2` or at BCa's corrected levels.
fn quantile_interval<S: Statistic>(
    stat: &S,
    config: &BootstrapConfig,
    identity: &[Vec<usize>],
    estimate: f64,
) -> Result<ReadInterval, StatsError> {
    let alpha = 1.0 - config.confidence;
    let sizes = stat.sizes();
    let mut reps: Vec<f64> =
        per_resample(config.resamples, &sizes, config.seed, |idx| stat.value(idx))
            .into_iter()
            .flatten()
            .collect();
    reps.sort_by(f64::total_cmp);
    if reps.is_empty() {
        return Err(StatsError::ZeroDenominator {
            what: "bootstrap statistic on every resample",
        });
    }
    let (low, high, levels) = if config.method == IntervalMethod::Bca {
        let p = bca(stat, identity, &reps, estimate, alpha)?;
        (p.low, p.high, [p.level_low, p.level_high])
    } else {
        let levels = [alpha / 2.0, 1.0 - alpha / 2.0];
        (
            quantile_sorted(&reps, levels[0]),
            quantile_sorted(&reps, levels[1]),
            levels,
        )
    };
    Ok(ReadInterval {
        replicates: reps,
        low,
        high,
        levels: Some(levels),
    })
}

/// The studentized (bootstrap-t) interval: `estimate - t * se` at the quantiles of the
/// resamples' t statistics, skipping resamples whose standard error is at rounding level.
fn studentized_interval<S: Statistic>(
    stat: &S,
    config: &BootstrapConfig,
    identity: &[Vec<usize>],
    estimate: f64,
) -> Result<ReadInterval, StatsError> {
    let alpha = 1.0 - config.confidence;
    let sizes = stat.sizes();
    let se_hat = stat
        .standard_error(identity)
        .ok_or(StatsError::TooFewSamples {
            what: "studentized bootstrap standard error",
            needed: 2,
            got: sizes.iter().copied().min().unwrap_or(0),
        })?;
    let pairs: Vec<(f64, f64)> = per_resample(config.resamples, &sizes, config.seed, |idx| {
        let v = stat.value(idx)?;
        let se = stat.standard_error(idx)?;
        let t = (v - estimate) / se;
        // A standard error at rounding level means a degenerate resample.
        let floor = 16.0 * f64::EPSILON * (v.abs() + estimate.abs());
        (se > floor && t.is_finite()).then_some((v, t))
    })
    .into_iter()
    .flatten()
    .collect();
    if pairs.is_empty() {
        return Err(StatsError::ZeroVariance {
            what: "studentized bootstrap (every resample has zero standard error)",
        });
    }
    let mut ts: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    ts.sort_by(f64::total_cmp);
    let t_hi = quantile_sorted(&ts, 1.0 - alpha / 2.0);
    let t_lo = quantile_sorted(&ts, alpha / 2.0);
    Ok(ReadInterval {
        replicates: pairs.iter().map(|p| p.0).collect(),
        low: estimate - t_hi * se_hat,
        high: estimate - t_lo * se_hat,
        levels: None,
    })
}

/// The parts of a BCa interval, as `scipy.stats.bootstrap(method="BCa")` forms them.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct BcaParameters {
    /// Bias correction `Phi^-1(p)`, `p = (#(theta* < theta_hat) + #(theta* <= theta_hat)) /
    /// (2 B)` (SciPy's mid-rank `_percentile_of_score`, so ties at the estimate count half).
    pub z0: f64,
    /// Jackknife acceleration `sum_j sum_i U_ji³ / n_j³ / (6 (sum_j sum_i U_ji² / n_j²)^1.5)`,
    /// `U_ji = (n_j - 1)(mean_i theta_(ji) - theta_(ji))` for sample `j` (for one sample
    /// this is `sum d³ / (6 (sum d²)^1.5)`); 0 when the jackknife values are all equal.
    pub acceleration: f64,
    /// Quantile level of the lower bound, `Phi(z0 + (z0 + z_(alpha/2)) / (1 - a (z0 +
    /// z_(alpha/2))))`.
    pub level_low: f64,
    /// Quantile level of the upper bound (`z_(1 - alpha/2)` in the same formula).
    pub level_high: f64,
    /// Lower bound: the replicates' `level_low` quantile (linear interpolation).
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

/// Jackknife acceleration of `stat` on the original data, weighted per sample as SciPy.
fn acceleration<S: Statistic + ?Sized>(stat: &S, identity: &[Vec<usize>]) -> Option<f64> {
    let jack = jackknife(stat, identity)?;
    let (mut num, mut den) = (0.0, 0.0);
    for values in &jack {
        let n = values.len() as f64;
        let m = mean(values);
        let (mut n3, mut n2) = (0.0, 0.0);
        for v in values {
            let u = (n - 1.0) * (m - v);
            n3 += u * u * u;
            n2 += u * u;
        }
        num += n3 / (n * n * n);
        den += n2 / (n * n);
    }
    if den == 0.0 {
        return Some(0.0);
    }
    let a = num / (6.0 * den.powf(1.5));
    a.is_finite().then_some(a)
}

/// BCa interval from the sorted replicates of `stat` (see [`BcaParameters`]).
fn bca<S: Statistic + ?Sized>(
    stat: &S,
    identity: &[Vec<usize>],
    sorted_reps: &[f64],
    estimate: f64,
    alpha: f64,
) -> Result<BcaParameters, StatsError> {
    let below = sorted_reps.partition_point(|&v| v < estimate);
    let at_most = sorted_reps.partition_point(|&v| v <= estimate);
    let prop = (below + at_most) as f64 / (2 * sorted_reps.len()) as f64;
    let z0 = normal_ppf(prop).ok_or(StatsError::InvalidParameter {
        name: "bca bias correction",
        value: prop,
        reason: "every bootstrap replicate lies on one side of the estimate; BCa is undefined, \
                 use the percentile interval",
    })?;
    let a = acceleration(stat, identity).ok_or(StatsError::TooFewSamples {
        what: "BCa jackknife acceleration",
        needed: 2,
        got: identity.iter().map(Vec::len).min().unwrap_or(0),
    })?;
    let level = |z: f64| {
        let w = z0 + z;
        normal_cdf(z0 + w / (1.0 - a * w))
    };
    let z_lo = normal_ppf(alpha / 2.0).unwrap_or(f64::NEG_INFINITY);
    let (level_low, level_high) = (level(z_lo), level(-z_lo));
    if !(level_low.is_finite() && level_high.is_finite()) {
        return Err(StatsError::InvalidParameter {
            name: "bca acceleration",
            value: a,
            reason: "the BCa quantile levels are undefined for this acceleration",
        });
    }
    Ok(BcaParameters {
        z0,
        acceleration: a,
        level_low,
        level_high,
        low: quantile_sorted(sorted_reps, level_low),
        high: quantile_sorted(sorted_reps, level_high),
    })
}

/// Mean of one sample, with the analytic standard error `sd / sqrt(n)`.
struct MeanStat<'a>(&'a [f64]);

impl Statistic for MeanStat<'_> {
    fn sizes(&self) -> Vec<usize> {
        vec![self.0.len()]
    }
    fn value(&self, idx: &[Vec<usize>]) -> Option<f64> {
        // Same summation order as `mean`, without collecting the resample.
        let n = idx[0].len() as f64;
        let sum: f64 = idx[0].iter().map(|&i| self.0[i]).sum();
        Some(if sum.is_finite() {
            sum / n
        } else {
            idx[0].iter().map(|&i| self.0[i] / n).sum()
        })
    }
    fn standard_error(&self, idx: &[Vec<usize>]) -> Option<f64> {
        let v: Vec<f64> = idx[0].iter().map(|&i| self.0[i]).collect();
        variance_parts(&v).map(|(_, sd)| sd / (v.len() as f64).sqrt())
    }
}

/// Bootstrap interval of the mean of one sample (resampling its values).
///
/// Time: O(B n), B = `config.resamples`, divided over the rayon threads; BCa adds an O(n²)
/// jackknife. Studentized uses `sd / sqrt(n)` per resample.
///
/// # Errors
/// Invalid `config` ([`BootstrapConfig::validate`]); [`StatsError::TooFewSamples`] for
/// BCa or studentized with one value; BCa/studentized degeneracies (all values equal).
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::resample::{bootstrap_mean, BootstrapConfig};
/// let s = Sample::new(&[10.0, 12.0, 11.0, 13.0, 9.0, 11.5])?;
/// let ci = bootstrap_mean(&s, &BootstrapConfig::default())?;
/// assert!(ci.low < ci.estimate && ci.estimate < ci.high);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn bootstrap_mean(
    sample: &Sample,
    config: &BootstrapConfig,
) -> Result<BootstrapInterval, StatsError> {
    run(&MeanStat(sample.values()), config)
}

/// Difference of means of two independent samples (candidate - baseline), analytic
/// standard error `sqrt(s_b²/n_b + s_c²/n_c)`.
struct MeanDiffStat<'a> {
    baseline: &'a [f64],
    candidate: &'a [f64],
}

impl MeanDiffStat<'_> {
    fn pick(&self, idx: &[Vec<usize>]) -> (Vec<f64>, Vec<f64>) {
        (
            idx[0].iter().map(|&i| self.baseline[i]).collect(),
            idx[1].iter().map(|&i| self.candidate[i]).collect(),
        )
    }
}

impl Statistic for MeanDiffStat<'_> {
    fn sizes(&self) -> Vec<usize> {
        vec![self.baseline.len(), self.candidate.len()]
    }
    fn value(&self, idx: &[Vec<usize>]) -> Option<f64> {
        let (b, c) = self.pick(idx);
        let d = mean(&c) - mean(&b);
        d.is_finite().then_some(d)
    }
    fn standard_error(&self, idx: &[Vec<usize>]) -> Option<f64> {
        let (b, c) = self.pick(idx);
        let (_, sb) = variance_parts(&b)?;
        let (_, sc) = variance_parts(&c)?;
        let se = (sb * sb / b.len() as f64 + sc * sc / c.len() as f64).sqrt();
        se.is_finite().then_some(se)
    }
}

/// Unpaired bootstrap of the difference of means, candidate minus baseline, resampling
/// each sample's runs separately (two independent sessions, no blocks).
///
/// This is the contrast to the block bootstrap: it treats every run as an independent
/// draw, so a session-to-session shift is attributed to the variants. Use it only for
/// data that really are unpaired. Time: O(B (n_b + n_c)).
///
/// # Errors
/// As [`bootstrap_mean`]; [`StatsError::NonFinite`] if the difference overflows.
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::resample::{unpaired_bootstrap_difference, BootstrapConfig};
/// let a = Sample::new(&[10.0, 11.0, 10.5, 10.2, 10.8])?;
/// let b = Sample::new(&[12.0, 12.5, 11.8, 12.2, 12.1])?;
/// let ci = unpaired_bootstrap_difference(&a, &b, &BootstrapConfig::default())?;
/// assert!(ci.low > 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn unpaired_bootstrap_difference(
    baseline: &Sample,
    candidate: &Sample,
    config: &BootstrapConfig,
) -> Result<BootstrapInterval, StatsError> {
    run(
        &MeanDiffStat {
            baseline: baseline.values(),
            candidate: candidate.values(),
        },
        config,
    )
}

/// A user statistic of one sample, for [`bootstrap_statistic`].
struct FnStat<'a, F> {
    n: usize,
    f: &'a F,
}

impl<F> Statistic for FnStat<'_, F>
where
    F: Fn(&[usize]) -> Option<f64> + Sync,
{
    fn sizes(&self) -> Vec<usize> {
        vec![self.n]
    }
    fn value(&self, idx: &[Vec<usize>]) -> Option<f64> {
        (self.f)(&idx[0]).filter(|v| v.is_finite())
    }
}

/// Bootstrap of any statistic of `n` resampling units (runs, or whole blocks).
///
/// `statistic` receives the indices of one resample (`n` of them, drawn with replacement
/// from `0..n`; the original data is `0..n` in order) and returns the statistic, or
/// `None` where it is undefined (such resamples are skipped). Studentized intervals use
/// the jackknife standard error, which costs O(n) extra evaluations per resample.
///
/// # Errors
/// Invalid `config`; [`StatsError::TooFewSamples`] when `n == 0` (or `n < 2` for BCa and
/// studentized); [`StatsError::ZeroDenominator`] when the statistic is undefined on the
/// original data.
///
/// # Examples
/// ```
/// use bench_stats::resample::{bootstrap_statistic, BootstrapConfig};
/// let x = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
/// let max = |idx: &[usize]| idx.iter().map(|&i| x[i]).reduce(f64::max);
/// let ci = bootstrap_statistic(x.len(), max, &BootstrapConfig::default())?;
/// assert_eq!(ci.estimate, 9.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn bootstrap_statistic<F>(
    n: usize,
    statistic: F,
    config: &BootstrapConfig,
) -> Result<BootstrapInterval, StatsError>
where
    F: Fn(&[usize]) -> Option<f64> + Sync,
{
    if n == 0 {
        return Err(StatsError::TooFewSamples {
            what: "bootstrap units",
            needed: 1,
            got: 0,
        });
    }
    run(&FnStat { n, f: &statistic }, config)
}

/// The BCa interval of the mean of `sample` from externally drawn `replicates` (bootstrap
/// means, any order) at `confidence`: the deterministic half of BCa, exposed so it can be
/// checked against `scipy.stats._resampling._bca_interval` on fixed replicates.
/// Time: O(n² + B log B).
///
/// # Errors
/// [`StatsError::TooFewSamples`] for fewer than 2 values or no replicates;
/// [`StatsError::InvalidParameter`] for `confidence` outside (0, 1) or when every
/// replicate lies on one side of the mean; [`StatsError::NonFinite`] for a NaN or infinite
/// replicate.
pub fn bca_from_replicates(
    sample: &Sample,
    replicates: &[f64],
    confidence: f64,
) -> Result<BcaParameters, StatsError> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(StatsError::InvalidParameter {
            name: "confidence",
            value: confidence,
            reason: "must be strictly between 0 and 1",
        });
    }
    if sample.len() < 2 || replicates.is_empty() {
        return Err(StatsError::TooFewSamples {
            what: "BCa parameters",
            needed: 2,
            got: sample.len().min(replicates.len()),
        });
    }
    if let Some(&v) = replicates.iter().find(|v| !v.is_finite()) {
        return Err(StatsError::NonFinite {
            what: "bootstrap replicate",
            value: v,
        });
    }
    let stat = MeanStat(sample.values());
    let identity = vec![(0..sample.len()).collect::<Vec<_>>()];
    let mut sorted = replicates.to_vec();
    sorted.sort_by(f64::total_cmp);
    let estimate = mean(sample.values());
    bca(&stat, &identity, &sorted, estimate, 1.0 - confidence)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_per_resample_and_seed() {
        let a = draw(&[12], 7, 0);
        let b = draw(&[12], 7, 1);
        let c = draw(&[12], 8, 0);
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_eq!(a, draw(&[12], 7, 0));
    }

    #[test]
    fn config_is_validated() {
        let bad = BootstrapConfig {
            confidence: 1.0,
            ..BootstrapConfig::default()
        };
        assert!(bad.validate().is_err());
        let few = BootstrapConfig {
            resamples: 10,
            ..BootstrapConfig::default()
        };
        assert!(few.validate().is_err());
        assert!(BootstrapConfig::default().validate().is_ok());
    }

    #[test]
    fn two_sample_acceleration_matches_scipy() {
        // fixtures/bootstrap/reference.json, "two_sample_difference_of_means": the
        // a_hat of scipy.stats._resampling._bca_interval for mean(c) - mean(b).
        let b = [3.1, 2.7, 4.4, 2.9, 3.6, 8.2, 3.0, 3.3];
        let c = [
            4.0, 3.8, 5.1, 4.2, 9.9, 4.4, 3.9, 4.6, 4.1, 6.3, 4.0, 4.8, 4.3,
        ];
        let stat = MeanDiffStat {
            baseline: &b,
            candidate: &c,
        };
        let identity = vec![(0..8).collect::<Vec<_>>(), (0..13).collect::<Vec<_>>()];
        let a = acceleration(&stat, &identity).unwrap();
        let want = -0.036_552_305_332_276_19;
        assert!(((a - want) / want).abs() < 1e-9, "{a} vs {want}");
    }

    #[test]
    fn jackknife_se_of_mean_equals_analytic() {
        let x = [1.0, 4.0, 2.0, 8.0, 5.0];
        let stat = MeanStat(&x);
        let id = vec![(0..5).collect::<Vec<_>>()];
        let fnstat_f = |idx: &[usize]| Some(mean(&idx.iter().map(|&i| x[i]).collect::<Vec<_>>()));
        let generic = FnStat { n: 5, f: &fnstat_f };
        let a = stat.standard_error(&id).unwrap();
        let j = generic.standard_error(&id).unwrap();
        assert!((a - j).abs() < 1e-12, "{a} vs {j}");
    }
}
