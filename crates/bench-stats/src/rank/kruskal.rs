//! Kruskal-Wallis H test (Kruskal & Wallis 1952), checked against
//! `scipy.stats.kruskal` (SciPy 1.17).
//!
//! With mid-ranks of all `N` pooled values and rank sums `R_i` over groups of size `n_i`:
//! `H = 12 / (N (N + 1)) * sum(R_i^2 / n_i) - 3 (N + 1)`, divided by the tie correction
//! `C = 1 - sum(t^3 - t) / (N^3 - N)`. The p-value is the chi-square survival function on
//! `k - 1` degrees of freedom (the regularized upper incomplete gamma function).
//!
//! Speed: ranked as [`mann_whitney_u`](crate::rank::mann_whitney_u) ranks, by one sort
//! of keys carrying each value's group; docs/performance.md has the timings against
//! SciPy with their command.

use crate::rank::ranks::group_rank_sums;
use crate::special::chi2_sf;
use crate::{Sample, StatsError};

/// Result of a Kruskal-Wallis test.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct KruskalWallisOutcome {
    /// The tie-corrected H statistic.
    pub h: f64,
    /// Degrees of freedom, `k - 1`.
    pub df: u32,
    /// `P(chi2_df >= H)`, in `[0, 1]`.
    pub p_value: f64,
    /// The tie correction factor `C` that H was divided by (1 without ties).
    pub tie_correction: f64,
    /// Total number of values `N`.
    pub n_total: usize,
}

/// Kruskal-Wallis H test across `groups` (each group a [`Sample`], so never empty).
///
/// Time: O(N log N).
///
/// # Errors
/// "Not tested" outcomes are typed: [`StatsError::TooFewSamples`] for fewer than two
/// groups, [`StatsError::AllTied`] when every value is the same (H would be 0/0).
/// [`StatsError::InvalidParameter`] if there are more than `u32::MAX` groups.
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::rank::kruskal_wallis;
/// let g1 = Sample::new(&[1.0, 2.0, 3.0])?;
/// let g2 = Sample::new(&[4.0, 5.0, 6.0])?;
/// let g3 = Sample::new(&[7.0, 8.0, 9.0])?;
/// let kw = kruskal_wallis(&[&g1, &g2, &g3])?;
/// assert!((kw.h - 7.2).abs() < 1e-12);
/// assert_eq!(kw.df, 2);
/// assert!((kw.p_value - 0.0273237224).abs() < 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn kruskal_wallis(groups: &[&Sample]) -> Result<KruskalWallisOutcome, StatsError> {
    let k = groups.len();
    if k < 2 {
        return Err(StatsError::TooFewSamples {
            what: "kruskal-wallis groups",
            needed: 2,
            got: k,
        });
    }
    let df = u32::try_from(k - 1).map_err(|_| StatsError::InvalidParameter {
        name: "groups",
        value: k as f64,
        reason: "at most u32::MAX + 1 groups",
    })?;
    let slices: Vec<&[f64]> = groups.iter().map(|g| g.values()).collect();
    let ranks = group_rank_sums(&slices);
    let n: usize = slices.iter().map(|g| g.len()).sum();
    if ranks.largest_tie == n {
        return Err(StatsError::AllTied {
            what: "kruskal-wallis",
        });
    }
    let nf = n as f64;
    let sum_sq: f64 = ranks
        .rank_sums
        .iter()
        .zip(&slices)
        .map(|(r, g)| r * r / g.len() as f64)
        .sum();
    let h_raw = 12.0 / (nf * (nf + 1.0)) * sum_sq - 3.0 * (nf + 1.0);
    let c = 1.0 - ranks.tie_term / (nf * nf * nf - nf);
    // Rounding can push H a hair below zero when all rank sums are balanced.
    let h = (h_raw / c).max(0.0);
    let p_value = chi2_sf(h, df).unwrap_or(1.0);
    Ok(KruskalWallisOutcome {
        h,
        df,
        p_value,
        tie_correction: c,
        n_total: n,
    })
}
