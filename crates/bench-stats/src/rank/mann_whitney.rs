//! Mann-Whitney U (Wilcoxon rank-sum) test, checked against
//! `scipy.stats.mannwhitneyu` (SciPy 1.17) with `method='exact'` and
//! `method='asymptotic', use_continuity=True`.
//!
//! Mid-ranks of the pooled values give `R1`, then `U1 = R1 - n1(n1+1)/2`,
//! `U2 = n1 n2 - U1` and the reported `U = min(U1, U2)`.
//!
//! - Exact: when `n1 + n2 <= 20` and no value is tied (or on request up to
//!   [`EXACT_MAX_TOTAL`]), the null distribution of U is the coefficient list of the
//!   Gaussian binomial `[n1 + n2 choose n1]_q` (the number of partitions that fit in an
//!   `n1 x n2` box), built as `prod (1 - q^(n+i)) / (1 - q^i)` in exact integer
//!   arithmetic. Two-sided `p = min(1, 2 P(U >= max(U1, U2)))`.
//! - Asymptotic: `z = (U - n1 n2 / 2 - 0.5) / sigma` with U the statistic of the
//!   alternative (`max(U1, U2)` when two-sided) and the tie-corrected
//!   `sigma^2 = n1 n2 / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1)))`; `p = f * sf(z)` with
//!   `f = 2` for two-sided, clipped to 1. The normal tail comes from Cody's `erfc`, so
//!   p-values far below 1e-100 are meaningful.
//!
//! When every pooled value is equal, SciPy answers `p = 1`; this crate instead returns
//! [`StatsError::AllTied`] (as Kruskal-Wallis and Friedman do), because no ranking
//! information exists to test.
//!
//! Speed: the pooled values are ranked by one sort of integer keys that carry each
//! value's group, then one pass sums the mid-ranks per group, on the calling thread. The timings against SciPy at 10^6 values, with their command
//! (`cargo run --release -p bench-lab -- scipy-timing`), are in docs/performance.md.

use crate::rank::ranks::group_rank_sums;
use crate::special::normal_sf;
use crate::{Sample, StatsError};

/// Largest `n1 + n2` for which [`MannWhitneyMethodChoice::Exact`] is honoured (the
/// counts stay within `i128`). [`MannWhitneyMethodChoice::Auto`] uses exact only up to 20.
pub const EXACT_MAX_TOTAL: usize = 120;

/// Largest `n1 + n2` for which [`MannWhitneyMethodChoice::Auto`] picks the exact test.
pub const AUTO_EXACT_MAX_TOTAL: usize = 20;

/// Which tail(s) a rank test looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Alternative {
    /// The two distributions differ in either direction (the default).
    #[default]
    TwoSided,
    /// The first sample tends to be smaller than the second.
    Less,
    /// The first sample tends to be larger than the second.
    Greater,
}

/// How the p-value of a Mann-Whitney test was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MannWhitneyMethod {
    /// Exact permutation distribution of U.
    Exact,
    /// Tie- and continuity-corrected normal approximation.
    Asymptotic,
}

impl MannWhitneyMethod {
    /// `"exact"` or `"asymptotic"`, as in the analysis JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            MannWhitneyMethod::Exact => "exact",
            MannWhitneyMethod::Asymptotic => "asymptotic",
        }
    }
}

/// Which method the caller asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum MannWhitneyMethodChoice {
    /// Exact when `n1 + n2 <= 20` and there are no ties, asymptotic otherwise (default).
    #[default]
    Auto,
    /// Exact whenever there are no ties and `n1 + n2 <=` [`EXACT_MAX_TOTAL`]; asymptotic
    /// otherwise (the exact distribution is wrong under ties).
    Exact,
    /// Always the normal approximation.
    Asymptotic,
}

/// Options of [`mann_whitney_u_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MannWhitneyConfig {
    /// Tail(s) tested. Default: [`Alternative::TwoSided`].
    pub alternative: Alternative,
    /// Exact or asymptotic. Default: [`MannWhitneyMethodChoice::Auto`].
    pub method: MannWhitneyMethodChoice,
}

/// Result of a Mann-Whitney U test.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct MannWhitneyOutcome {
    /// `min(U1, U2)`, the statistic reported in the analysis JSON.
    pub u: f64,
    /// U of the first sample: the number of pairs `(a, b)` with `a > b`, ties counted 1/2.
    pub u1: f64,
    /// `n1 n2 - U1`.
    pub u2: f64,
    /// p-value for the requested alternative, in `[0, 1]`.
    pub p_value: f64,
    /// Exact or asymptotic.
    pub method: MannWhitneyMethod,
    /// Standardized statistic as SciPy forms it, `(U - n1 n2 / 2 - 0.5) / sigma` with U
    /// the statistic of the alternative (`max(U1, U2)` for two-sided); `None` when exact.
    pub z: Option<f64>,
    /// The alternative tested.
    pub alternative: Alternative,
    /// Size of the first sample.
    pub n1: usize,
    /// Size of the second sample.
    pub n2: usize,
}

/// Two-sided Mann-Whitney U test of `a` against `b` with the automatic method choice.
///
/// Time: O(N log N) for `N = n1 + n2` (exact branch: O(n1^2 n2) with `N <= 20`).
///
/// # Errors
/// [`StatsError::TooFewSamples`] when either sample has fewer than 2 values;
/// [`StatsError::AllTied`] when every pooled value is equal.
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::rank::{mann_whitney_u, MannWhitneyMethod};
/// let a = Sample::new(&[1.0, 2.0, 3.0, 4.0])?;
/// let b = Sample::new(&[5.0, 6.0, 7.0, 8.0])?;
/// let t = mann_whitney_u(&a, &b)?;
/// assert_eq!(t.u, 0.0);
/// assert_eq!(t.method, MannWhitneyMethod::Exact);
/// assert!((t.p_value - 2.0 / 70.0).abs() < 1e-15);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mann_whitney_u(a: &Sample, b: &Sample) -> Result<MannWhitneyOutcome, StatsError> {
    mann_whitney_u_with(a, b, &MannWhitneyConfig::default())
}

/// Mann-Whitney U test with explicit options.
///
/// Time: O(N log N); the exact branch adds O(min(n1, n2)^2 max(n1, n2)).
///
/// # Errors
/// As [`mann_whitney_u`].
pub fn mann_whitney_u_with(
    a: &Sample,
    b: &Sample,
    config: &MannWhitneyConfig,
) -> Result<MannWhitneyOutcome, StatsError> {
    mann_whitney_slices(a.values(), b.values(), config)
}

/// The test on raw finite slices (callers inside the crate guarantee finiteness).
pub(crate) fn mann_whitney_slices(
    a: &[f64],
    b: &[f64],
    config: &MannWhitneyConfig,
) -> Result<MannWhitneyOutcome, StatsError> {
    let (n1, n2) = (a.len(), b.len());
    if n1 < 2 {
        return Err(StatsError::TooFewSamples {
            what: "mann-whitney first sample",
            needed: 2,
            got: n1,
        });
    }
    if n2 < 2 {
        return Err(StatsError::TooFewSamples {
            what: "mann-whitney second sample",
            needed: 2,
            got: n2,
        });
    }
    let ranks = group_rank_sums(&[a, b]);
    let n = n1 + n2;
    if ranks.largest_tie == n {
        return Err(StatsError::AllTied {
            what: "mann-whitney",
        });
    }
    let r1 = ranks.rank_sums[0];
    let (n1f, n2f) = (n1 as f64, n2 as f64);
    let u1 = r1 - n1f * (n1f + 1.0) / 2.0;
    let u2 = n1f * n2f - u1;
    let (u_tail, factor) = match config.alternative {
        Alternative::TwoSided => (u1.max(u2), 2.0),
        Alternative::Greater => (u1, 1.0),
        Alternative::Less => (u2, 1.0),
    };
    let exact = ranks.largest_tie <= 1
        && match config.method {
            MannWhitneyMethodChoice::Auto => n <= AUTO_EXACT_MAX_TOTAL,
            MannWhitneyMethodChoice::Exact => n <= EXACT_MAX_TOTAL,
            MannWhitneyMethodChoice::Asymptotic => false,
        };
    let (p, method, z) = if exact {
        // U is an integer without ties; round away representation noise.
        let p = exact_sf(u_tail.round() as usize, n1, n2) * factor;
        (p, MannWhitneyMethod::Exact, None)
    } else {
        let nf = n as f64;
        let mu = n1f * n2f / 2.0;
        let var = n1f * n2f / 12.0 * ((nf + 1.0) - ranks.tie_term / (nf * (nf - 1.0)));
        // var > 0: not all values are tied and n1, n2 >= 2.
        let z = (u_tail - mu - 0.5) / var.sqrt();
        (
            normal_sf(z) * factor,
            MannWhitneyMethod::Asymptotic,
            Some(z),
        )
    };
    Ok(MannWhitneyOutcome {
        u: u1.min(u2),
        u1,
        u2,
        p_value: p.clamp(0.0, 1.0),
        method,
        z,
        alternative: config.alternative,
        n1,
        n2,
    })
}

/// Frequencies of U for sample sizes `m`, `n` (index = U), as exact integers.
///
/// The generating function is the Gaussian binomial `prod_{i=1..m} (1 - q^(n+i)) /
/// (1 - q^i)`; after each factor the coefficients are those of `[n+i choose i]_q`.
/// Time: O(m^2 n) with `m = min(n1, n2)`.
pub(crate) fn u_frequencies(n1: usize, n2: usize) -> Vec<i128> {
    let (m, n) = if n1 <= n2 { (n1, n2) } else { (n2, n1) };
    let len = m * n + 1;
    let mut c = vec![0_i128; len];
    c[0] = 1;
    for i in 1..=m {
        // Multiply by (1 - q^(n+i)), descending so each old coefficient is used once.
        let shift = n + i;
        let top = i * n; // degree after this factor is i*n, before it (i-1)*n
        for k in (shift..=top.min(len - 1)).rev() {
            c[k] -= c[k - shift];
        }
        // Divide by (1 - q^i): c[k] += c[k - i], ascending.
        for k in i..=top {
            c[k] += c[k - i];
        }
    }
    c
}

/// `P(U >= u)` under the null for sizes `n1`, `n2`, no ties.
fn exact_sf(u: usize, n1: usize, n2: usize) -> f64 {
    let freq = u_frequencies(n1, n2);
    let total: i128 = freq.iter().sum();
    let max_u = n1 * n2;
    if u > max_u {
        return 0.0;
    }
    // Sum the smaller tail directly; by symmetry P(U >= u) = P(U <= n1 n2 - u).
    let lower_end = max_u - u;
    let upper: i128 = if lower_end <= u {
        freq[..=lower_end].iter().sum()
    } else {
        total - freq[..u].iter().sum::<i128>()
    };
    upper as f64 / total as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binom(n: usize, k: usize) -> i128 {
        (0..k).fold(1_i128, |acc, i| acc * (n - i) as i128 / (i + 1) as i128)
    }

    #[test]
    fn frequencies_sum_to_binomial_and_are_symmetric() {
        for (a, b) in [(1, 1), (2, 3), (5, 7), (10, 10), (3, 17), (60, 60)] {
            let f = u_frequencies(a, b);
            assert_eq!(f.iter().sum::<i128>(), binom(a + b, a), "{a},{b}");
            assert!(f.iter().all(|&x| x > 0));
            let rev: Vec<i128> = f.iter().rev().copied().collect();
            assert_eq!(f, rev);
        }
    }

    #[test]
    fn fully_separated_four_by_four() {
        let r = mann_whitney_slices(
            &[1.0, 2.0, 3.0, 4.0],
            &[5.0, 6.0, 7.0, 8.0],
            &MannWhitneyConfig::default(),
        )
        .unwrap();
        assert_eq!((r.u1, r.u2, r.u), (0.0, 16.0, 0.0));
        assert!((r.p_value - 2.0 / 70.0).abs() < 1e-16);
    }

    #[test]
    fn all_tied_is_typed() {
        let e = mann_whitney_slices(&[1.0; 3], &[1.0; 4], &MannWhitneyConfig::default());
        assert!(matches!(e, Err(StatsError::AllTied { .. })));
    }
}
