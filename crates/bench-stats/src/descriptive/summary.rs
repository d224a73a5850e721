//! Descriptive statistics of one sample: location, spread, percentiles and Tukey outliers.
//!
//! Percentiles use linear interpolation between order statistics, Hyndman & Fan (1996)
//! definition 7, which is NumPy's default `np.percentile(x, q, method="linear")`: for a
//! sorted sample `x[0..n]` and a level `q` in `[0, 1]`, `h = (n - 1) q` and the result is
//! `x[floor(h)] + (h - floor(h)) (x[floor(h) + 1] - x[floor(h)])`.
//!
//! Outliers follow Tukey's fences (Tukey 1977, *Exploratory Data Analysis*) on the
//! quartiles above: mild beyond 1.5 IQR, severe beyond 3 IQR. They are counted and
//! reported, never removed; every other statistic uses every value.

use std::fmt;

use crate::model::report::{BenchmarkSummary, OutlierCounts};
use crate::{Sample, StatsError};

/// Smallest sample size for which a p99 is reported. Below it the 99th percentile is
/// essentially the maximum, a noisy statistic in its own right.
pub const P99_MIN_SAMPLES: usize = 100;

/// Why a p99 was not reported: the sample is too small for a tail estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct P99Withheld {
    /// Values in the sample.
    pub n: usize,
    /// Values a p99 needs ([`P99_MIN_SAMPLES`]).
    pub needed: usize,
}

impl fmt::Display for P99Withheld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "p99 withheld: {} values, a tail estimate needs at least {}; with fewer the 99th \
             percentile is little more than the maximum",
            self.n, self.needed
        )
    }
}

impl std::error::Error for P99Withheld {}

/// Tukey fences computed from the quartiles.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct TukeyFences {
    /// First quartile (25th percentile, linear interpolation).
    pub q1: f64,
    /// Third quartile (75th percentile).
    pub q3: f64,
    /// `q1 - 3 IQR`: values below are low severe outliers.
    pub low_severe: f64,
    /// `q1 - 1.5 IQR`: values below are (at least) low mild outliers.
    pub low_mild: f64,
    /// `q3 + 1.5 IQR`: values above are (at least) high mild outliers.
    pub high_mild: f64,
    /// `q3 + 3 IQR`: values above are high severe outliers.
    pub high_severe: f64,
}

impl TukeyFences {
    /// Counts the values of `sorted` outside each fence. A value exactly on a fence is
    /// inside. Time: O(n).
    fn classify(&self, values: &[f64]) -> OutlierCounts {
        let mut c = OutlierCounts::default();
        for &v in values {
            if v < self.low_severe {
                c.low_severe += 1;
            } else if v < self.low_mild {
                c.low_mild += 1;
            } else if v > self.high_severe {
                c.high_severe += 1;
            } else if v > self.high_mild {
                c.high_mild += 1;
            }
        }
        c
    }
}

/// Descriptive statistics of one sample. Build it with [`summarize`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Summary {
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median (the 50th percentile).
    pub median: f64,
    /// Sample standard deviation with the n - 1 divisor; `None` when n < 2.
    pub stddev: Option<f64>,
    /// Median absolute deviation from the median, unscaled (multiply by 1.4826 for a
    /// normal-consistent sd).
    pub mad: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// 50th percentile (equal to `median`).
    pub p50: f64,
    /// 90th percentile. With a dozen values read it loosely.
    pub p90: f64,
    /// 99th percentile, or why it was withheld (n < [`P99_MIN_SAMPLES`]).
    pub p99: Result<f64, P99Withheld>,
    /// The quartiles and Tukey fences.
    pub fences: TukeyFences,
    /// Values beyond each fence. Reported only; nothing is removed.
    pub outliers: OutlierCounts,
}

impl Summary {
    /// The contract's [`BenchmarkSummary`] for a benchmark called `name` (class unset).
    pub fn to_benchmark_summary(&self, name: &str) -> BenchmarkSummary {
        BenchmarkSummary {
            name: name.to_owned(),
            class: None,
            n: self.n,
            mean: self.mean,
            median: self.median,
            stddev: self.stddev,
            mad: self.mad,
            min: self.min,
            max: self.max,
            p50: self.p50,
            p90: self.p90,
            p99: self.p99.ok(),
            outliers: self.outliers,
            user_mean: None,
            sys_mean: None,
        }
    }
}

/// Computes every descriptive statistic of `sample`.
///
/// Time: O(n log n) (one sort). Never fails: a [`Sample`] is non-empty and finite, and
/// every result is finite (sums that would overflow are formed from scaled terms).
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::descriptive::summarize;
/// let s = summarize(&Sample::new(&[1.0, 2.0, 3.0, 4.0, 100.0])?);
/// assert_eq!(s.median, 3.0);
/// assert_eq!(s.outliers.high_severe, 1);
/// assert!(s.p99.is_err()); // 5 values are far too few for a tail estimate
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn summarize(sample: &Sample) -> Summary {
    let sorted = sample.sorted();
    let n = sorted.len();
    let median = quantile_sorted(&sorted, 0.5);
    let mut deviations: Vec<f64> = sorted.iter().map(|v| (v - median).abs()).collect();
    deviations.sort_by(f64::total_cmp);
    let mad = quantile_sorted(&deviations, 0.5);
    let q1 = quantile_sorted(&sorted, 0.25);
    let q3 = quantile_sorted(&sorted, 0.75);
    let iqr = q3 - q1;
    let fences = TukeyFences {
        q1,
        q3,
        low_severe: q1 - 3.0 * iqr,
        low_mild: q1 - 1.5 * iqr,
        high_mild: q3 + 1.5 * iqr,
        high_severe: q3 + 3.0 * iqr,
    };
    let p99 = if n >= P99_MIN_SAMPLES {
        Ok(quantile_sorted(&sorted, 0.99))
    } else {
        Err(P99Withheld {
            n,
            needed: P99_MIN_SAMPLES,
        })
    };
    Summary {
        n,
        mean: mean(sample.values()),
        median,
        stddev: std_dev(sample.values()),
        mad,
        min: sorted[0],
        max: sorted[n - 1],
        p50: median,
        p90: quantile_sorted(&sorted, 0.9),
        p99,
        outliers: fences.classify(&sorted),
        fences,
    }
}

/// The contract's [`BenchmarkSummary`] of `sample` for a benchmark called `name`:
/// shorthand for `summarize(sample).to_benchmark_summary(name)`. Time: O(n log n).
pub fn benchmark_summary(name: &str, sample: &Sample) -> BenchmarkSummary {
    summarize(sample).to_benchmark_summary(name)
}

/// The `p`-th percentile (`p` in `[0, 100]`) by linear interpolation, NumPy's default
/// (Hyndman & Fan definition 7). Time: O(n log n).
///
/// # Errors
/// [`StatsError::InvalidParameter`] when `p` is outside `[0, 100]` or NaN.
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::descriptive::percentile;
/// let s = Sample::new(&[1.0, 2.0, 3.0, 4.0])?;
/// assert_eq!(percentile(&s, 50.0)?, 2.5);
/// assert_eq!(percentile(&s, 90.0)?, 3.7);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn percentile(sample: &Sample, p: f64) -> Result<f64, StatsError> {
    if !(0.0..=100.0).contains(&p) {
        return Err(StatsError::InvalidParameter {
            name: "percentile",
            value: p,
            reason: "must be within [0, 100]",
        });
    }
    Ok(quantile_sorted(&sample.sorted(), p / 100.0))
}

/// Linear-interpolation quantile of an ascending, non-empty slice at level `q` in `[0, 1]`
/// (NumPy `method="linear"`). Never overflows: if the gap between the two order
/// statistics is not finite the weighted form is used instead.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    debug_assert!(!sorted.is_empty());
    let n = sorted.len();
    if n == 1 {
        return sorted[0];
    }
    let h = (n - 1) as f64 * q.clamp(0.0, 1.0);
    let lo = (h.floor() as usize).min(n - 1);
    let hi = (lo + 1).min(n - 1);
    let t = h - lo as f64;
    let (a, b) = (sorted[lo], sorted[hi]);
    if t == 0.0 || a == b {
        return a;
    }
    let gap = b - a;
    if gap.is_finite() {
        // NumPy's `_lerp`: anchored at the nearer end so the result stays within [a, b].
        if t >= 0.5 {
            b - gap * (1.0 - t)
        } else {
            a + gap * t
        }
    } else {
        a * (1.0 - t) + b * t
    }
}

/// Mean of a non-empty slice of finite values, finite even when the plain sum overflows.
pub(crate) fn mean(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let sum: f64 = values.iter().sum();
    if sum.is_finite() {
        sum / n
    } else {
        values.iter().map(|v| v / n).sum()
    }
}

/// Sample standard deviation (n - 1) of finite values; `None` when n < 2 or when the
/// spread exceeds the `f64` range. Scaled by the largest deviation so squares cannot
/// overflow or underflow.
pub(crate) fn std_dev(values: &[f64]) -> Option<f64> {
    variance_parts(values).map(|(_, sd)| sd)
}

/// `(mean, sd)` with the scaling of [`std_dev`].
pub(crate) fn variance_parts(values: &[f64]) -> Option<(f64, f64)> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let m = mean(values);
    let scale = values.iter().fold(0.0_f64, |acc, v| acc.max((v - m).abs()));
    if !scale.is_finite() {
        return None;
    }
    // Deviations at the rounding level of the mean are numerically zero: values that are
    // equal in exact arithmetic can leave a residue of a few ulps after the division.
    if scale <= 8.0 * f64::EPSILON * m.abs() || scale == 0.0 {
        return Some((m, 0.0));
    }
    let ss: f64 = values.iter().map(|v| ((v - m) / scale).powi(2)).sum();
    let sd = scale * (ss / (n - 1) as f64).sqrt();
    sd.is_finite().then_some((m, sd))
}

/// Median of a non-empty slice (copies and sorts). Time: O(n log n).
/// The distribution-free interval of the median of `sorted` (ascending, non-empty): the
/// order statistics at ranks `n/2 -+ z sqrt(n)/2` (binomial normal approximation).
pub(crate) fn median_interval_sorted(sorted: &[f64], z: f64) -> (f64, f64) {
    let n = sorted.len() as f64;
    let half = z * n.sqrt() / 2.0;
    let lo = (n / 2.0 - half).floor().max(0.0) as usize;
    let hi = ((n / 2.0 + half).ceil() as usize).min(sorted.len() - 1);
    (sorted[lo.min(sorted.len() - 1)], sorted[hi])
}

/// The distribution-free interval of the median of `values` at `confidence`: the order
/// statistics `[x_(k), x_(n+1-k)]` (1-based, ascending) with `k` the largest rank whose
/// binomial tail `P(Binomial(n, 1/2) <= k - 1)` is at most `(1 - confidence) / 2`, so
/// the coverage is at least `confidence` for any continuous distribution (the exact
/// interval SciPy's `quantile_test(...).confidence_interval()` gives; checked against it
/// through `fixtures/scipy/median_ci.json`). `None` when `n` is too small for any
/// interval of that confidence (fewer than 6 values at 95%), when a value is not finite,
/// or `confidence` is outside (0, 1). Time: O(n log n).
///
/// # Examples
///
/// ```
/// use bench_stats::descriptive::median_interval;
///
/// let runs: Vec<f64> = (1..=20).map(f64::from).collect();
/// assert_eq!(median_interval(&runs, 0.95), Some([6.0, 15.0]));
/// assert_eq!(median_interval(&runs[..5], 0.95), None);
/// ```
pub fn median_interval(values: &[f64], confidence: f64) -> Option<[f64; 2]> {
    if !(confidence > 0.0 && confidence < 1.0) || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let n = values.len();
    let tail = (1.0 - confidence) / 2.0;
    // P(B <= i) accumulated from P(B = 0) = 2^-n, in logs so large n does not underflow
    // the terms that matter; `k` counts the ranks whose tail below them stays within.
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    let mut ln_pmf = ln_half_n;
    let mut cdf = 0.0_f64;
    let mut k = 0usize;
    for i in 0..n.div_ceil(2) {
        cdf += ln_pmf.exp();
        // Within a relative 1e-12 of the boundary counts as on it (n = 2m + 1 at 50%).
        if cdf > tail * (1.0 + 1e-12) {
            break;
        }
        k = i + 1;
        ln_pmf += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
    }
    if k == 0 {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some([sorted[k - 1], sorted[n - k]])
}

/// The median of `values` (the mean of the two middle values for an even count, exactly as
/// [`quantile_sorted`] at 0.5 and NumPy's `median`); `None` when empty. The one median of
/// the workspace: use it rather than sorting by hand. Time: O(n) (selection on a copy).
pub fn median_of(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| median(values))
}

/// Median by selection, O(n); the same value as [`quantile_sorted`] at 0.5. `values` must
/// not be empty ([`median_of`] is the public, total form).
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    let n = v.len();
    let mid = n / 2;
    let (left, hi, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
    let hi = *hi;
    if n % 2 == 1 {
        return hi;
    }
    let lo = left.iter().copied().max_by(f64::total_cmp).unwrap_or(hi);
    quantile_sorted(&[lo, hi], 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_numpy_linear() {
        // np.percentile([1, 2, 3, 4], [0, 25, 50, 90, 100]) = [1, 1.75, 2.5, 3.7, 4]
        let v = [1.0, 2.0, 3.0, 4.0];
        let got: Vec<f64> = [0.0, 0.25, 0.5, 0.9, 1.0]
            .iter()
            .map(|&q| quantile_sorted(&v, q))
            .collect();
        let want = [1.0, 1.75, 2.5, 3.7, 4.0];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{g} vs {w}");
        }
    }

    #[test]
    fn extreme_values_stay_finite() {
        let s = Sample::new(&[1e300, -1e300, 1e300, 1.7e308, -1.7e308]).unwrap();
        let sum = summarize(&s);
        assert!(sum.mean.is_finite() && sum.median.is_finite() && sum.mad.is_finite());
        assert!(sum.p90.is_finite());
        let tiny = Sample::new(&[1e-300, 2e-300, 3e-300]).unwrap();
        let sd = std_dev(tiny.values()).unwrap();
        assert!((sd / 1e-300 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn outliers_are_counted_not_removed() {
        let mut v: Vec<f64> = (0..20).map(|i| 100.0 + (i % 5) as f64).collect();
        v.push(50.0); // far below
        v.push(106.5); // mild high: q3 = 103, IQR = 2 -> mild fence 106, severe 109
        let s = summarize(&Sample::new(&v).unwrap());
        assert_eq!(s.n, 22);
        assert_eq!(s.outliers.low_severe, 1);
        assert_eq!(s.outliers.high_mild, 1);
        assert_eq!(s.min, 50.0);
    }
}
