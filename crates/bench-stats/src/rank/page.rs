//! Page's L test for ordered alternatives in blocked data (Page 1963), checked against
//! `scipy.stats.page_trend_test` (SciPy 1.17).
//!
//! The blocked analogue of a rank correlation: values are ranked within each of the `n`
//! blocks (mid-ranks for ties); with `R_j` the rank sum of treatment `j` over the blocks,
//! treatments in their predicted order `j = 1..k`, `L = sum(j R_j)`. Under the null
//! hypothesis (no effect of the treatment, so every order within a block equally likely)
//! `E[L] = n k (k + 1)^2 / 4` and `Var[L] = n k^2 (k + 1) (k^2 - 1) / 144`.
//!
//! The p-value is exact for small untied tables (the per-block distribution of `sum(j
//! pi_j)` over all `k!` permutations, convolved `n` times, as SciPy's `method="exact"`
//! after Odeh 1977), and from the normal approximation of `(L - E[L]) / sd[L]` otherwise
//! (SciPy's `method="asymptotic"`, no tie correction). The exact method is used where
//! SciPy's `method="auto"` would use it (`k <= 8`, `n <= 20`, and `n <= 12` when
//! `k > 3`) and no block holds ties (SciPy ranks tied data but then truncates a
//! fractional `L`; the normal approximation is used instead).
//!
//! SciPy's test is one-sided ("the values rise with `j`"); [`page_trend`] reports both
//! one-sided p-values and the two-sided one, `min(1, 2 min(p_increasing,
//! p_decreasing))`, for a trend of unknown direction.

use crate::StatsError;
use crate::rank::ranks::rank_rows;
use crate::special::normal_sf;

/// How the p-value of Page's L was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PageMethod {
    /// The exact permutation distribution (small untied tables).
    Exact,
    /// The normal approximation.
    Asymptotic,
}

impl PageMethod {
    /// `exact` or `asymptotic`.
    pub fn as_str(self) -> &'static str {
        match self {
            PageMethod::Exact => "exact",
            PageMethod::Asymptotic => "asymptotic",
        }
    }
}

/// Which p-value method [`page_trend_with`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum PageMethodChoice {
    /// Exact where SciPy's `auto` would choose it and there are no ties, else asymptotic.
    #[default]
    Auto,
    /// Always the exact distribution (refused above `k = 8`; ties use the integer part
    /// of `L`, as SciPy does).
    Exact,
    /// Always the normal approximation.
    Asymptotic,
}

/// Result of Page's L test.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct PageOutcome {
    /// Page's L for the order given (treatment `j` predicted to rank `j`-th lowest).
    pub statistic: f64,
    /// The standardized statistic `(L - E[L]) / sd[L]`: positive when the values rise
    /// with the order.
    pub z: f64,
    /// `P(L' >= L)` under the null: small when the values rise with the order.
    pub p_increasing: f64,
    /// `P(L' <= L)` under the null: small when the values fall with the order.
    pub p_decreasing: f64,
    /// `min(1, 2 min(p_increasing, p_decreasing))`.
    pub p_value: f64,
    /// How the p-values were computed.
    pub method: PageMethod,
    /// Number of blocks `n`.
    pub blocks: usize,
    /// Number of treatments `k`.
    pub treatments: usize,
}

/// Largest `k` of the exact distribution (`k!` permutations are enumerated).
pub const PAGE_EXACT_MAX_TREATMENTS: usize = 8;

/// Page's L test with the automatic method choice: see [`page_trend_with`].
///
/// # Errors
/// As [`page_trend_with`].
///
/// # Examples
/// ```
/// // Four blocks where the values rise with the treatment order in every block.
/// let blocks = [[1.0, 2.0, 3.0], [1.5, 2.5, 3.5], [0.9, 2.2, 3.1], [1.0, 2.1, 3.3]];
/// let t = bench_stats::rank::page_trend(&blocks)?;
/// assert_eq!(t.statistic, 56.0); // 4 blocks x (1*1 + 2*2 + 3*3)
/// assert!(t.z > 0.0 && t.p_increasing < 0.01);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn page_trend<B: AsRef<[f64]>>(blocks: &[B]) -> Result<PageOutcome, StatsError> {
    page_trend_with(blocks, PageMethodChoice::Auto)
}

/// Page's L test. `blocks[i][j]` is the value of treatment `j` in block `i`, treatments in
/// their predicted order; every block holds the same `k >= 3` treatments and there are at
/// least 2 blocks (SciPy's requirements).
///
/// Time: O(n k log k) for L; the exact p-value adds O(k! k + n^2 k^6) once.
///
/// # Errors
/// [`StatsError::TooFewSamples`] for fewer than 2 blocks or 3 treatments;
/// [`StatsError::LengthMismatch`] when a block's length differs from the first block's;
/// [`StatsError::NonFinite`] for a NaN or infinite value; [`StatsError::InvalidParameter`]
/// for the exact method with more than [`PAGE_EXACT_MAX_TREATMENTS`] treatments.
pub fn page_trend_with<B: AsRef<[f64]>>(
    blocks: &[B],
    method: PageMethodChoice,
) -> Result<PageOutcome, StatsError> {
    let n = blocks.len();
    if n < 2 {
        return Err(StatsError::TooFewSamples {
            what: "page blocks",
            needed: 2,
            got: n,
        });
    }
    let k = blocks[0].as_ref().len();
    if k < 3 {
        return Err(StatsError::TooFewSamples {
            what: "page treatments",
            needed: 3,
            got: k,
        });
    }
    let mut l = 0.0;
    let mut ties = false;
    rank_rows(blocks, k, "page value", |r| {
        ties |= r.has_ties();
        l += r
            .ranks
            .iter()
            .enumerate()
            .map(|(j, rank)| (j + 1) as f64 * rank)
            .sum::<f64>();
    })?;
    let (nf, kf) = (n as f64, k as f64);
    let mean = nf * kf * (kf + 1.0).powi(2) / 4.0;
    let var = nf * kf * kf * (kf + 1.0) * (kf * kf - 1.0) / 144.0;
    let z = (l - mean) / var.sqrt();
    let method = match method {
        PageMethodChoice::Exact => PageMethod::Exact,
        PageMethodChoice::Asymptotic => PageMethod::Asymptotic,
        PageMethodChoice::Auto => {
            let scipy_exact = k <= PAGE_EXACT_MAX_TREATMENTS && !(n > 12 && k > 3) && n <= 20;
            if scipy_exact && !ties {
                PageMethod::Exact
            } else {
                PageMethod::Asymptotic
            }
        }
    };
    let (p_increasing, p_decreasing) = match method {
        PageMethod::Exact => {
            if k > PAGE_EXACT_MAX_TREATMENTS {
                return Err(StatsError::InvalidParameter {
                    name: "treatments",
                    value: kf,
                    reason: "the exact Page distribution takes at most 8 treatments",
                });
            }
            exact_tails(l.trunc() as u64, n, k)
        }
        PageMethod::Asymptotic => (normal_sf(z), normal_sf(-z)),
    };
    Ok(PageOutcome {
        statistic: l,
        z,
        p_increasing,
        p_decreasing,
        p_value: (2.0 * p_increasing.min(p_decreasing)).min(1.0),
        method,
        blocks: n,
        treatments: k,
    })
}

/// `(P(L >= l), P(L <= l))` under the null for `n` blocks of `k` treatments: the
/// distribution of `sum(j pi_j)` over the `k!` permutations of one block, convolved `n`
/// times (probabilities, so nothing overflows).
fn exact_tails(l: u64, n: usize, k: usize) -> (f64, f64) {
    // One block: L ranges over [lo, hi] with lo = k(k+1)(k+2)/6, hi = k(k+1)(2k+1)/6.
    let lo = (k * (k + 1) * (k + 2) / 6) as u64;
    let hi = (k * (k + 1) * (2 * k + 1) / 6) as u64;
    let width = (hi - lo) as usize + 1;
    let mut one = vec![0.0f64; width];
    let mut perm: Vec<usize> = (1..=k).collect();
    let mut count = 0.0;
    for_each_permutation(&mut perm, &mut |p| {
        let s: usize = p.iter().enumerate().map(|(j, r)| (j + 1) * r).sum();
        one[s - lo as usize] += 1.0;
        count += 1.0;
    });
    for x in &mut one {
        *x /= count;
    }
    let mut dist = one.clone();
    for _ in 1..n {
        let mut next = vec![0.0; dist.len() + width - 1];
        for (i, a) in dist.iter().enumerate() {
            for (j, b) in one.iter().enumerate() {
                next[i + j] += a * b;
            }
        }
        dist = next;
    }
    let base = lo * n as u64;
    let at = |v: u64| -> usize { v.saturating_sub(base) as usize };
    let upper: f64 = if l < base {
        1.0
    } else {
        dist.iter().skip(at(l)).sum()
    };
    let lower: f64 = if l < base {
        0.0
    } else {
        dist.iter().take(at(l) + 1).sum()
    };
    (upper.min(1.0), lower.min(1.0))
}

/// Calls `f` on every permutation of `items` (Heap's algorithm, iterative). Time: O(k! k).
fn for_each_permutation(items: &mut [usize], f: &mut impl FnMut(&[usize])) {
    let k = items.len();
    let mut c = vec![0usize; k];
    f(items);
    let mut i = 0;
    while i < k {
        if c[i] < i {
            if i % 2 == 0 {
                items.swap(0, i);
            } else {
                items.swap(c[i], i);
            }
            f(items);
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_tails_sum_to_one_plus_the_point_mass() {
        for (n, k) in [(2, 3), (3, 4), (5, 5)] {
            let l = (n * k * (k + 1) * (k + 1) / 4) as u64;
            let (up, down) = exact_tails(l, n, k);
            assert!(up + down >= 1.0 - 1e-12, "n={n} k={k}");
            assert!(up <= 1.0 && down <= 1.0);
        }
    }

    #[test]
    fn reversing_the_order_swaps_the_tails() {
        let rising = [
            [1.0, 2.0, 3.0, 4.0],
            [2.0, 1.0, 3.0, 4.0],
            [1.0, 3.0, 2.0, 4.0],
        ];
        let falling: Vec<Vec<f64>> = rising
            .iter()
            .map(|r| r.iter().rev().copied().collect())
            .collect();
        let a = page_trend(&rising).unwrap();
        let b = page_trend(&falling).unwrap();
        assert_eq!(a.method, PageMethod::Exact);
        assert!((a.p_increasing - b.p_decreasing).abs() < 1e-12);
        assert!((a.p_value - b.p_value).abs() < 1e-12);
        assert!(a.z > 0.0 && b.z < 0.0);
    }
}
