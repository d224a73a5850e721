//! The beta-binomial mixture boundary of the sign confidence sequence.
//!
//! At the true median `m` of independent continuous block log-ratios, the indicators
//! `1{d_i <= m}` are fair coin flips, so for any `theta` the likelihood ratio
//! `prod (theta^x (1 - theta)^(1 - x)) / (1/2)^t` is a nonnegative martingale with mean 1;
//! so is its mixture over `theta ~ Beta(a, a)`, which has the closed form
//!
//! ```text
//! M_t(s) = B(a + s, a + t - s) / B(a, a) * 2^t,    s = #{i <= t : d_i <= m}.
//! ```
//!
//! Ville's inequality bounds the chance that it *ever* reaches `1 / alpha` by `alpha`
//! (Howard, Ramdas, McAuliffe and Sekhon 2021, "Time-uniform, nonparametric,
//! nonasymptotic confidence sequences", section 3; the beta-binomial mixture of their
//! quantile confidence sequences in Howard and Ramdas 2022). `M_t(s)` falls as `s` moves
//! towards `t / 2`, so the values of `m` it rejects are those with at most `k(t)`
//! log-ratios on one side: [`SignBoundary::k`].

use crate::special::ln_gamma;

/// The mixture's prior parameter `a` (Beta(a, a)). `1/2` (the Krichevsky-Trofimov /
/// Jeffreys prior) spends its evidence on lopsided coins, so a large effect is decided
/// after the fewest blocks (7 at alpha = 0.05, against 8 for the uniform prior); the
/// calibration in `docs/sequential.md` (`cargo xtask sequential`) compares the two on
/// small effects and noisy machines.
pub const DEFAULT_PRIOR: f64 = 0.5;

fn ln_beta(x: f64, y: f64) -> f64 {
    // Both arguments are >= a > 0 here, so ln_gamma is defined.
    ln_gamma(x).unwrap_or(f64::NAN) + ln_gamma(y).unwrap_or(f64::NAN)
        - ln_gamma(x + y).unwrap_or(f64::NAN)
}

/// `ln M_t(s)` for a Beta(`a`, `a`) mixture. Time: O(1).
pub fn ln_mixture(a: f64, s: u64, t: u64) -> f64 {
    let (s, t) = (s as f64, t as f64);
    ln_beta(a + s, a + t - s) - ln_beta(a, a) + t * std::f64::consts::LN_2
}

/// The boundary for one `alpha` and prior: the rejection counts per number of blocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignBoundary {
    /// Error rate: the sequence ever misses the median with probability at most this.
    pub alpha: f64,
    /// Prior parameter `a` of the Beta(a, a) mixture.
    pub prior: f64,
}

impl SignBoundary {
    /// The boundary at `alpha` with the default prior.
    pub fn new(alpha: f64) -> SignBoundary {
        SignBoundary {
            alpha,
            prior: DEFAULT_PRIOR,
        }
    }

    /// The largest count `k < t / 2` whose mixture reaches `1 / alpha` after `t` blocks
    /// (a candidate median with `k` or fewer log-ratios on one side is rejected), or `None`
    /// when even `0` does not. Time: O(log t).
    pub fn k(&self, t: u64) -> Option<u64> {
        let threshold = -self.alpha.ln();
        if t == 0 || ln_mixture(self.prior, 0, t) < threshold {
            return None;
        }
        // ln_mixture decreases in s on [0, t/2]: find the last s that still rejects.
        let (mut lo, mut hi) = (0u64, (t - 1) / 2);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if ln_mixture(self.prior, mid, t) >= threshold {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Some(lo)
    }

    /// The fewest blocks after which the sequence can exclude anything: the first `t` with
    /// `k(t)` defined (7 at alpha = 0.05 with the default prior). Time: O(answer).
    pub fn min_blocks(&self) -> u64 {
        (1..10_000).find(|&t| self.k(t).is_some()).unwrap_or(10_000)
    }

    /// The anytime-valid p-value for "the median is `m`" after counts `s` (at or below
    /// `m`) of `t`: `1 / M_t(s)` capped at 1 (a running maximum of `M` over the looks gives
    /// the p-value of the whole sequence). Time: O(1).
    pub fn p_value(&self, s: u64, t: u64) -> f64 {
        (-ln_mixture(self.prior, s, t)).exp().min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_prior_all_heads_is_two_to_the_t_over_t_plus_one() {
        for t in 1..20u64 {
            let m = ln_mixture(1.0, t, t).exp();
            let expect = 2f64.powi(t as i32) / (t as f64 + 1.0);
            assert!((m - expect).abs() < 1e-9 * expect, "t={t}: {m} vs {expect}");
        }
    }

    #[test]
    fn mixture_is_a_martingale_under_fair_coins() {
        // E[M_{t+1} | s] = (M_{t+1}(s+1) + M_{t+1}(s)) / 2 = M_t(s), exactly.
        for t in 0..30u64 {
            for s in 0..=t {
                let next =
                    0.5 * (ln_mixture(0.5, s + 1, t + 1).exp() + ln_mixture(0.5, s, t + 1).exp());
                let now = ln_mixture(0.5, s, t).exp();
                assert!((next - now).abs() < 1e-9 * now, "t={t} s={s}");
            }
        }
    }

    #[test]
    fn fewest_blocks_at_alpha_005() {
        assert_eq!(SignBoundary::new(0.05).min_blocks(), 7);
        let uniform = SignBoundary {
            alpha: 0.05,
            prior: 1.0,
        };
        assert_eq!(uniform.min_blocks(), 8);
    }

    #[test]
    fn k_is_the_last_rejecting_count() {
        let b = SignBoundary::new(0.05);
        for t in 7..300u64 {
            let k = b.k(t).unwrap();
            assert!(ln_mixture(0.5, k, t) >= -(0.05f64.ln()));
            if k + 1 < t.div_ceil(2) {
                assert!(ln_mixture(0.5, k + 1, t) < -(0.05f64.ln()));
            }
        }
    }
}
