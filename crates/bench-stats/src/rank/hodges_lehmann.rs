//! Two-sample Hodges-Lehmann shift (J. L. Hodges & E. L. Lehmann, "Estimates of
//! location based on rank tests", *Annals of Mathematical Statistics* 34 (1963)) with
//! Lehmann's distribution-free confidence interval.
//!
//! The estimate is the median of the pairwise differences `b_j - a_i` (candidate minus
//! baseline). The interval runs from the `k`-th smallest to the `k`-th largest
//! difference, `k = floor(mn/2 - z_(1-alpha/2) sigma_U)` (at least 1) with the
//! tie-corrected Mann-Whitney `sigma_U`: the normal-approximation branch of R's
//! `wilcox.test(conf.int = TRUE)`. To bound the `mn` pairs, each group is first
//! stride-subsampled (positions `floor(i len / 512)`) to at most
//! [`HL_MAX_PER_GROUP`] values, deterministically.

use crate::rank::ranks::mid_ranks;
use crate::rank::wilcoxon::{check_confidence, kth_smallest, median_in_place, stride_subsample};
use crate::special::normal_ppf;
use crate::{Sample, StatsError};

/// Each group is stride-subsampled to at most this many values before pairing.
pub const HL_MAX_PER_GROUP: usize = 512;

/// Hodges-Lehmann location shift of a candidate against a baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ShiftEstimate {
    /// Median of `b_j - a_i`; positive when the candidate's values are larger.
    pub shift: f64,
    /// `k`-th smallest pairwise difference.
    pub ci_low: f64,
    /// `k`-th largest pairwise difference.
    pub ci_high: f64,
    /// The requested confidence level.
    pub confidence: f64,
    /// The order statistic `k` (1-based) that bounds the interval.
    pub k: usize,
    /// Baseline values used (after subsampling).
    pub n_baseline: usize,
    /// Candidate values used (after subsampling).
    pub n_candidate: usize,
}

/// Hodges-Lehmann shift of `candidate` (b) against `baseline` (a) with a Lehmann
/// interval at `confidence` (e.g. 0.95).
///
/// Time: O(m n) with `m, n <= 512` after subsampling (expected linear selection over
/// the at most 262 144 differences), plus O((m + n) log(m + n)) for the ties.
///
/// # Errors
/// [`StatsError::InvalidParameter`] when `confidence` is not strictly between 0 and 1;
/// [`StatsError::NonFinite`] when the shift overflows `f64` (values near `f64::MAX` of
/// opposite signs).
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::rank::hodges_lehmann;
/// let a = Sample::new(&[10.0, 11.0, 12.0, 13.0])?;
/// let b = Sample::new(&[12.0, 13.0, 14.0, 15.0])?;
/// let s = hodges_lehmann(&a, &b, 0.95)?;
/// assert_eq!(s.shift, 2.0);
/// assert!(s.ci_low <= 2.0 && 2.0 <= s.ci_high);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn hodges_lehmann(
    baseline: &Sample,
    candidate: &Sample,
    confidence: f64,
) -> Result<ShiftEstimate, StatsError> {
    check_confidence(confidence)?;
    let a = stride_subsample(baseline.values(), HL_MAX_PER_GROUP);
    let b = stride_subsample(candidate.values(), HL_MAX_PER_GROUP);
    let (m, n) = (a.len(), b.len());
    // Half-differences cannot overflow; doubling is exact unless the true value does.
    let mut half: Vec<f64> = Vec::with_capacity(m * n);
    for &y in &b {
        half.extend(a.iter().map(|&x| y / 2.0 - x / 2.0));
    }
    let pairs = half.len();
    let shift = 2.0 * median_in_place(&mut half);

    let pooled: Vec<f64> = a.iter().chain(&b).copied().collect();
    let ties = mid_ranks(&pooled).tie_term;
    let (mf, nf) = (m as f64, n as f64);
    let big_n = mf + nf;
    let var = mf * nf / 12.0 * ((big_n + 1.0) - ties / (big_n * (big_n - 1.0)));
    let sigma = var.max(0.0).sqrt();
    let z = -normal_ppf((1.0 - confidence) / 2.0).unwrap_or(0.0);
    let raw = (pairs as f64 / 2.0 - z * sigma).floor();
    let k = if raw >= 1.0 { raw as usize } else { 1 };
    let k = k.min(pairs.div_ceil(2));
    let ci_low = 2.0 * kth_smallest(&mut half, k - 1);
    let ci_high = 2.0 * kth_smallest(&mut half, pairs - k);
    if let Some(bad) = [shift, ci_low, ci_high]
        .into_iter()
        .find(|v| !v.is_finite())
    {
        return Err(StatsError::NonFinite {
            what: "hodges-lehmann shift (pairwise differences overflow f64; rescale the data)",
            value: bad,
        });
    }
    Ok(ShiftEstimate {
        shift,
        ci_low,
        ci_high,
        confidence,
        k,
        n_baseline: m,
        n_candidate: n,
    })
}
