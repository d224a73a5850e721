//! The asymptotic confidence sequence for the mean of the block log-ratios (Waudby-Smith,
//! Arbour, Sinha, Kennedy and Ramdas 2021, "Time-uniform central limit theory and
//! asymptotic confidence sequences", Theorem 2.2 with the two-sided normal-mixture
//! boundary). Kept as the comparison in the calibration (`docs/sequential.md`): on bursty
//! machines the plain SD of the block log-ratios is many times their robust spread, so a
//! mean-based sequence is wide where the sign sequence of [`super::boundary`] is narrow.

/// The time at which the boundary is tightest, in blocks (the mixture's `rho` is tuned for
/// it, as the paper's appendix suggests).
pub const TUNED_FOR_BLOCKS: f64 = 50.0;

/// The half-width of the asymptotic sequence after `t` blocks with sample SD `sd`:
/// `sd * sqrt(2 (t rho^2 + 1) / (t^2 rho^2) * ln(sqrt(t rho^2 + 1) / alpha))`, with
/// `rho^2 = (-2 ln alpha + ln(-2 ln alpha + 1)) / t*`. Time: O(1).
pub fn half_width(sd: f64, t: u64, alpha: f64) -> f64 {
    let l = -2.0 * alpha.ln();
    let rho2 = (l + (l + 1.0).ln()) / TUNED_FOR_BLOCKS;
    let t = t as f64;
    let v = t * rho2 + 1.0;
    sd * (2.0 * v / (t * t * rho2) * (v.sqrt() / alpha).ln()).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinks_like_sqrt_log_t_over_t() {
        let w = |t| half_width(1.0, t, 0.05);
        assert!(w(10) > w(100) && w(100) > w(1000));
        // Wider than the fixed-sample normal interval at every t (the price of looking).
        for t in [10u64, 50, 200, 1000] {
            assert!(w(t) > 1.96 / (t as f64).sqrt());
        }
        let ratio = w(4000) / w(1000);
        assert!(ratio > 0.5 && ratio < 0.6, "{ratio}");
    }
}
