//! Power of the default fixed-sample test, by resampling a pilot's block log-ratios.
//!
//! The pilot's log-ratios, centred on their pseudo-median, stand for the noise of one block; a
//! planned experiment of `n` blocks with true ratio `r` is `n` draws from them (with
//! replacement) shifted by `ln r`. Its power is the share of such experiments in which the
//! default verdict's test, the Wilcoxon signed-rank test of the block log-ratios, has
//! `p < alpha` (exact null distribution up to 50 blocks, normal beyond, as
//! [`crate::rank::wilcoxon_signed_rank`] decides). Resampling keeps the pilot's heavy tail
//! and skew, which a normal formula would smooth away.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::rank::WILCOXON_AUTO_EXACT_MAX;
use crate::rank::wilcoxon::signed_rank_pmf;
use crate::special::normal_sf;

/// The signed-rank test of `n` blocks: its rejection region, computed once per count of
/// non-zero log-ratios (zeros are dropped, as [`crate::rank::wilcoxon_signed_rank`] drops
/// them: a pilot centred on a value it holds resamples exact zeros at no change).
pub(crate) struct SignedRankTest {
    alpha: f64,
    /// Per count of non-zero values `m` (index), the exact critical value: reject when
    /// `min(T+, T-) <= critical`; `Some(None)` = normal approximation; `None` = not yet
    /// computed.
    critical: Vec<Option<Option<i64>>>,
    scratch: Vec<f64>,
}

/// The exact critical value of `m` non-zero values at `alpha` (`None`: normal beyond
/// [`WILCOXON_AUTO_EXACT_MAX`]). Time: O(m^3).
fn critical_value(m: usize, alpha: f64) -> Option<i64> {
    (m <= WILCOXON_AUTO_EXACT_MAX).then(|| {
        let pmf = signed_rank_pmf(m);
        let mut cdf = 0.0;
        let mut c = -1i64;
        for (t, p) in pmf.iter().enumerate() {
            cdf += p;
            if 2.0 * cdf < alpha {
                c = t as i64;
            } else {
                break;
            }
        }
        c
    })
}

impl SignedRankTest {
    pub(crate) fn new(n: usize, alpha: f64) -> SignedRankTest {
        let mut critical = vec![None; n + 1];
        critical[n] = Some(critical_value(n, alpha));
        SignedRankTest {
            alpha,
            critical,
            scratch: Vec::with_capacity(n),
        }
    }

    /// Whether the log-ratios `d` reject no change (zeros dropped; ties among the absolute
    /// values are ranked by position, which gives tied values of one sign their mid-rank
    /// sum).
    pub(crate) fn rejects(&mut self, d: &[f64]) -> bool {
        self.scratch.clear();
        self.scratch.extend(d.iter().copied().filter(|x| *x != 0.0));
        let m = self.scratch.len();
        if m == 0 {
            return false;
        }
        if m >= self.critical.len() {
            self.critical.resize(m + 1, None);
        }
        let alpha = self.alpha;
        let critical = *self.critical[m].get_or_insert_with(|| critical_value(m, alpha));
        self.scratch.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
        let t_plus: f64 = self
            .scratch
            .iter()
            .enumerate()
            .filter(|(_, x)| **x > 0.0)
            .map(|(i, _)| (i + 1) as f64)
            .sum();
        let n = m as f64;
        let total = n * (n + 1.0) / 2.0;
        let t_min = t_plus.min(total - t_plus);
        match critical {
            Some(c) => (t_min as i64) <= c,
            None => {
                let mean = total / 2.0;
                let sd = (n * (n + 1.0) * (2.0 * n + 1.0) / 24.0).sqrt();
                let z = (mean - t_min - 0.5).max(0.0) / sd;
                2.0 * normal_sf(z) < self.alpha
            }
        }
    }
}

/// Draws `n` blocks from `noise` shifted by `shift` into `out`.
pub(crate) fn draw(
    rng: &mut Xoshiro256PlusPlus,
    noise: &[f64],
    shift: f64,
    out: &mut Vec<f64>,
    n: usize,
) {
    out.clear();
    out.extend((0..n).map(|_| noise[rng.random_range(0..noise.len())] + shift));
}

/// The most blocks whose power [`power`] estimates by resampled experiments; beyond, it
/// uses [`normal_power`], the large-sample normal approximation (a simulated experiment
/// costs O(n log n), and a plan of thousands of blocks would take minutes).
pub const SIMULATED_MAX_BLOCKS: usize = 300;

/// The power of the signed-rank test with `n` blocks against `ratio` by the normal
/// approximation of its statistic `T+ = #{i <= j : d_i + d_j > 0}` (the count of positive
/// Walsh averages) when the `d` are drawn from `noise` shifted by `ln ratio`: its mean
/// `n p1 + n(n-1)/2 p2` and variance from the U-statistic terms (`p1 = P(d > 0)`,
/// `p2 = P(d1 + d2 > 0)`, `p3 = P(d1 + d2 > 0, d1 + d3 > 0)`; ties count one half),
/// against the test's two-sided normal rejection region with continuity correction
/// (Lehmann 1975, *Nonparametrics*, ch. 4). Accurate when `n` is large (hundreds of
/// blocks), which is where [`power`] uses it. Time: O(m log m) for `m` noise values.
pub fn normal_power(noise: &[f64], n: usize, ratio: f64, alpha: f64) -> f64 {
    let mut sorted: Vec<f64> = noise.iter().copied().filter(|x| x.is_finite()).collect();
    if sorted.is_empty() || n == 0 {
        return 0.0;
    }
    sorted.sort_by(f64::total_cmp);
    let shift = ratio.ln();
    let m = sorted.len() as f64;
    // The share of values above `t` (ties count one half).
    let above = |t: f64| {
        let le = sorted.partition_point(|&x| x <= t);
        let lt = sorted.partition_point(|&x| x < t);
        ((sorted.len() - le) as f64 + 0.5 * (le - lt) as f64) / m
    };
    let (mut p1, mut p2, mut p3, mut q) = (0.0, 0.0, 0.0, 0.0);
    for &x in &sorted {
        let a = x + shift;
        let one = if a > 0.0 {
            1.0
        } else if a == 0.0 {
            0.5
        } else {
            0.0
        };
        // P(d1 + d2 > 0 | d1 = a): d2 = y + shift > -a.
        let c = above(-a - shift);
        p1 += one;
        p2 += c;
        p3 += c * c;
        q += one * c;
    }
    let (p1, p2, p3, q) = (p1 / m, p2 / m, p3 / m, q / m);
    let nf = n as f64;
    let pairs = nf * (nf - 1.0) / 2.0;
    let mean = nf * p1 + pairs * p2;
    let var = nf * p1 * (1.0 - p1)
        + pairs * p2 * (1.0 - p2)
        + nf * (nf - 1.0) * (nf - 2.0) * (p3 - p2 * p2)
        + 2.0 * nf * (nf - 1.0) * (q - p1 * p2);
    let null_mean = nf * (nf + 1.0) / 4.0;
    let null_sd = (nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0).sqrt();
    let Some(z) = crate::special::normal_ppf(1.0 - alpha / 2.0) else {
        return 0.0;
    };
    let upper = null_mean + z * null_sd + 0.5;
    let lower = null_mean - z * null_sd - 0.5;
    if var.is_nan() || var <= 0.0 {
        return if mean > upper || mean < lower {
            1.0
        } else {
            0.0
        };
    }
    let sd = var.sqrt();
    (normal_sf((upper - mean) / sd) + crate::special::normal_cdf((lower - mean) / sd)).min(1.0)
}

/// The power of the signed-rank test with `n` blocks against true ratio `ratio`, from
/// `reps` resampled experiments (up to [`SIMULATED_MAX_BLOCKS`]; [`normal_power`] beyond) (seeded: the same seed gives the same draws, so powers at
/// neighbouring `n` or ratios are compared on common random numbers).
/// Time: O(reps n log n) (+ O(n^3) once for the exact null when n <= 50).
pub fn power(noise: &[f64], n: usize, ratio: f64, alpha: f64, reps: u32, seed: u64) -> f64 {
    if noise.is_empty() || n == 0 || reps == 0 {
        return 0.0;
    }
    if n > SIMULATED_MAX_BLOCKS {
        return normal_power(noise, n, ratio, alpha);
    }
    let mut test = SignedRankTest::new(n, alpha);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut d = Vec::with_capacity(n);
    let shift = ratio.ln();
    let hits = (0..reps)
        .filter(|_| {
            draw(&mut rng, noise, shift, &mut d, n);
            test.rejects(&d)
        })
        .count();
    hits as f64 / f64::from(reps)
}

/// The fewest blocks (at least `min`, at most `max`) whose power reaches `target` against
/// `ratio`; `None` when even `max` blocks fall short. Bisection on the block count.
pub fn blocks_for_power(
    noise: &[f64],
    ratio: f64,
    target: f64,
    alpha: f64,
    (min, max): (usize, usize),
    reps: u32,
    seed: u64,
) -> Option<usize> {
    let reaches = |n: usize| power(noise, n, ratio, alpha, reps, seed) >= target;
    if !reaches(max) {
        return None;
    }
    Some(first_reaching(min, max, reaches))
}

/// [`blocks_for_power`] searched from a guess `start` (`(min, start, max)`: the point plan, for a resampled
/// pilot): bisection below it when `start` reaches `target`, doubling above it otherwise,
/// so that most power estimates are at block counts near the answer rather than at `max`.
/// The same answer as [`blocks_for_power`] when power grows with the block count.
/// Time: O(reps n log n) per estimate, about 2 log2(answer) estimates.
pub(crate) fn blocks_for_power_from(
    noise: &[f64],
    ratio: f64,
    target: f64,
    alpha: f64,
    (min, start, max): (usize, usize, usize),
    reps: u32,
    seed: u64,
) -> Option<usize> {
    let reaches = |n: usize| power(noise, n, ratio, alpha, reps, seed) >= target;
    let start = start.clamp(min, max);
    let (lo, hi) = if reaches(start) {
        (min, start)
    } else {
        let mut lo = start + 1;
        let mut hi = start;
        loop {
            if hi >= max {
                return None;
            }
            hi = (2 * hi).clamp(lo, max);
            if reaches(hi) {
                break;
            }
            lo = hi + 1;
        }
        (lo, hi)
    };
    Some(first_reaching(lo, hi, reaches))
}

/// The minimum detectable effect with `n` blocks: the smallest relative change `x` (ratio
/// `1 + x`) detected with power `target`, found by bisection on `ln(1 + x)` up to a 100%
/// change; `None` when even that is not reached.
pub fn minimum_detectable_effect(
    noise: &[f64],
    n: usize,
    target: f64,
    alpha: f64,
    reps: u32,
    seed: u64,
) -> Option<f64> {
    let reaches = |x: f64| power(noise, n, 1.0 + x, alpha, reps, seed) >= target;
    if !reaches(1.0) {
        return None;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..30 {
        let mid = 0.5 * (lo + hi);
        if reaches(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// The smallest `n` in `lo..=hi` for which `reaches(n)` holds, by bisection, given that it
/// holds at `hi` and, once it holds, for every larger `n`.
/// Time: O(log(hi - lo)) calls of `reaches`.
fn first_reaching(mut lo: usize, mut hi: usize, reaches: impl Fn(usize) -> bool) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if reaches(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_critical_value_matches_the_library_test() {
        // n = 7 at alpha 0.05: only T = 0 gives p = 2/128 < 0.05; T = 2 gives 6/128 < 0.05
        // and T = 3 gives 10/128 > 0.05.
        let mut t = SignedRankTest::new(7, 0.05);
        assert_eq!(t.critical[7], Some(Some(2)));
        let d = [1.0, -2.0, -3.0, 4.0, 5.0, 6.0, 7.0];
        let p = crate::rank::wilcoxon_signed_rank(&d).unwrap().p_value;
        assert_eq!(t.rejects(&d), p < 0.05);
        // Zeros are dropped, as the library test drops them: 7 non-zero values of 9.
        let z = [0.0, 1.0, -2.0, -3.0, 0.0, 4.0, 5.0, 6.0, 7.0];
        let mut t9 = SignedRankTest::new(9, 0.05);
        let p = crate::rank::wilcoxon_signed_rank(&z).unwrap().p_value;
        assert_eq!(t9.rejects(&z), p < 0.05);
        assert_eq!(t9.critical[7], Some(Some(2)));
        // Every value positive: 6 of 6 non-zero values reject (p = 2/64), 5 do not.
        assert!(t9.rejects(&[0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
        assert!(!t9.rejects(&[0.0, 0.0, 0.0, 0.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    }

    #[test]
    fn normal_power_agrees_with_simulation_at_large_counts() {
        let noise: Vec<f64> = (0..400)
            .map(|i| (f64::from(i) * 0.618).fract() - 0.5)
            .collect();
        for (n, ratio) in [(300, 1.0), (300, 1.03), (300, 1.05), (1000, 1.02)] {
            let mut test = SignedRankTest::new(n, 0.05);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
            let mut d = Vec::new();
            let reps = 1000;
            let hits = (0..reps)
                .filter(|_| {
                    draw(&mut rng, &noise, f64::ln(ratio), &mut d, n);
                    test.rejects(&d)
                })
                .count();
            let simulated = hits as f64 / f64::from(reps);
            let normal = normal_power(&noise, n, ratio, 0.05);
            assert!(
                (simulated - normal).abs() < 0.05,
                "n {n} ratio {ratio}: {simulated} vs {normal}"
            );
        }
    }

    #[test]
    fn power_is_alpha_at_no_change_and_grows_with_blocks() {
        let noise: Vec<f64> = (0..400)
            .map(|i| (f64::from(i) * 0.618).fract() - 0.5)
            .collect();
        let p0 = power(&noise, 20, 1.0, 0.05, 4000, 1);
        assert!((p0 - 0.05).abs() < 0.015, "{p0}");
        let small = power(&noise, 10, 1.1, 0.05, 2000, 1);
        let large = power(&noise, 40, 1.1, 0.05, 2000, 1);
        assert!(small < large, "{small} {large}");
        let n = blocks_for_power(&noise, 1.1, 0.8, 0.05, (6, 500), 2000, 1).unwrap();
        assert!(power(&noise, n, 1.1, 0.05, 2000, 1) >= 0.8);
        assert!(power(&noise, n - 1, 1.1, 0.05, 2000, 1) < 0.8);
    }
}
