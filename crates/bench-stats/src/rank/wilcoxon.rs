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
//! The confidence interval of the Hodges-Lehmann estimate is the inversion of the
//! signed-rank test (Hollander & Wolfe, *Nonparametric Statistical Methods*, §3.2; R's
//! `wilcox.test(conf.int = TRUE)` builds it the same way): with the `M = n(n+1)/2` Walsh
//! averages `W` sorted, the interval is `[W_(k), W_(M+1-k)]`. A shift `theta` is rejected
//! when `T(theta)`, the count of Walsh averages beyond it, is at least `u`, the smallest
//! count with `2 P(T >= u) < alpha`; so `k = M + 1 - u`. The reference distribution of
//! `T` is the exact one of `n` distinct values when the differences are distinct and
//! `n <= 50`, else the normal one with the tie correction of the groups of equal
//! differences. The same `P(T >= u)` gives the p-value of no change, so the two cannot
//! disagree at a boundary (an earlier `k = floor(M/2 - z sigma)` against the test's
//! `|T - M/2| > z sigma` left a p of 0.0499 beside an interval that touched 0).
//!
//! # Zeros and ties
//!
//! Quantized metrics (memory in KiB, counters, millisecond CSVs) give differences of
//! exactly zero, and often equal ones. [`signed_rank_no_change`] and
//! [`paired_hodges_lehmann`] treat them alike, with this convention:
//!
//! - **Zeros are not evidence of a direction.** The test of no change is *conditional on
//!   the informative differences*: zeros are dropped and the signed-rank test is run on
//!   the rest, exact, permutation or normal by the informative count
//!   ([`NoChangeTest::conditional_p`], SciPy's `zero_method='wilcox'`). Five informative
//!   blocks of 39 give at best `p = 2/2^5 = 0.0625`, whatever the other 34 say.
//! - **Zeros are values of the shift.** For any shift other than 0 a zero difference is an
//!   ordinary value, so the interval is built from every difference, zeros included; at 0
//!   a Walsh average of exactly zero counts *against* the change in both directions (the
//!   conservative reading of a tie), which gives the interval's own p of no change
//!   ([`NoChangeTest::interval_p`]).
//! - **No change is rejected only when both reject it**: `p = max(conditional, interval)`,
//!   and the interval is widened to reach 0 whenever `p >= alpha`. So "p < alpha" and "the
//!   `1 - alpha` interval excludes 0" agree for every dataset, by construction. Without
//!   zeros or ties the two p-values are one and the same signed-rank p.

use crate::StatsError;
use crate::rank::mann_whitney::Alternative;
use crate::rank::ranks::{cmp_f64, mid_ranks, signed_rank_sum};
use crate::special::{normal_cdf, normal_sf};

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
    let ranks = signed_rank_sum(differences);
    let n = ranks.n;
    let zeros = differences.len() - n;
    if n == 0 {
        return Err(StatsError::AllTied {
            what: "wilcoxon (all differences are zero)",
        });
    }
    let t_plus = ranks.t_plus;
    let nf = n as f64;
    let total = nf * (nf + 1.0) / 2.0;
    let t_minus = total - t_plus;
    let clean = ranks.largest_tie <= 1 && zeros == 0;
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
        let nonzero: Vec<f64> = differences.iter().copied().filter(|&d| d != 0.0).collect();
        let abs: Vec<f64> = nonzero.iter().map(|d| d.abs()).collect();
        (
            permutation_p(&nonzero, &mid_ranks(&abs).ranks, t_plus, config.alternative),
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

/// The p of "no change" that goes with the paired Hodges-Lehmann interval
/// ([`signed_rank_no_change`]): the interval at `1 - alpha` excludes no change exactly
/// when `p_value < alpha`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct NoChangeTest {
    /// The larger of [`NoChangeTest::conditional_p`] and [`NoChangeTest::interval_p`]:
    /// no change is rejected only when both reject it.
    pub p_value: f64,
    /// The signed-rank p of the informative (non-zero) differences alone, zeros dropped
    /// ([`wilcoxon_signed_rank`], SciPy's `zero_method='wilcox'`; exact, permutation or
    /// normal by the informative count). 1 when every difference is zero.
    pub conditional_p: f64,
    /// The p dual to the interval of every difference, zeros included: from the counts of
    /// Walsh averages above and below zero (a Walsh average of exactly zero counts against
    /// the change in both directions), under the reference distribution the interval's
    /// critical value comes from.
    pub interval_p: f64,
    /// Differences that are not exactly zero.
    pub informative: usize,
    /// Differences that are exactly zero.
    pub zeros: usize,
    /// Differences used (after subsampling to [`PAIRED_HL_MAX_DIFFERENCES`]).
    pub n_used: usize,
}

/// The two-sided signed-rank test of "no change" that the paired Hodges-Lehmann interval
/// ([`paired_hodges_lehmann`]) inverts, with zero differences treated as the interval
/// treats them (see the module docs, *Zeros and ties*): `p_value` is below `alpha`
/// exactly when the `1 - alpha` interval excludes 0.
///
/// With no zero and no tied difference this is the signed-rank test itself (the same p as
/// [`wilcoxon_signed_rank`], and SciPy's). More than [`PAIRED_HL_MAX_DIFFERENCES`]
/// differences are stride-subsampled first, as the interval does.
///
/// Time: O(n^2) for the Walsh-average counts (n at most 2048), plus the branch of
/// [`wilcoxon_signed_rank`] on the informative differences.
///
/// # Errors
/// [`StatsError::TooFewSamples`] for an empty slice; [`StatsError::NonFinite`] for a NaN
/// or infinite difference; [`StatsError::AllTied`] when every difference is zero.
///
/// # Examples
/// ```
/// // 39 blocks, 34 of them exactly unchanged, 5 slower: only 5 blocks inform the test,
/// // and 5 can never reach 0.05 (the exact conditional p is 2 / 2^5).
/// let mut d = vec![0.0; 34];
/// d.extend([0.01, 0.02, 0.03, 0.04, 0.05]);
/// let t = bench_stats::rank::signed_rank_no_change(&d)?;
/// assert_eq!((t.informative, t.zeros), (5, 34));
/// assert_eq!(t.conditional_p, 0.0625);
/// assert!(t.p_value >= 0.0625);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn signed_rank_no_change(differences: &[f64]) -> Result<NoChangeTest, StatsError> {
    if differences.is_empty() {
        return Err(StatsError::TooFewSamples {
            what: "signed-rank differences",
            needed: 1,
            got: 0,
        });
    }
    check_finite(differences, "paired difference")?;
    let d = stride_subsample(differences, PAIRED_HL_MAX_DIFFERENCES);
    if d.iter().all(|&x| x == 0.0) {
        return Err(StatsError::AllTied {
            what: "signed-rank test (all differences are zero)",
        });
    }
    Ok(no_change(&d, &Reference::of(&d)))
}

/// [`signed_rank_no_change`] on the (already subsampled) differences `d`, with the
/// interval's reference distribution.
fn no_change(d: &[f64], reference: &Reference) -> NoChangeTest {
    let nonzero: Vec<f64> = d.iter().copied().filter(|&x| x != 0.0).collect();
    let conditional_p = if nonzero.is_empty() {
        1.0
    } else {
        wilcoxon_signed_rank(&nonzero).map_or(1.0, |w| w.p_value)
    };
    let (above, below) = walsh_signs(d);
    let interval_p = (2.0 * reference.upper(above).min(reference.upper(below))).min(1.0);
    NoChangeTest {
        p_value: conditional_p.max(interval_p),
        conditional_p,
        interval_p,
        informative: nonzero.len(),
        zeros: d.len() - nonzero.len(),
        n_used: d.len(),
    }
}

/// The Walsh average `(a + b) / 2` as every function here computes it: halves first, so it
/// never overflows; its sign is the sign of `a + b`.
fn walsh(a: f64, b: f64) -> f64 {
    a / 2.0 + b / 2.0
}

/// How many Walsh averages `(d_i + d_j) / 2`, `i <= j`, lie strictly above and strictly
/// below 0. Time: O(n^2).
fn walsh_signs(d: &[f64]) -> (usize, usize) {
    let (mut above, mut below) = (0, 0);
    for i in 0..d.len() {
        for &b in &d[i..] {
            let w = walsh(d[i], b);
            above += usize::from(w > 0.0);
            below += usize::from(w < 0.0);
        }
    }
    (above, below)
}

/// The null distribution of the count of Walsh averages above a shift `theta` (the
/// signed-rank statistic of `d - theta`) for a shift that meets no difference: exact
/// when the `n` differences are distinct and `n <= 50`, else the normal approximation
/// with the tie correction of the groups of equal differences (which stay tied at every
/// shift). One distribution for every shift, so the interval is an interval and its
/// test at 0 is the test of no change.
enum Reference {
    /// The exact mass `P(T = t)`, `t` in `0..=M`.
    Exact(Vec<f64>),
    /// Mean `M / 2` and the tie-corrected standard deviation.
    Normal { mean: f64, sigma: f64 },
}

impl Reference {
    fn of(d: &[f64]) -> Reference {
        let n = d.len();
        let ties = mid_ranks(d);
        if !ties.has_ties() && n <= WILCOXON_AUTO_EXACT_MAX {
            return Reference::Exact(signed_rank_pmf(n));
        }
        let nf = n as f64;
        let var = (nf * (nf + 1.0) * (2.0 * nf + 1.0) - ties.tie_term / 2.0) / 24.0;
        Reference::Normal {
            mean: nf * (nf + 1.0) / 4.0,
            sigma: var.max(0.0).sqrt(),
        }
    }

    /// `P(T >= s)`, non-increasing in `s`.
    fn upper(&self, s: usize) -> f64 {
        match self {
            // Summed from `s` up, as the exact test sums its upper tail.
            Reference::Exact(pmf) => pmf.get(s..).map_or(0.0, |tail| tail.iter().sum()),
            Reference::Normal { mean, sigma } if *sigma > 0.0 => {
                normal_sf((s as f64 - mean) / sigma)
            }
            Reference::Normal { mean, .. } => f64::from(u8::from(s as f64 <= *mean)),
        }
    }

    fn method(&self) -> WilcoxonMethod {
        match self {
            Reference::Exact(_) => WilcoxonMethod::Exact,
            Reference::Normal { .. } => WilcoxonMethod::Asymptotic,
        }
    }

    /// The smallest count `u` in `0..=m` with `2 P(T >= u) < alpha` (the same arithmetic
    /// as the p-value), `None` when even `u = m` does not reach it. Binary search: the
    /// predicate is monotone.
    fn critical(&self, m: usize, alpha: f64) -> Option<usize> {
        let rejects = |s: usize| 2.0 * self.upper(s) < alpha;
        if !rejects(m) {
            return None;
        }
        let (mut lo, mut hi) = (0, m); // rejects(hi) holds
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if rejects(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Some(lo)
    }
}

/// Hodges-Lehmann estimate of a paired shift with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct PairedShift {
    /// Median of the Walsh averages `(d_i + d_j) / 2`, `i <= j`.
    pub estimate: f64,
    /// Lower end of the interval: `W_(k)`, or 0 when the interval is widened to reach no
    /// change.
    pub ci_low: f64,
    /// Upper end of the interval: `W_(M+1-k)`, or 0 when widened.
    pub ci_high: f64,
    /// The requested confidence level.
    pub confidence: f64,
    /// The coverage of `[W_(k), W_(M+1-k)]` under the reference distribution: exact when
    /// [`PairedShift::method`] is exact (at least the requested level unless `n` is too
    /// small for any interval to reach it), approximate otherwise. Widening to reach no
    /// change only adds coverage.
    pub achieved_confidence: f64,
    /// How `k` was chosen.
    pub method: WilcoxonMethod,
    /// Number of differences used (after subsampling to
    /// [`PAIRED_HL_MAX_DIFFERENCES`]).
    pub n_used: usize,
    /// The test of no change this interval goes with ([`signed_rank_no_change`]): the
    /// interval excludes 0 exactly when `no_change.p_value < 1 - confidence`. `None` when
    /// every difference is zero (the interval is then `[0, 0]`).
    pub no_change: Option<NoChangeTest>,
}

/// Paired Hodges-Lehmann estimate: the median of all Walsh averages of `differences`
/// (zeros included), with the signed-rank confidence interval described in the module
/// docs, and the test of no change that agrees with it ([`PairedShift::no_change`]).
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
/// // Three differences cannot reach 95%: the widest interval, widened to no change.
/// assert_eq!((hl.ci_low, hl.ci_high), (0.0, 3.0));
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn paired_hodges_lehmann(
    differences: &[f64],
    confidence: f64,
) -> Result<PairedShift, StatsError> {
    check_confidence(confidence)?;
    paired_hodges_lehmann_walsh(differences, confidence, 1.0 - confidence)
        .map(|(shift, _, _)| shift)
}

/// [`paired_hodges_lehmann`] with the level's `alpha` given as well (`1 - confidence`
/// up to rounding), so that a caller comparing a p with that very `alpha` gets an
/// interval that agrees with it bit for bit; and with the Walsh averages it read the
/// estimate and interval from (in no particular order) and the interval's rank `k`: the
/// ends are the `k`-th smallest and the `k`-th largest of them (`None` when the interval
/// was widened to reach 0, so that an end is not one of them).
pub(crate) fn paired_hodges_lehmann_walsh(
    differences: &[f64],
    confidence: f64,
    alpha: f64,
) -> Result<(PairedShift, Vec<f64>, Option<usize>), StatsError> {
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
    let mut walsh_all = Vec::with_capacity(n * (n + 1) / 2);
    for i in 0..n {
        for &b in &d[i..] {
            walsh_all.push(walsh(d[i], b));
        }
    }
    let m = walsh_all.len();
    let estimate = median_in_place(&mut walsh_all);
    let reference = Reference::of(&d);
    // Reject a shift when the count of Walsh averages beyond it is at least `u`:
    // the interval is [W_(M+1-u), W_(u)], i.e. k = M + 1 - u. When no count can reject,
    // the widest interval (k = 1), whose coverage is then below the level.
    let u = reference.critical(m, alpha);
    let k = u.map_or(1, |u| m + 1 - u);
    let achieved = (1.0 - 2.0 * reference.upper(m + 1 - k)).clamp(0.0, 1.0);
    // The median's selection left `walsh_all` split at `m / 2`: each end is selected in
    // its own side only (half the work of two more selections over all `M`).
    let mut ci_low = kth_smallest_split(&mut walsh_all, m / 2, k - 1);
    let mut ci_high = kth_smallest_split(&mut walsh_all, m / 2, m - k);
    let no_change = d
        .iter()
        .any(|&x| x != 0.0)
        .then(|| no_change(&d, &reference));
    // No change is in the confidence set unless both the conditional test and the
    // interval's own count reject it: widen the interval to reach it.
    let mut rank = Some(k);
    if no_change.is_none_or(|t| t.p_value >= alpha) && (ci_low > 0.0 || ci_high < 0.0) {
        ci_low = ci_low.min(0.0);
        ci_high = ci_high.max(0.0);
        rank = None;
    }
    let shift = PairedShift {
        estimate,
        ci_low,
        ci_high,
        confidence,
        achieved_confidence: achieved,
        method: reference.method(),
        n_used: n,
        no_change,
    };
    Ok((shift, walsh_all, rank))
}

/// The Hodges-Lehmann estimate alone (the median of the Walsh averages, subsampled as
/// [`paired_hodges_lehmann`] does), for resampling loops that need no interval. `None`
/// for an empty slice or a non-finite difference. Time: O(M) expected.
pub(crate) fn paired_hl_estimate(differences: &[f64]) -> Option<f64> {
    if differences.is_empty() || differences.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let d = stride_subsample(differences, PAIRED_HL_MAX_DIFFERENCES);
    let mut walsh_all = Vec::with_capacity(d.len() * (d.len() + 1) / 2);
    for i in 0..d.len() {
        for &b in &d[i..] {
            walsh_all.push(walsh(d[i], b));
        }
    }
    Some(median_in_place(&mut walsh_all))
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

/// [`kth_smallest`] of `values` already split at `pivot` (no value before it above it, none
/// after it below it, as [`median_in_place`] leaves them), selecting in one side only;
/// the split stays. Time: O(len) expected, over the side that holds `idx`.
fn kth_smallest_split(values: &mut [f64], pivot: usize, idx: usize) -> f64 {
    match idx.cmp(&pivot) {
        std::cmp::Ordering::Less => kth_smallest(&mut values[..pivot], idx),
        std::cmp::Ordering::Equal => values[pivot],
        std::cmp::Ordering::Greater => kth_smallest(&mut values[pivot + 1..], idx - pivot - 1),
    }
}

/// Median of a non-empty slice (mean of the two middle values for even length),
/// reordering it. Time: O(len) expected. Kept beside
/// [`crate::descriptive::median_of`] on purpose: it selects in place over the n(n+1)/2
/// Walsh averages, which the shared median would copy first.
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

    /// More than 50 blocks: the normal branch. The old bound, `k = floor(M/2 - z sigma)`,
    /// left an interval touching 0 beside a p just under 0.05; the bound now comes from
    /// the test's own tail, and the two agree at every shift of a fine grid (some of which
    /// the old bound got wrong).
    #[test]
    fn normal_branch_bound_agrees_with_the_test_at_the_boundary() {
        let mut state = 12345_u64;
        let noise: Vec<f64> = (0..60)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 11) as f64 / (1_u64 << 53) as f64 - 0.5
            })
            .collect();
        let (mut near, mut old_wrong) = (0, 0);
        for step in 0..2000 {
            let d: Vec<f64> = noise.iter().map(|x| x + f64::from(step) * 0.0001).collect();
            let hl = paired_hodges_lehmann(&d, 0.95).unwrap();
            assert_eq!(hl.method, WilcoxonMethod::Asymptotic);
            let p = signed_rank_no_change(&d).unwrap().p_value;
            let excludes = hl.ci_low > 0.0 || hl.ci_high < 0.0;
            assert_eq!(p < 1.0 - 0.95, excludes, "step {step}: p {p}, {hl:?}");
            if (0.04..0.06).contains(&p) {
                near += 1;
                let mut w: Vec<f64> = Vec::new();
                for i in 0..d.len() {
                    for j in i..d.len() {
                        w.push(walsh(d[i], d[j]));
                    }
                }
                w.sort_by(f64::total_cmp);
                let (m, nf) = (w.len() as f64, d.len() as f64);
                let sigma = (nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0).sqrt();
                let k = (m / 2.0 - 1.959_963_984_540_054 * sigma).floor() as usize;
                old_wrong += usize::from((w[k - 1] > 0.0) != excludes);
            }
        }
        eprintln!("{near} shifts with p in [0.04, 0.06); the old bound disagreed at {old_wrong}");
        assert!(near >= 5, "{near} shifts near the boundary");
        assert!(old_wrong >= 1, "the grid reaches the old off-by-one");
    }

    /// A block pair `+a, -a` gives a Walsh average of exactly zero: it counts against the
    /// change, in the interval and in its p alike.
    #[test]
    fn exact_zero_walsh_averages_count_against_the_change() {
        let d = [-1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
        for confidence in [0.9, 0.95, 0.98] {
            let hl = paired_hodges_lehmann(&d, confidence).unwrap();
            let t = hl.no_change.unwrap();
            assert_eq!(
                t.p_value < 1.0 - confidence,
                hl.ci_low > 0.0,
                "{confidence}"
            );
        }
        let t = signed_rank_no_change(&d).unwrap();
        assert_eq!(walsh_signs(&d), (34, 1));
        assert!(t.interval_p >= t.conditional_p);
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
