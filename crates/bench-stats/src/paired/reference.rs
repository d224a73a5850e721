//! Ratio of ratios against a reference workload measured once per block.
//!
//! Block `i` yields baseline `b_i`, candidate `c_i` and reference `r_i`. Each variant is
//! normalised by its block's reference, and the estimate is the ratio of the normalised
//! means:
//!
//! `R = mean_i(c_i / r_i) / mean_i(b_i / r_i)`,
//!
//! whose per-block form is `(c_i / r_i) / (b_i / r_i)`. When a block's state scales every
//! workload alike (`x_i = s_i X`), each normalised value is constant across blocks, so the
//! block effect leaves both means. The interval resamples whole blocks.
//!
//! # When the reference is too noisy
//! A ratio with a noisy denominator is biased: to second order `E[1/r] ~ (1/mu_r)(1 +
//! CV_r²)`, so the relative bias is about `CV_r²`, with `CV_r` the coefficient of variation
//! of the reference's block values. [`RatioOfRatios::noisy`] is set when `CV_r²` exceeds
//! [`REFERENCE_BIAS_LIMIT`] = 0.1 %, i.e. `CV_r` above about 3.2 %. The limit is the
//! size of the smallest effects a well-controlled paired comparison resolves: the
//! appendix's null comparison bounds the ratio within about ±0.4 %, and a bias a quarter of
//! that would already move the interval's edge noticeably. The reference's block values
//! are always returned so a reader can judge for themselves.

use crate::descriptive::summary::{mean, variance_parts};
use crate::model::report::ReferenceReport;
use crate::resample::bootstrap::{self, BootstrapConfig, BootstrapInterval, Statistic};
use crate::{Sample, StatsError};

/// Approximate relative ratio bias (`CV²` of the reference) above which the reference is
/// flagged as noisy: 0.001 (0.1 %), i.e. a block-level CV above ~3.16 %.
pub const REFERENCE_BIAS_LIMIT: f64 = 1e-3;

/// The ratio-of-ratios estimate with its interval and the reference's noise.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RatioOfRatios {
    /// `mean(c_i / r_i) / mean(b_i / r_i)`.
    pub estimate: f64,
    /// Block-bootstrap interval of the estimate, or why there is none.
    pub interval: Result<BootstrapInterval, StatsError>,
    /// Per-block ratio of ratios `(c_i / r_i) / (b_i / r_i)`.
    pub block_ratios: Vec<f64>,
    /// The reference value of every block.
    pub reference_values: Vec<f64>,
    /// Sample coefficient of variation (sd / mean, n - 1) of the reference block values;
    /// `None` for a single block.
    pub reference_cv: Option<f64>,
    /// `reference_cv²`, the approximate relative bias of a ratio over this reference.
    pub approximate_bias: Option<f64>,
    /// `approximate_bias > REFERENCE_BIAS_LIMIT`: the normalisation may add more bias than
    /// the effect being measured.
    pub noisy: bool,
}

impl RatioOfRatios {
    /// The analysis model's [`ReferenceReport`].
    pub fn to_report(&self) -> ReferenceReport {
        ReferenceReport {
            ratio_of_ratios: self.estimate,
            ci: self.interval.as_ref().ok().map(BootstrapInterval::bounds),
            reference_cv: self.reference_cv,
            reference_block_values: self.reference_values.clone(),
        }
    }
}

struct RorStat {
    norm_b: Vec<f64>,
    norm_c: Vec<f64>,
}

impl Statistic for RorStat {
    fn sizes(&self) -> Vec<usize> {
        vec![self.norm_b.len()]
    }
    fn value(&self, idx: &[Vec<usize>]) -> Option<f64> {
        let b = mean(&idx[0].iter().map(|&i| self.norm_b[i]).collect::<Vec<_>>());
        let c = mean(&idx[0].iter().map(|&i| self.norm_c[i]).collect::<Vec<_>>());
        let v = c / b;
        (b > 0.0 && v.is_finite()).then_some(v)
    }
}

/// Ratio of ratios of `candidate` over `baseline`, each normalised by `reference`, with
/// the `i`-th value of each sample measured in block `i`.
///
/// Time: O(B n) (O(B n²) studentized, through the jackknife).
///
/// # Errors
/// [`StatsError::LengthMismatch`] when the three samples differ in length;
/// [`StatsError::ZeroDenominator`] unless every reference and baseline value is positive;
/// [`StatsError::InvalidParameter`] for an invalid config; [`StatsError::NonFinite`] for an
/// overflowing ratio.
/// A failed interval (e.g. one block) is reported in [`RatioOfRatios::interval`].
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::paired::ratio_of_ratios;
/// use bench_stats::resample::BootstrapConfig;
/// let reference = Sample::new(&[100.0, 90.0, 110.0, 95.0])?; // block state
/// let base = Sample::new(&[200.0, 180.0, 220.0, 190.0])?;
/// let cand = Sample::new(&[220.0, 198.0, 242.0, 209.0])?;
/// let r = ratio_of_ratios(&base, &cand, &reference, &BootstrapConfig::default())?;
/// assert!((r.estimate - 1.1).abs() < 1e-12);
/// assert!(r.noisy); // CV of the reference is ~8.7 %
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn ratio_of_ratios(
    baseline: &Sample,
    candidate: &Sample,
    reference: &Sample,
    config: &BootstrapConfig,
) -> Result<RatioOfRatios, StatsError> {
    config.validate()?;
    let (b, c, r) = (baseline.values(), candidate.values(), reference.values());
    if b.len() != c.len() {
        return Err(StatsError::LengthMismatch {
            left: b.len(),
            right: c.len(),
        });
    }
    if r.len() != b.len() {
        return Err(StatsError::LengthMismatch {
            left: b.len(),
            right: r.len(),
        });
    }
    if r.iter().chain(b).any(|&v| v <= 0.0) {
        return Err(StatsError::ZeroDenominator {
            what: "ratio of ratios (reference and baseline values must be positive)",
        });
    }
    let norm_b: Vec<f64> = b.iter().zip(r).map(|(b, r)| b / r).collect();
    let norm_c: Vec<f64> = c.iter().zip(r).map(|(c, r)| c / r).collect();
    let block_ratios: Vec<f64> = norm_c.iter().zip(&norm_b).map(|(c, b)| c / b).collect();
    let overflow = |v: f64| StatsError::NonFinite {
        what: "ratio of ratios (a ratio overflows f64; rescale the data)",
        value: v,
    };
    if let Some(&v) = norm_b
        .iter()
        .chain(&norm_c)
        .chain(&block_ratios)
        .find(|v| !v.is_finite())
    {
        return Err(overflow(v));
    }
    let stat = RorStat { norm_b, norm_c };
    let n = b.len();
    let estimate = stat
        .value(&[(0..n).collect()])
        .ok_or_else(|| overflow(f64::INFINITY))?;
    let interval = if n < 2 {
        Err(StatsError::TooFewSamples {
            what: "ratio of ratios blocks",
            needed: 2,
            got: n,
        })
    } else {
        bootstrap::run(&stat, config)
    };
    let reference_cv = variance_parts(r)
        .map(|(m, sd)| sd / m)
        .filter(|v| v.is_finite());
    let approximate_bias = reference_cv.map(|cv| cv * cv);
    Ok(RatioOfRatios {
        estimate,
        interval,
        block_ratios,
        reference_values: r.to_vec(),
        reference_cv,
        approximate_bias,
        noisy: approximate_bias.is_some_and(|b| b > REFERENCE_BIAS_LIMIT),
    })
}
