//! Two-sample Hodges-Lehmann shift (J. L. Hodges & E. L. Lehmann, "Estimates of
//! location based on rank tests", *Annals of Mathematical Statistics* 34 (1963)) with
//! Lehmann's distribution-free confidence interval, on every value of both groups.
//!
//! The estimate is the median of the `mn` pairwise differences `b_j - a_i` (candidate
//! minus baseline; the mean of the two middle differences when `mn` is even). The
//! interval runs from the `k`-th smallest to the `k`-th largest difference, with `k`
//! chosen as R's `wilcox.test(conf.int = TRUE)` does (Hollander & Wolfe, *Nonparametric
//! Statistical Methods*, chapter 4):
//!
//! - Exact (the same choice as [`mann_whitney_u`](crate::rank::mann_whitney_u): no tied
//!   value and `m + n <= 20`, or up to [`EXACT_MAX_TOTAL`] on request): `k - 1` is the
//!   largest `c` with `2 P(U <= c) < alpha` under the exact null distribution of U
//!   (`k = qwilcox(alpha/2, m, n)` in R). Without ties `P(U <= U_obs)` is what the exact
//!   test reports, so the interval excludes 0 exactly when the exact two-sided test
//!   rejects at `alpha = 1 - confidence` (`p < alpha`).
//! - Normal approximation otherwise: `k = floor(mn/2 - z_(1-alpha/2) sigma_U)` with the
//!   tie-corrected Mann-Whitney `sigma_U`.
//!
//! When even the widest interval, from the smallest to the largest difference (`k = 1`),
//! cannot reach the requested confidence (3 against 3 values reach at most
//! `1 - 2/20 = 90%`), there is no interval: [`ShiftEstimate::ci_low`] and
//! [`ShiftEstimate::ci_high`] are `None` and [`ShiftEstimate::max_confidence`] says
//! what the sizes could reach. (R instead returns the min..max interval with a warning.)
//!
//! The order statistics are selected without forming the `mn` differences: both samples
//! are sorted, so the difference matrix `b_j - a_i` is sorted along its rows and columns
//! (its floating-point values too, rounding being monotone), and the number of
//! differences `<= t` is one two-pointer sweep, O(m + n). A selection over that implicit
//! matrix (sampled pivots bracketing the target rank, after Floyd & Rivest 1975 and in
//! the spirit of Johnson & Mizoguchi 1978 and Monahan 1984) narrows per-row windows of
//! candidates until few enough remain to list; the answer is an actual difference, bit
//! for bit the one sorting all `mn` differences would give. `10^5` against `10^5` values
//! (`10^10` differences) take about 65 ms on the shared 2-vCPU machine
//! (`cargo bench -p bench-stats --bench rank_tests -- hodges`).

use crate::rank::mann_whitney::{
    AUTO_EXACT_MAX_TOTAL, EXACT_MAX_TOTAL, MannWhitneyMethod, MannWhitneyMethodChoice,
    u_frequencies,
};
use crate::rank::wilcoxon::check_confidence;
use crate::special::{normal_cdf, normal_ppf};
use crate::{Sample, StatsError};

/// Options of [`hodges_lehmann_with`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShiftConfig {
    /// Confidence level of the interval, strictly between 0 and 1. Default: 0.95.
    pub confidence: f64,
    /// How `k` is chosen, with the rule of
    /// [`mann_whitney_u_with`](crate::rank::mann_whitney_u_with): exact when no value is
    /// tied and `m + n <= 20` ([`MannWhitneyMethodChoice::Auto`], the default) or
    /// `<=` [`EXACT_MAX_TOTAL`] ([`MannWhitneyMethodChoice::Exact`]), else the normal
    /// approximation.
    pub method: MannWhitneyMethodChoice,
}

impl Default for ShiftConfig {
    fn default() -> Self {
        ShiftConfig {
            confidence: 0.95,
            method: MannWhitneyMethodChoice::Auto,
        }
    }
}

impl ShiftConfig {
    /// The default options at another confidence level.
    pub fn with_confidence(confidence: f64) -> Self {
        ShiftConfig {
            confidence,
            ..ShiftConfig::default()
        }
    }
}

/// Hodges-Lehmann location shift of a candidate against a baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ShiftEstimate {
    /// Median of `b_j - a_i`; positive when the candidate's values are larger.
    pub shift: f64,
    /// `k`-th smallest pairwise difference; `None` when no interval reaches
    /// [`ShiftEstimate::confidence`] (see [`ShiftEstimate::max_confidence`]).
    pub ci_low: Option<f64>,
    /// `k`-th largest pairwise difference; `None` exactly when `ci_low` is.
    pub ci_high: Option<f64>,
    /// The requested confidence level.
    pub confidence: f64,
    /// Coverage of the interval: exact under the null distribution of U when
    /// [`ShiftEstimate::method`] is exact (at least `confidence`), from the normal
    /// approximation `2 Phi((mn/2 - k) / sigma_U) - 1` otherwise. `None` without interval.
    pub achieved_confidence: Option<f64>,
    /// The highest confidence any interval can reach with these sample sizes (and ties):
    /// the coverage of the smallest-to-largest difference interval (`k = 1`), e.g.
    /// `1 - 2/20 = 0.9` for 3 against 3 values. When it is not above `confidence` there is
    /// no interval (an exact interval covers strictly more than `confidence`, as the exact
    /// test rejects only when `p < alpha`).
    pub max_confidence: f64,
    /// The order statistic `k` (1-based) that bounds the interval; `None` without one.
    pub k: Option<usize>,
    /// How `k` was chosen.
    pub method: MannWhitneyMethod,
    /// Baseline values used (all of them).
    pub n_baseline: usize,
    /// Candidate values used (all of them).
    pub n_candidate: usize,
}

/// Hodges-Lehmann shift of `candidate` (b) against `baseline` (a) with a Lehmann
/// interval at `confidence` (e.g. 0.95), choosing exact or normal `k` as
/// [`mann_whitney_u`](crate::rank::mann_whitney_u) chooses its method.
///
/// Time: O((m + n) log(m + n)) to sort, then O(m + n) per counting sweep, with a few
/// sampled rounds of three sweeps per order statistic (expected O((m + n) log(mn))
/// overall); the exact branch adds O(min(m, n)^2 max(m, n)) with `m + n <= 20`.
/// Memory: O(m + n).
///
/// # Errors
/// [`StatsError::InvalidParameter`] when `confidence` is not strictly between 0 and 1;
/// [`StatsError::NonFinite`] when the shift or a bound overflows `f64` (values near
/// `f64::MAX` of opposite signs).
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::rank::hodges_lehmann;
/// let a = Sample::new(&[10.0, 11.0, 12.0, 13.0, 14.0])?;
/// let b = Sample::new(&[12.5, 13.5, 14.5, 15.5, 16.5])?;
/// let s = hodges_lehmann(&a, &b, 0.95)?;
/// assert_eq!(s.shift, 2.5);
/// // Exact k = 3 (R: qwilcox(0.025, 5, 5)); coverage 1 - 2 * 4/252.
/// assert_eq!((s.ci_low, s.ci_high, s.k), (Some(-0.5), Some(5.5), Some(3)));
///
/// // 3 against 3 values cannot reach 95%: no interval, and the reachable level.
/// let a = Sample::new(&[1.0, 2.0, 3.0])?;
/// let b = Sample::new(&[4.0, 5.0, 6.0])?;
/// let s = hodges_lehmann(&a, &b, 0.95)?;
/// assert_eq!((s.shift, s.ci_low), (3.0, None));
/// assert!((s.max_confidence - 0.9).abs() < 1e-15);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn hodges_lehmann(
    baseline: &Sample,
    candidate: &Sample,
    confidence: f64,
) -> Result<ShiftEstimate, StatsError> {
    hodges_lehmann_with(
        baseline,
        candidate,
        &ShiftConfig::with_confidence(confidence),
    )
}

/// [`hodges_lehmann`] with explicit options.
///
/// Time and errors: as [`hodges_lehmann`] (the exact branch costs
/// O(min(m, n)^2 max(m, n)) with `m + n <=` [`EXACT_MAX_TOTAL`]).
pub fn hodges_lehmann_with(
    baseline: &Sample,
    candidate: &Sample,
    config: &ShiftConfig,
) -> Result<ShiftEstimate, StatsError> {
    let confidence = config.confidence;
    check_confidence(confidence)?;
    let diffs = Differences::new(baseline.values(), candidate.values());
    let (m, n) = (diffs.a.len(), diffs.b.len());
    let pairs = diffs.pairs();

    // Median: the middle difference, or the mean of the two middle ones.
    let lower_mid = diffs.kth_smallest(pairs.div_ceil(2));
    let shift = if pairs % 2 == 1 {
        lower_mid
    } else {
        let upper_mid = diffs.next_after(lower_mid, pairs / 2);
        lower_mid / 2.0 + upper_mid / 2.0
    };

    let (ties, largest_tie) = diffs.ties();
    let total = m + n;
    let exact = largest_tie <= 1
        && match config.method {
            MannWhitneyMethodChoice::Exact => total <= EXACT_MAX_TOTAL,
            MannWhitneyMethodChoice::Auto => total <= AUTO_EXACT_MAX_TOTAL,
            MannWhitneyMethodChoice::Asymptotic => false,
        };
    let order = if exact {
        exact_order(m, n, confidence)
    } else {
        normal_order(m, n, ties, confidence)
    };
    let (ci_low, ci_high) = match order.k {
        Some(k) => (
            Some(diffs.kth_smallest(k as u64)),
            Some(diffs.kth_smallest(pairs - k as u64 + 1)),
        ),
        None => (None, None),
    };
    if let Some(bad) = [Some(shift), ci_low, ci_high]
        .into_iter()
        .flatten()
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
        achieved_confidence: order.achieved,
        max_confidence: order.max_confidence,
        k: order.k,
        method: if exact {
            MannWhitneyMethod::Exact
        } else {
            MannWhitneyMethod::Asymptotic
        },
        n_baseline: m,
        n_candidate: n,
    })
}

/// The order statistic bounding the interval, with its coverage.
struct Order {
    k: Option<usize>,
    achieved: Option<f64>,
    max_confidence: f64,
}

/// Exact branch: `k - 1` is the largest `c` with `2 P(U <= c) < alpha`, the p-value of
/// the exact test computed with the same arithmetic (`cum / total * 2`), so that the
/// interval excludes 0 exactly when that test rejects.
fn exact_order(m: usize, n: usize, confidence: f64) -> Order {
    let alpha = 1.0 - confidence;
    let freq = u_frequencies(m, n);
    let total: i128 = freq.iter().sum();
    let two_tail = |cum: i128| cum as f64 / total as f64 * 2.0;
    let mut cum = 0_i128;
    let mut k = 0;
    // U <= c with 2 P(U <= c) < alpha < 1 lies below the median, so k <= ceil(mn/2).
    while k < freq.len() && two_tail(cum + freq[k]) < alpha {
        cum += freq[k];
        k += 1;
    }
    let max_confidence = (1.0 - two_tail(freq[0])).max(0.0);
    if k == 0 {
        return Order {
            k: None,
            achieved: None,
            max_confidence,
        };
    }
    Order {
        k: Some(k),
        achieved: Some(1.0 - two_tail(cum)),
        max_confidence,
    }
}

/// Normal branch: `k = floor(mn/2 - z sigma_U)`, no interval when that is below 1.
fn normal_order(m: usize, n: usize, ties: f64, confidence: f64) -> Order {
    let (mf, nf) = (m as f64, n as f64);
    let big_n = mf + nf;
    let half = mf * nf / 2.0;
    let var = if big_n > 1.0 {
        mf * nf / 12.0 * ((big_n + 1.0) - ties / (big_n * (big_n - 1.0)))
    } else {
        0.0
    };
    let sigma = var.max(0.0).sqrt();
    // Coverage of the interval at `k` under the approximation the formula inverts.
    let coverage = |k: f64| {
        if sigma > 0.0 {
            (2.0 * normal_cdf((half - k) / sigma) - 1.0).clamp(0.0, 1.0)
        } else if half >= k {
            1.0
        } else {
            0.0
        }
    };
    let max_confidence = coverage(1.0);
    let z = -normal_ppf((1.0 - confidence) / 2.0).unwrap_or(0.0);
    let raw = (half - z * sigma).floor();
    if raw < 1.0 {
        return Order {
            k: None,
            achieved: None,
            max_confidence,
        };
    }
    let k = (raw as usize).min((m * n).div_ceil(2));
    Order {
        k: Some(k),
        achieved: Some(coverage(k as f64)),
        max_confidence,
    }
}

/// The `mn` differences `b_j - a_i`, implicit: both samples sorted ascending, so row `j`
/// of the difference matrix grows with `j` and falls with `i`.
struct Differences {
    a: Vec<f64>,
    b: Vec<f64>,
}

impl Differences {
    /// Time: O((m + n) log(m + n)).
    fn new(baseline: &[f64], candidate: &[f64]) -> Self {
        let mut a = baseline.to_vec();
        let mut b = candidate.to_vec();
        a.sort_unstable_by(f64::total_cmp);
        b.sort_unstable_by(f64::total_cmp);
        Differences { a, b }
    }

    fn pairs(&self) -> u64 {
        self.a.len() as u64 * self.b.len() as u64
    }

    /// The `k`-th smallest difference (1-based, `1 <= k <= mn`), exactly the value sorting
    /// all `mn` differences would put at position `k`.
    ///
    /// Row `j` (candidate value `b_j`) keeps a window of baseline indices `first[j] ..
    /// end[j]`, the differences still in the running; those left of the window are too
    /// large, those right of it too small. Each round draws up to [`PIVOT_SAMPLE`]
    /// candidates uniformly (a fixed-seed generator: only the running time depends on the draws),
    /// takes two that bracket the target rank within the sample (Floyd & Rivest 1975),
    /// and cuts every window at them with monotone two-pointer sweeps. Once at most
    /// `4 (m + n)` (at least 4096) candidates remain they are listed and selected
    /// directly.
    ///
    /// Time: O(m + n + windows) per sweep, about three rounds of three sweeps for
    /// `10^5 x 10^5` values (each round keeps ~1/32 of the candidates); expected
    /// O((m + n) log(mn) / log(PIVOT_SAMPLE)) overall. Memory: O(m + n).
    fn kth_smallest(&self, k: u64) -> f64 {
        let len = (self.a.len() + self.b.len()) as u64;
        let sample = len.clamp(256, PIVOT_SAMPLE as u64) as usize;
        self.kth_smallest_tuned(k, (4 * len).max(4096), sample)
    }

    /// The `(k + 1)`-th smallest difference given the `k`-th, `t` (`k < mn`): `t` again
    /// when more than `k` differences are `<= t`, else the smallest difference above `t`
    /// (in each row, the one just left of the cut). Time: O(m + n).
    fn next_after(&self, t: f64, k: u64) -> f64 {
        let a = &self.a;
        let (mut at, mut count, mut next) = (0, 0_u64, f64::INFINITY);
        for &y in &self.b {
            while at < a.len() && y - a[at] > t {
                at += 1;
            }
            count += (a.len() - at) as u64;
            if at > 0 {
                next = next.min(y - a[at - 1]);
            }
        }
        if count > k { t } else { next + 0.0 }
    }

    fn kth_smallest_tuned(&self, k: u64, enumerate_max: u64, sample: usize) -> f64 {
        let (a, b) = (&self.a, &self.b);
        let (m, n) = (a.len(), b.len());
        let mut first = vec![0_usize; n];
        let mut end = vec![m; n];
        let mut cut = vec![0_usize; n];
        let mut cum = vec![0_u64; n];
        let mut rng = SplitMix64(0x5eed_4c17_u64 ^ k);
        loop {
            let mut total = 0_u64;
            let mut below = 0_u64; // differences right of the windows: all smaller
            for j in 0..n {
                total += (end[j] - first[j]) as u64;
                cum[j] = total;
                below += (m - end[j]) as u64;
            }
            let rank = k - below; // 1-based rank of the answer among the candidates
            if total <= enumerate_max {
                let mut left: Vec<f64> = Vec::with_capacity(total as usize);
                for (j, &y) in b.iter().enumerate() {
                    left.extend(a[first[j]..end[j]].iter().map(|&x| y - x));
                }
                let idx = (rank - 1) as usize;
                return *left.select_nth_unstable_by(idx, f64::total_cmp).1 + 0.0;
            }
            let mut draws: Vec<f64> = (0..sample)
                .map(|_| {
                    let x = rng.below(total);
                    let j = cum.partition_point(|&c| c <= x);
                    let before = if j == 0 { 0 } else { cum[j - 1] };
                    b[j] - a[first[j] + (x - before) as usize]
                })
                .collect();
            draws.sort_unstable_by(f64::total_cmp);
            let at = rank as f64 / total as f64 * sample as f64;
            let spread = 2.0 * (sample as f64).sqrt();
            let last = sample - 1;
            let lo_pivot = draws[((at - spread).max(0.0) as usize).min(last)];
            let hi_pivot = draws[((at + spread) as usize).min(last)];

            // Low pivot: is the answer at, below or above it?
            if self.cut_at(lo_pivot, Cut::AtMost, &first, &end, &mut cut) >= k {
                if self.cut_at(lo_pivot, Cut::Below, &first, &end, &mut cut) < k {
                    return lo_pivot + 0.0;
                }
                first.copy_from_slice(&cut); // keep only differences < lo_pivot
                continue;
            }
            end.copy_from_slice(&cut); // keep only differences > lo_pivot
            if hi_pivot > lo_pivot {
                if self.cut_at(hi_pivot, Cut::AtMost, &first, &end, &mut cut) >= k {
                    first.copy_from_slice(&cut); // keep differences <= hi_pivot
                } else {
                    end.copy_from_slice(&cut); // keep differences > hi_pivot
                }
            }
        }
    }

    /// For every row, the first index of its window whose difference is `<= t`
    /// ([`Cut::AtMost`]) or `< t` ([`Cut::Below`]), written to `cut`; returns the number
    /// of such differences in the whole matrix. `t` must lie within the windows' range,
    /// so the cut is the row's global one, which only moves right from row to row.
    /// Time: O(n + sum of window widths).
    ///
    /// A row's cut moves a step or two from the last row's: four places are tested at once
    /// (a row's differences fall along it, so the ones still beyond the cut are a run from
    /// its start) and the cut moves by how many are, without a branch that the data decide
    /// row by row; a move of four tests four more.
    fn cut_at(&self, t: f64, how: Cut, first: &[usize], end: &[usize], cut: &mut [usize]) -> u64 {
        let a = &self.a;
        let Some(last) = a.len().checked_sub(1) else {
            cut.fill(0);
            return 0;
        };
        // Whether difference `y - a[i]` is still beyond the cut (`i < stop` only).
        let beyond = |y: f64, i: usize, stop: usize| -> usize {
            let d = y - a[i.min(last)];
            let out = match how {
                Cut::AtMost => d > t,
                Cut::Below => d >= t,
            };
            usize::from((i < stop) & out)
        };
        let mut at = 0;
        let mut count = 0_u64;
        for (j, &y) in self.b.iter().enumerate() {
            at = at.max(first[j]);
            let stop = end[j];
            loop {
                let moved = beyond(y, at, stop)
                    + beyond(y, at + 1, stop)
                    + beyond(y, at + 2, stop)
                    + beyond(y, at + 3, stop);
                at += moved;
                if moved < 4 {
                    break;
                }
            }
            cut[j] = at;
            count += (a.len() - at) as u64;
        }
        count
    }

    /// `sum(t^3 - t)` over the tie groups of the pooled values, and the largest group.
    /// Time: O(m + n) (a merge of the sorted samples).
    fn ties(&self) -> (f64, usize) {
        let (a, b) = (&self.a, &self.b);
        let (mut i, mut j) = (0, 0);
        let mut next = || {
            let take_a = j >= b.len() || (i < a.len() && a[i] <= b[j]);
            if take_a {
                i += 1;
                a.get(i - 1).copied()
            } else {
                j += 1;
                b.get(j - 1).copied()
            }
        };
        let (mut term, mut largest) = (0.0, 1);
        let mut current = next();
        let mut run = 1_usize;
        while let Some(v) = current {
            let following = next();
            if following == Some(v) {
                run += 1;
            } else {
                if run > 1 {
                    let t = run as f64;
                    term += t * t * t - t;
                    largest = largest.max(run);
                }
                run = 1;
            }
            current = following;
        }
        (term, largest)
    }
}

/// Which differences [`Differences::cut_at`] counts.
#[derive(Clone, Copy)]
enum Cut {
    /// `<= t`.
    AtMost,
    /// `< t`.
    Below,
}

/// Most candidates drawn per round of [`Differences::kth_smallest`] (fewer for small
/// samples: `m + n`, at least 256).
const PIVOT_SAMPLE: usize = 1 << 14;

/// SplitMix64 (Steele, Lea & Flood 2014): the pivot draws, seeded by the rank sought.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (`bound >= 1`), by Lemire's multiply-shift (bias below
    /// `bound / 2^64`, irrelevant for pivots).
    fn below(&mut self, bound: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(bound)) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(a: &[f64], b: &[f64]) -> Vec<f64> {
        let mut d: Vec<f64> = b
            .iter()
            .flat_map(|y| a.iter().map(move |x| y - x))
            .collect();
        d.sort_by(f64::total_cmp);
        d
    }

    #[test]
    fn selection_matches_sorting_every_order_statistic() {
        // Zeros of both signs, ties, and differences that overflow to +-inf.
        let a = [3.0, -1.5, 2.0, 2.0, 7.25, 0.0, -0.0, 1e-300, -1.7e308];
        let b = [1.0, 2.0, -4.0, 2.0, 9.5, 1e300, 1.7e308, -1.7e308];
        let d = Differences::new(&a, &b);
        let sorted = brute(&a, &b);
        for (k, &want) in sorted.iter().enumerate() {
            assert_eq!(d.kth_smallest(k as u64 + 1), want + 0.0, "k = {}", k + 1);
            for (limit, sample) in [(1, 2), (3, 5)] {
                let got = d.kth_smallest_tuned(k as u64 + 1, limit, sample);
                assert_eq!(got, want + 0.0, "k = {} ({limit}, {sample})", k + 1);
            }
        }
        for k in 1..sorted.len() {
            let next = d.next_after(sorted[k - 1] + 0.0, k as u64);
            assert_eq!(next, sorted[k] + 0.0, "after k = {k}");
        }
    }

    /// The sampling rounds (forced with tiny limits) land on the same values as sorting,
    /// with distinct values and with heavy ties.
    #[test]
    fn sampled_selection_matches_sorting() {
        let mut rng = SplitMix64(11);
        let mut draw = |len: usize, scale: f64, round: bool| -> Vec<f64> {
            (0..len)
                .map(|_| {
                    let v = (rng.next() >> 11) as f64 / (1_u64 << 53) as f64 * scale;
                    if round { v.round() } else { v }
                })
                .collect()
        };
        for (len_a, len_b, scale, round) in [
            (40, 37, 1.0, false),
            (31, 45, 6.0, true),
            (1, 50, 3.0, true),
        ] {
            let a = draw(len_a, scale, round);
            let b = draw(len_b, scale * 1.1, round);
            let d = Differences::new(&a, &b);
            let sorted = brute(&a, &b);
            for (k, &want) in sorted.iter().enumerate() {
                for (limit, sample) in [(4, 8), (16, 32), (1, 2)] {
                    let got = d.kth_smallest_tuned(k as u64 + 1, limit, sample);
                    assert_eq!(got, want + 0.0, "k = {} ({limit}, {sample})", k + 1);
                }
            }
        }
    }

    #[test]
    fn ties_are_counted_across_groups() {
        let d = Differences::new(&[1.0, 2.0, 2.0, 5.0], &[2.0, 5.0, 7.0]);
        // groups: {2,2,2} and {5,5}
        assert_eq!(d.ties(), (24.0 + 6.0, 3));
        assert_eq!(Differences::new(&[1.0], &[2.0]).ties(), (0.0, 1));
    }

    #[test]
    fn three_against_three_has_no_interval() {
        let a = Sample::new(&[1.0, 2.0, 4.0]).unwrap();
        let b = Sample::new(&[-1.0, -2.0, 0.0]).unwrap();
        let s = hodges_lehmann(&a, &b, 0.95).unwrap();
        assert_eq!(s.method, MannWhitneyMethod::Exact);
        assert_eq!((s.ci_low, s.ci_high, s.k), (None, None, None));
        assert!((s.max_confidence - 0.9).abs() < 1e-15);
        // At 90% - epsilon the widest interval is enough.
        let s = hodges_lehmann(&a, &b, 0.89).unwrap();
        assert_eq!(
            (s.ci_low, s.ci_high, s.k),
            (Some(-6.0), Some(-1.0), Some(1))
        );
    }
}
