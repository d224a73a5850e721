//! Friedman rank test for blocked data (Friedman 1937), checked against
//! `scipy.stats.friedmanchisquare` (SciPy 1.17).
//!
//! Values are ranked within each of the `n` blocks (mid-ranks for ties); with column
//! rank sums `R_j` over `k` treatments,
//! `chi2 = (12 / (n k (k + 1)) * sum(R_j^2) - 3 n (k + 1)) / C` where
//! `C = 1 - sum(t^3 - t) / (n k (k^2 - 1))` sums the tie groups of every block. The
//! p-value is the chi-square survival function on `k - 1` degrees of freedom.

use crate::StatsError;
use crate::rank::ranks::rank_rows_dyn;
use crate::special::chi2_sf;

/// Result of a Friedman test.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct FriedmanOutcome {
    /// The tie-corrected Friedman chi-square statistic.
    pub statistic: f64,
    /// Degrees of freedom, `k - 1`.
    pub df: u32,
    /// `P(chi2_df >= statistic)`, in `[0, 1]`.
    pub p_value: f64,
    /// Number of blocks `n`.
    pub blocks: usize,
    /// Number of treatments `k`.
    pub treatments: usize,
}

/// Friedman test. `blocks[i][j]` is the value of treatment `j` in block `i`; every block
/// must hold the same `k >= 3` treatments (SciPy's requirement) and there must be at
/// least 2 blocks.
///
/// Time: O(n k^2) for up to 8 treatments (ranked by counting), O(n k log k) beyond.
///
/// # Errors
/// [`StatsError::TooFewSamples`] for fewer than 2 blocks or 3 treatments;
/// [`StatsError::LengthMismatch`] when a block's length differs from the first block's;
/// [`StatsError::NonFinite`] for a NaN or infinite value; [`StatsError::InvalidParameter`]
/// for more than `u32::MAX + 1` treatments; [`StatsError::AllTied`] when every block is
/// entirely tied.
///
/// # Examples
/// ```
/// let blocks = [[1.0, 2.0, 3.0], [1.0, 3.0, 2.0], [1.0, 2.0, 3.0]];
/// let f = bench_stats::rank::friedman(&blocks)?;
/// assert_eq!(f.df, 2);
/// assert!((f.statistic - 4.666_666_666_666_667).abs() < 1e-12);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn friedman<B: AsRef<[f64]>>(blocks: &[B]) -> Result<FriedmanOutcome, StatsError> {
    // The work is not generic, so it runs optimised in a caller built without optimisation.
    friedman_rows(blocks.len(), &|i| blocks[i].as_ref())
}

/// [`friedman`] over `n` blocks given by `row`.
fn friedman_rows<'a>(
    n: usize,
    row: &dyn Fn(usize) -> &'a [f64],
) -> Result<FriedmanOutcome, StatsError> {
    if n < 2 {
        return Err(StatsError::TooFewSamples {
            what: "friedman blocks",
            needed: 2,
            got: n,
        });
    }
    let k = row(0).len();
    if k < 3 {
        return Err(StatsError::TooFewSamples {
            what: "friedman treatments",
            needed: 3,
            got: k,
        });
    }
    let df = u32::try_from(k - 1).map_err(|_| StatsError::InvalidParameter {
        name: "treatments",
        value: k as f64,
        reason: "at most u32::MAX + 1 treatments",
    })?;
    let mut col_sums = vec![0.0; k];
    let mut tie_term = 0.0;
    rank_rows_dyn(n, row, k, "friedman value", &mut |r| {
        for (s, x) in col_sums.iter_mut().zip(&r.ranks) {
            *s += x;
        }
        tie_term += r.tie_term;
    })?;
    let (nf, kf) = (n as f64, k as f64);
    let c = 1.0 - tie_term / (kf * (kf * kf - 1.0) * nf);
    if c <= 0.0 {
        return Err(StatsError::AllTied { what: "friedman" });
    }
    let ss: f64 = col_sums.iter().map(|r| r * r).sum();
    let stat = ((12.0 / (nf * kf * (kf + 1.0)) * ss - 3.0 * nf * (kf + 1.0)) / c).max(0.0);
    Ok(FriedmanOutcome {
        statistic: stat,
        df,
        p_value: chi2_sf(stat, df).unwrap_or(1.0),
        blocks: n,
        treatments: k,
    })
}
