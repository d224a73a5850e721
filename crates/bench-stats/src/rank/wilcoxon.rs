//! Wilcoxon signed-rank test (F. Wilcoxon 1945) and the paired Hodges-Lehmann estimate
//! (median of Walsh averages) with its signed-rank confidence interval.
//!
//! The test follows `scipy.stats.wilcoxon` (SciPy 1.17) defaults: `zero_method='wilcox'`
//! (zero differences are dropped before ranking), two-sided, `correction=False`.
//! With `n` non-zero differences ranked by absolute value (mid-ranks), `T+` is the rank
//! sum of the positive ones.
//!
//! - Exact (automatic when `n <= 50`, no tied `|d|` and no zero difference): the null
//!   distribution of `T+` is that of a sum of a random subset of `{1, ..., n}`, built by
//!   dynamic programming; two-sided `p = min(1, 2 min(P(T+ >= t), P(T+ <= t)))`.
//! - Permutation (automatic with tied `|d|` or zero differences, when there are at most
//!   [`WILCOXON_PERMUTATION_MAX`] = 13 differences, zeros included): the exact
//!   distribution of `T+` over all `2^n` sign assignments of the mid-ranks, as SciPy's
//!   `method='auto'` does.
//! - Otherwise the normal approximation `z = (T+ - n(n+1)/4) / sigma` with
//!   `sigma^2 = (n(n+1)(2n+1) - sum(t^3 - t)/2) / 24`.
//!
//! The confidence interval of the Hodges-Lehmann estimate is the textbook inversion of
//! the signed-rank test (Hollander & Wolfe, *Nonparametric Statistical Methods*, §3.2),
//! the construction of R's `wilcox.test(conf.int = TRUE)`: with the `M = n(n+1)/2`
//! Walsh averages sorted, the interval is `[W_(k), W_(M+1-k)]`, where `k` is the
//! smallest integer with `P(T+ <= k) >= alpha/2` (exact) or
//! `k = floor(M/2 - z_(1-alpha/2) sigma)` (normal approximation), at least 1.

use crate::StatsError;
use crate::rank::mann_whitney::Alternative;
use crate::rank::ranks::{cmp_f64, mid_ranks};
use crate::special::{normal_cdf, normal_ppf, normal_sf};

/// Largest number of non-zero differences for which the automatic choice is exact.
pub const WILCOXON_AUTO_EXACT_MAX: usize = 50;
/// Largest number of non-zero differences for which an explicit exact request is
/// honoured (the distribution table has `n(n+1)/2 + 1` entries).
pub const WILCOXON_EXACT_MAX: usize = 400;
/// At most this many differences enter the Walsh averages of
/// [`paired_hodges_lehmann`] (deterministic stride subsampling beyond it).
pub const PAIRED_HL_MAX_DIFFERENCES: usize = 2048;

/// How the p-value of a Wilcoxon test was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WilcoxonMethod {
    /// Exact null distribution of `T+`.
    Exact,
    /// Tie-corrected normal approximation.
    Asymptotic,
    /// Exact permutation distribution over all `2^n` sign assignments of the (tied or
    /// zero-containing) differences: SciPy's `auto` choice for at most
    /// [`WILCOXON_PERMUTATION_MAX`] differences with ties or zeros.
    Permutation,
}

/// Most differences (zeros included) for which [`WilcoxonMethodChoice::Auto`] enumerates
/// the permutation distribution when there are ties or zeros (`2^13` sign assignments), as
/// `scipy.stats.wilcoxon(method='auto')` does.
pub const WILCOXON_PERMUTATION_MAX: usize = 13;

/// Which method the caller asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum WilcoxonMethodChoice {
    /// Exact for at most 50 differences without ties or zeros; with ties or zeros, the
    /// permutation distribution for at most 13 differences; else asymptotic (default,
    /// SciPy's `method='auto'`).
    #[default]
    Auto,
    /// Exact whenever there are no ties or zeros and `n <=` [`WILCOXON_EXACT_MAX`].
    Exact,
    /// Always the normal approximation.
    Asymptotic,
}

/// Continuity correction of the normal approximation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ContinuityCorrection {
    /// No correction (SciPy's default, `correction=False`).
    #[default]
    Off,
    /// Move `T+` half a unit toward its mean.
    Half,
}

/// Options of [`wilcoxon_signed_rank_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WilcoxonConfig {
    /// Tail(s). Default: two-sided. `Greater` means the differences tend to be positive.
    pub alternative: Alternative,
    /// Exact or asymptotic. Default: [`WilcoxonMethodChoice::Auto`].
    pub method: WilcoxonMethodChoice,
    /// Continuity correction of the asymptotic branch. Default: none.
    pub correction: ContinuityCorrection,
}

/// Result of a Wilcoxon signed-rank test.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct WilcoxonOutcome {
    /// SciPy's statistic: `min(T+, T-)` when two-sided, `T+` otherwise.
    pub statistic: f64,
    /// Rank sum of the positive differences.
    pub t_plus: f64,
    /// Rank sum of the negative differences.
    pub t_minus: f64,
    /// p-value for the requested alternative, in `[0, 1]`.
    pub p_value: f64,
    /// Exact or asymptotic.
    pub method: WilcoxonMethod,
    /// Standardized `T+` (after any continuity correction); `None` when exact.
    pub z: Option<f64>,
    /// Number of non-zero differences that were ranked.
    pub n_used: usize,
    /// Number of zero differences dropped.
    pub zeros: usize,
}

/// Two-sided Wilcoxon signed-rank test of paired `differences` (candidate minus
/// baseline) against a zero median, with SciPy's defaults.
///
/// Time: O(n log n); the exact branch adds O(n^3) with `n <= 50`.
///
/// # Errors
/// [`StatsError::TooFewSamples`] for an empty slice; [`StatsError::NonFinite`] for a NaN
/// or infinite difference; [`StatsError::AllTied`] when every difference is zero.
///
/// # Examples
/// ```
/// let d = [1.5, 2.0, -0.5, 3.0, 2.5, 4.0, 1.0];
/// let w = bench_stats::rank::wilcoxon_signed_rank(&d)?;
/// assert_eq!(w.t_minus, 1.0);
/// assert!((w.p_value - 4.0 / 128.0).abs() < 1e-15);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn wilcoxon_signed_rank(differences: &[f64]) -> Result<WilcoxonOutcome, StatsError> {
    wilcoxon_signed_rank_with(differences, &WilcoxonConfig::default())
}

/// The paired form of [`wilcoxon_signed_rank`]: the test of the differences
/// `candidate[i] - baseline[i]`.
///
/// Time: as [`wilcoxon_signed_rank`].
///
/// # Errors
/// [`StatsError::LengthMismatch`] when the two sides differ in length; otherwise as
/// [`wilcoxon_signed_rank`] ([`StatsError::NonFinite`] also when a difference overflows).
///
/// # Examples
/// ```
/// let baseline = [10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0];
/// let candidate = [11.5, 12.0, 9.5, 13.0, 12.5, 14.0, 11.0];
/// let w = bench_stats::rank::wilcoxon_signed_rank_pairs(&baseline, &candidate)?;
/// assert_eq!(w.t_minus, 1.0);
/// assert!(bench_stats::rank::wilcoxon_signed_rank_pairs(&baseline, &candidate[1..]).is_err());
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn wilcoxon_signed_rank_pairs(
    baseline: &[f64],
    candidate: &[f64],
) -> Result<WilcoxonOutcome, StatsError> {
    wilcoxon_signed_rank(&paired_differences(baseline, candidate)?)
}

/// `candidate[i] - baseline[i]` for equally long sides.
fn paired_differences(baseline: &[f64], candidate: &[f64]) -> Result<Vec<f64>, StatsError> {
    if baseline.len() != candidate.len() {
        return Err(StatsError::LengthMismatch {
            left: baseline.len(),
            right: candidate.len(),
        });
    }
    Ok(baseline.iter().zip(candidate).map(|(b, c)| c - b).collect())
}

fn check_finite(values: &[f64], name: &'static str) -> Result<(), StatsError> {
    match values.iter().find(|v| !v.is_finite()) {
        Some(&bad) => Err(StatsError::NonFinite {
            what: name,
            value: bad,
        }),
        None => Ok(()),
    }
}

/// Wilcoxon signed-rank test with explicit options.
///
/// Time: O(n log n) plus O(n^3) for the exact branch.
///
/// # Errors
/// As [`wilcoxon_signed_rank`].
pub fn wilcoxon_signed_rank_with(
    differences: &[f64],
    config: &WilcoxonConfig,
) -> Result<WilcoxonOutcome, StatsError> {
    if differences.is_empty() {
        return Err(StatsError::TooFewSamples {
            what: "wilcoxon differences",
            needed: 1,
            got: 0,
        });
    }
    check_finite(differences, "wilcoxon difference")?;
    let nonzero: Vec<f64> = differences.iter().copied().filter(|&d| d != 0.0).collect();
    let zeros = differences.len() - nonzero.len();
    let n = nonzero.len();
    if n == 0 {
        return Err(StatsError::AllTied {
            what: "wilcoxon (all differences are zero)",
        });
    }
    let abs: Vec<f64> = nonzero.iter().map(|d| d.abs()).collect();
    let ranks = mid_ranks(&abs);
    let t_plus: f64 = nonzero
        .iter()
        .zip(&ranks.ranks)
        .filter(|(d, _)| **d > 0.0)
        .map(|(_, r)| r)
        .sum();
    let nf = n as f64;
    let total = nf * (nf + 1.0) / 2.0;
    let t_minus = total - t_plus;
    let clean = !ranks.has_ties() && zeros == 0;
    let exact = clean
        && match config.method {
            WilcoxonMethodChoice::Auto => n <= WILCOXON_AUTO_EXACT_MAX,
            WilcoxonMethodChoice::Exact => n <= WILCOXON_EXACT_MAX,
            WilcoxonMethodChoice::Asymptotic => false,
        };
    let permutation = !clean
        && config.method == WilcoxonMethodChoice::Auto
        && differences.len() <= WILCOXON_PERMUTATION_MAX;
    let (p, method, z) = if permutation {
        (
            permutation_p(&nonzero, &ranks.ranks, t_plus, config.alternative),
            WilcoxonMethod::Permutation,
            None,
        )
    } else if exact {
        let pmf = signed_rank_pmf(n);
        let t = t_plus.round() as usize;
        let cdf = |k: usize| pmf[..=k].iter().sum::<f64>();
        let sf = |k: usize| pmf[k..].iter().sum::<f64>();
        let p = match config.alternative {
            Alternative::TwoSided => 2.0 * cdf(t).min(sf(t)),
            Alternative::Greater => sf(t),
            Alternative::Less => cdf(t),
        };
        (p, WilcoxonMethod::Exact, None)
    } else {
        let mean = total / 2.0;
        let se = ((nf * (nf + 1.0) * (2.0 * nf + 1.0) - ranks.tie_term / 2.0) / 24.0).sqrt();
        let mut z = (t_plus - mean) / se;
        if config.correction == ContinuityCorrection::Half {
            let sign = match config.alternative {
                Alternative::TwoSided => z.signum() * f64::from(u8::from(z != 0.0)),
                Alternative::Greater => 1.0,
                Alternative::Less => -1.0,
            };
            z -= sign * 0.5 / se;
        }
        let p = match config.alternative {
            Alternative::TwoSided => 2.0 * normal_sf(z.abs()),
            Alternative::Greater => normal_sf(z),
            Alternative::Less => normal_cdf(z),
        };
        (p, WilcoxonMethod::Asymptotic, Some(z))
    };
    let statistic = match config.alternative {
        Alternative::TwoSided => t_plus.min(t_minus),
        Alternative::Less | Alternative::Greater => t_plus,
    };
    Ok(WilcoxonOutcome {
        statistic,
        t_plus,
        t_minus,
        p_value: p.clamp(0.0, 1.0),
        method,
        z,
        n_used: n,
        zeros,
    })
}

/// p-value of `T+` from all `2^n` sign assignments of the non-zero differences (zeros
/// flip to themselves, so they scale every count alike and drop out). Mid-ranks are
/// multiples of 1/2, so the enumeration works on doubled ranks, exactly. Time: O(2^n n).
fn permutation_p(nonzero: &[f64], ranks: &[f64], t_plus: f64, alternative: Alternative) -> f64 {
    let twice: Vec<u64> = ranks.iter().map(|r| (2.0 * r).round() as u64).collect();
    let observed = (2.0 * t_plus).round() as u64;
    debug_assert_eq!(nonzero.len(), twice.len());
    let n = twice.len();
    let (mut ge, mut le) = (0_u64, 0_u64);
    for mask in 0_u64..(1 << n) {
        let t: u64 = (0..n)
            .filter(|&i| mask >> i & 1 == 1)
            .map(|i| twice[i])
            .sum();
        ge += u64::from(t >= observed);
        le += u64::from(t <= observed);
    }
    let total = (1_u64 << n) as f64;
    let (ge, le) = (ge as f64 / total, le as f64 / total);
    match alternative {
        Alternative::TwoSided => (2.0 * ge.min(le)).min(1.0),
        Alternative::Greater => ge,
        Alternative::Less => le,
    }
}

/// Null probability mass of `T+` for `n` untied non-zero differences: entry `t` is
/// `P(T+ = t)`, for `t` in `0..=n(n+1)/2`. Built by halving at each step, so no count
/// overflows. Time: O(n^3).
pub(crate) fn signed_rank_pmf(n: usize) -> Vec<f64> {
    let max = n * (n + 1) / 2;
    let mut p = vec![0.0; max + 1];
    p[0] = 1.0;
    let mut top = 0;
    for i in 1..=n {
        top += i;
        for t in (0..=top).rev() {
            let with = if t >= i { p[t - i] } else { 0.0 };
            p[t] = 0.5 * (p[t] + with);
        }
    }
    p
}

/// Hodges-Lehmann estimate of a paired shift with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct PairedShift {
    /// Median of the Walsh averages `(d_i + d_j) / 2`, `i <= j`.
    pub estimate: f64,
    /// Lower end of the interval, `W_(k)`.
    pub ci_low: f64,
    /// Upper end of the interval, `W_(M+1-k)`.
    pub ci_high: f64,
    /// The requested confidence level.
    pub confidence: f64,
    /// The coverage the interval actually has under the null distribution: exact when
    /// [`PairedShift::method`] is exact (at least the requested level unless `n` is too
    /// small for any interval to reach it), approximate otherwise.
    pub achieved_confidence: f64,
    /// How `k` was chosen.
    pub method: WilcoxonMethod,
    /// Number of differences used (after subsampling to
    /// [`PAIRED_HL_MAX_DIFFERENCES`]).
    pub n_used: usize,
}

/// Paired Hodges-Lehmann estimate: the median of all Walsh averages of `differences`
/// (zeros included), with the signed-rank confidence interval described in the module
/// docs (exact `k` when `n <= 50` with no tied or zero differences, normal otherwise).
/// More than [`PAIRED_HL_MAX_DIFFERENCES`] differences are stride-subsampled first.
///
/// Time: O(M) expected with `M = n(n+1)/2` Walsh averages (selection, not sorting),
/// plus O(n^3) for the exact critical value; memory O(M).
///
/// # Errors
/// [`StatsError::TooFewSamples`] for an empty slice; [`StatsError::NonFinite`] for a NaN
/// or infinite difference; [`StatsError::InvalidParameter`] for a confidence outside
/// `(0, 1)`.
///
/// # Examples
/// ```
/// let d = [1.0, 2.0, 3.0];
/// let hl = bench_stats::rank::paired_hodges_lehmann(&d, 0.95)?;
/// // Walsh averages: 1, 1.5, 2, 2, 2.5, 3 -> median 2.
/// assert_eq!(hl.estimate, 2.0);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn paired_hodges_lehmann(
    differences: &[f64],
    confidence: f64,
) -> Result<PairedShift, StatsError> {
    paired_hodges_lehmann_walsh(differences, confidence).map(|(shift, _, _)| shift)
}

/// [`paired_hodges_lehmann`] with the Walsh averages it read the estimate and interval
/// from (in no particular order) and the interval's rank `k`: the ends are the `k`-th
/// smallest and the `k`-th largest of them.
pub(crate) fn paired_hodges_lehmann_walsh(
    differences: &[f64],
    confidence: f64,
) -> Result<(PairedShift, Vec<f64>, usize), StatsError> {
    if differences.is_empty() {
        return Err(StatsError::TooFewSamples {
            what: "paired hodges-lehmann differences",
            needed: 1,
            got: 0,
        });
    }
    check_finite(differences, "paired difference")?;
    check_confidence(confidence)?;
    let d = stride_subsample(differences, PAIRED_HL_MAX_DIFFERENCES);
    let n = d.len();
    let mut walsh = Vec::with_capacity(n * (n + 1) / 2);
    for i in 0..n {
        for j in i..n {
            // Halves first: never overflows, identical to (a + b) / 2 otherwise.
            walsh.push(d[i] / 2.0 + d[j] / 2.0);
        }
    }
    let m = walsh.len();
    let estimate = median_in_place(&mut walsh);
    let alpha = 1.0 - confidence;
    let abs: Vec<f64> = d.iter().map(|x| x.abs()).collect();
    let ranks = mid_ranks(&abs);
    let clean = !ranks.has_ties() && d.iter().all(|&x| x != 0.0);
    let (k, achieved, method) = if clean && n <= WILCOXON_AUTO_EXACT_MAX {
        let pmf = signed_rank_pmf(n);
        // Smallest k with P(T+ <= k) >= alpha / 2; coverage 1 - 2 P(T+ <= k - 1).
        let mut cum = 0.0;
        let mut k = 0;
        while k < pmf.len() {
            if cum + pmf[k] >= alpha / 2.0 {
                break;
            }
            cum += pmf[k];
            k += 1;
        }
        let k = k.max(1);
        let below: f64 = pmf[..k].iter().sum();
        (k, 1.0 - 2.0 * below, WilcoxonMethod::Exact)
    } else {
        let nf = n as f64;
        let sigma = ((nf * (nf + 1.0) * (2.0 * nf + 1.0) - ranks.tie_term / 2.0) / 24.0).sqrt();
        let z = -normal_ppf(alpha / 2.0).unwrap_or(0.0);
        let raw = (m as f64 / 2.0 - z * sigma).floor();
        let k = if raw >= 1.0 { raw as usize } else { 1 };
        let k = k.min(m.div_ceil(2));
        let achieved = if sigma > 0.0 {
            1.0 - 2.0 * normal_cdf((k as f64 - 0.5 - m as f64 / 2.0) / sigma)
        } else {
            confidence
        };
        (k, achieved.clamp(0.0, 1.0), WilcoxonMethod::Asymptotic)
    };
    let ci_low = kth_smallest(&mut walsh, k - 1);
    let ci_high = kth_smallest(&mut walsh, m - k);
    let shift = PairedShift {
        estimate,
        ci_low,
        ci_high,
        confidence,
        achieved_confidence: achieved,
        method,
        n_used: n,
    };
    Ok((shift, walsh, k))
}

/// The paired form of [`paired_hodges_lehmann`]: the estimate of the differences
/// `candidate[i] - baseline[i]`.
///
/// Time: as [`paired_hodges_lehmann`].
///
/// # Errors
/// [`StatsError::LengthMismatch`] when the two sides differ in length; otherwise as
/// [`paired_hodges_lehmann`] ([`StatsError::NonFinite`] also when a difference
/// overflows).
///
/// # Examples
/// ```
/// let hl = bench_stats::rank::paired_hodges_lehmann_pairs(&[5.0, 5.0, 5.0], &[6.0, 7.0, 8.0], 0.95)?;
/// assert_eq!(hl.estimate, 2.0);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn paired_hodges_lehmann_pairs(
    baseline: &[f64],
    candidate: &[f64],
    confidence: f64,
) -> Result<PairedShift, StatsError> {
    paired_hodges_lehmann(&paired_differences(baseline, candidate)?, confidence)
}

pub(crate) fn check_confidence(confidence: f64) -> Result<(), StatsError> {
    if confidence > 0.0 && confidence < 1.0 {
        Ok(())
    } else {
        Err(StatsError::InvalidParameter {
            name: "confidence",
            value: confidence,
            reason: "must lie strictly between 0 and 1",
        })
    }
}

/// At most `cap` values taken at evenly spaced positions `floor(i len / cap)`, in order.
pub(crate) fn stride_subsample(values: &[f64], cap: usize) -> Vec<f64> {
    let len = values.len();
    if len <= cap {
        return values.to_vec();
    }
    (0..cap).map(|i| values[i * len / cap]).collect()
}

/// The `idx`-th smallest (0-based) of a non-empty slice, reordering it. Time: O(len).
pub(crate) fn kth_smallest(values: &mut [f64], idx: usize) -> f64 {
    *values.select_nth_unstable_by(idx, cmp_f64).1
}

/// Median of a non-empty slice (mean of the two middle values for even length),
/// reordering it. Time: O(len) expected.
pub(crate) fn median_in_place(values: &mut [f64]) -> f64 {
    let len = values.len();
    let hi = kth_smallest(values, len / 2);
    if len % 2 == 1 {
        hi
    } else {
        // After the selection every value left of len/2 is <= hi.
        let lo = values[..len / 2]
            .iter()
            .copied()
            .max_by(cmp_f64)
            .unwrap_or(hi);
        lo / 2.0 + hi / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pmf_sums_to_one_and_is_symmetric() {
        for n in [1, 2, 5, 20, 50] {
            let p = signed_rank_pmf(n);
            let s: f64 = p.iter().sum();
            assert!((s - 1.0).abs() < 1e-14);
            for t in 0..p.len() {
                assert_eq!(p[t], p[p.len() - 1 - t]);
            }
        }
        assert_eq!(
            signed_rank_pmf(3),
            vec![0.125, 0.125, 0.125, 0.25, 0.125, 0.125, 0.125]
        );
    }

    #[test]
    fn all_zero_differences_are_typed() {
        assert!(matches!(
            wilcoxon_signed_rank(&[0.0, 0.0]),
            Err(StatsError::AllTied { .. })
        ));
    }

    #[test]
    fn exact_interval_has_at_least_the_requested_coverage() {
        let d: Vec<f64> = (1..=20).map(|i| f64::from(i) * 0.37 - 2.0).collect();
        let hl = paired_hodges_lehmann(&d, 0.95).unwrap();
        assert_eq!(hl.method, WilcoxonMethod::Exact);
        assert!(hl.achieved_confidence >= 0.95);
        assert!(hl.ci_low <= hl.estimate && hl.estimate <= hl.ci_high);
    }
}
