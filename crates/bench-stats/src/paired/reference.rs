//! Ratio of ratios against a reference workload.
//!
//! Block `i` yields baseline `b_i` and candidate `c_i` (block means) and the reference's
//! values. Each variant is normalised by a reference, and the estimate is the ratio of the
//! normalised means:
//!
//! `R = mean_i(c_i / rc_i) / mean_i(b_i / rb_i)`,
//!
//! whose per-block form is `(c_i / rc_i) / (b_i / rb_i)`. The interval resamples whole
//! blocks. Two placements of the reference exist ([`ReferencePlacement`]):
//!
//! - **Beside each run** ([`ratio_of_ratios_beside`], what `abba compare --reference` runs):
//!   `rb_i` is the mean of the reference runs placed right beside the baseline's runs in
//!   block `i`, `rc_i` that of those beside the candidate's. A session state that moves
//!   inside the block (a load phase starting between the baseline's and the candidate's
//!   runs) moves each variant and its own reference together and leaves the ratio.
//! - **Once per block** ([`ratio_of_ratios`], raw files of older versions): `rb_i = rc_i =
//!   r_i`, so each block's ratio of ratios is exactly `c_i / b_i`: the reference cancels
//!   from every block and only reweights the blocks (by `1 / r_i`) in the ratio of means.
//!   It removes no noise and adds no bias of its own; it is computed for such files but
//!   never flagged.
//!
//! # The bias of the ratio of ratios (beside each run)
//! Write `rb_i = s_i rho eta_bi` and `rc_i = s_i rho eta_ci`: the block state `s_i` the
//! reference shares with its variant, and the reference's own error `eta` (mean 1,
//! coefficient of variation `CV_r`), independent between the two references of a block.
//! The same state divides out of `c_i / rc_i` and `b_i / rb_i`. Since `E[1 / eta] ~ 1 +
//! CV_r²` for both, the two normalised means are inflated alike and that factor cancels
//! in `R`; what remains is the second-order bias of a ratio of two means over `n` blocks,
//! `E[U / V] ~ (E U / E V)(1 + Var(V) / (E V)²)`, where `Var(V) / (E V)²` holds `CV_r² / n`
//! from the reference (and `CV_b² / n` from the baseline, which any ratio of means has). So
//!
//! `relative bias of R ~ +CV_r² / n`, upward, growing with the reference's own error and
//! shrinking with the blocks; a single block's ratio `(c/rc)/(b/rb)` carries the whole
//! `E[rb] E[1/rc] - 1 ~ +CV_r²`, so an average of block ratios would not shrink it.
//!
//! `CV_r` is estimated from the two reference values of each block, which saw the same
//! block state: `CV_r ~ sd_i(ln rc_i - ln rb_i) / sqrt(2)` ([`RatioOfRatios::reference_own_cv`];
//! an upper bound, since a state change inside the block also separates them).
//! [`RatioOfRatios::noisy`] is set when `CV_r² / n` exceeds [`REFERENCE_BIAS_LIMIT`] =
//! 0.1 %: the size of the smallest effects a well-controlled paired comparison resolves (the
//! appendix's null comparison, `docs/appendix.md` with its command, bounds the ratio to
//! a few tenths of a percent). The simulation test
//! `reference_sim.rs` checks the `CV_r² / n` law. The reference's block values are always
//! returned so a reader can judge for themselves.

use crate::descriptive::summary::{mean, variance_parts};
use crate::model::report::{ReferencePlacement, ReferenceReport};
use crate::resample::bootstrap::{self, BootstrapConfig, BootstrapInterval, Statistic};
use crate::{Sample, StatsError};

/// Relative bias of the ratio of ratios due to the reference (`CV_r² / n`) above which the
/// reference is flagged as noisy: 0.001 (0.1 %).
pub const REFERENCE_BIAS_LIMIT: f64 = 1e-3;

/// The ratio-of-ratios estimate with its interval and the reference's noise.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RatioOfRatios {
    /// `mean(c_i / rc_i) / mean(b_i / rb_i)`.
    pub estimate: f64,
    /// Block-bootstrap interval of the estimate, or why there is none.
    pub interval: Result<BootstrapInterval, StatsError>,
    /// Per-block ratio of ratios `(c_i / rc_i) / (b_i / rb_i)`.
    pub block_ratios: Vec<f64>,
    /// Where the reference ran.
    pub placement: ReferencePlacement,
    /// The reference value of every block (the mean of `rb_i` and `rc_i` beside each run).
    pub reference_values: Vec<f64>,
    /// Beside each run: the reference value next to the baseline (`rb_i`) and next to the
    /// candidate (`rc_i`) in every block; empty once per block.
    pub reference_pairs: Vec<[f64; 2]>,
    /// Sample coefficient of variation (sd / mean, n - 1) of the reference block values
    /// across blocks: how much the session state moved; `None` for a single block.
    pub reference_cv: Option<f64>,
    /// Beside each run: the reference's own error `CV_r`, `sd(ln rc_i - ln rb_i) / sqrt(2)`
    /// (see the module docs); `None` once per block or with fewer than 2 blocks.
    pub reference_own_cv: Option<f64>,
    /// Beside each run: `CV_r² / n`, the approximate upward relative bias of the estimate
    /// due to the reference; `None` when `reference_own_cv` is.
    pub approximate_bias: Option<f64>,
    /// `approximate_bias > REFERENCE_BIAS_LIMIT`: the reference's own noise biases the
    /// estimate by more than the smallest effects worth resolving.
    pub noisy: bool,
}

impl RatioOfRatios {
    /// The analysis model's [`ReferenceReport`].
    pub fn to_report(&self) -> ReferenceReport {
        let beside = self.placement == ReferencePlacement::BesideEachRun;
        let column = |k: usize| beside.then(|| self.reference_pairs.iter().map(|p| p[k]).collect());
        ReferenceReport {
            ratio_of_ratios: self.estimate,
            ci: self.interval.as_ref().ok().map(BootstrapInterval::bounds),
            reference_cv: self.reference_cv,
            reference_block_values: self.reference_values.clone(),
            placement: Some(self.placement),
            baseline_reference_values: column(0),
            candidate_reference_values: column(1),
            reference_own_cv: self.reference_own_cv,
            approximate_bias: self.approximate_bias,
        }
    }
}

struct RorStat {
    norm_b: Vec<f64>,
    norm_c: Vec<f64>,
}

impl Statistic for RorStat {
    fn sizes(&self) -> Vec<usize> {
        vec![self.norm_b.len()]
    }
    fn value(&self, idx: &[Vec<usize>]) -> Option<f64> {
        let b = mean(&idx[0].iter().map(|&i| self.norm_b[i]).collect::<Vec<_>>());
        let c = mean(&idx[0].iter().map(|&i| self.norm_c[i]).collect::<Vec<_>>());
        let v = c / b;
        (b > 0.0 && v.is_finite()).then_some(v)
    }
}

/// Ratio of ratios of `candidate` over `baseline` against a reference measured once per
/// block (`reference`), with the `i`-th value of each sample measured in block `i`. Each
/// block's ratio of ratios equals `c_i / b_i`: see the module docs for what this
/// placement can and cannot do.
///
/// Time: O(B n) (O(B n²) studentized, through the jackknife).
///
/// # Errors
/// [`StatsError::LengthMismatch`] when the three samples differ in length;
/// [`StatsError::ZeroDenominator`] unless every reference and baseline value is positive;
/// [`StatsError::InvalidParameter`] for an invalid config; [`StatsError::NonFinite`] for an
/// overflowing ratio.
/// A failed interval (e.g. one block) is reported in [`RatioOfRatios::interval`].
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::paired::ratio_of_ratios;
/// use bench_stats::resample::BootstrapConfig;
/// let reference = Sample::new(&[100.0, 90.0, 110.0, 95.0])?; // block state
/// let base = Sample::new(&[200.0, 180.0, 220.0, 190.0])?;
/// let cand = Sample::new(&[220.0, 198.0, 242.0, 209.0])?;
/// let r = ratio_of_ratios(&base, &cand, &reference, &BootstrapConfig::default())?;
/// assert!((r.estimate - 1.1).abs() < 1e-12);
/// assert!(!r.noisy); // once per block, the reference adds no bias of its own
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn ratio_of_ratios(
    baseline: &Sample,
    candidate: &Sample,
    reference: &Sample,
    config: &BootstrapConfig,
) -> Result<RatioOfRatios, StatsError> {
    let r = reference.values();
    build(
        baseline,
        candidate,
        [r, r],
        ReferencePlacement::OncePerBlock,
        config,
    )
}

/// Ratio of ratios of `candidate` over `baseline`, each normalised by its own reference
/// measured beside it: `baseline_reference[i]` (`rb_i`) beside the baseline's runs of
/// block `i`, `candidate_reference[i]` (`rc_i`) beside the candidate's.
///
/// Time: O(B n) (O(B n²) studentized, through the jackknife).
///
/// # Errors
/// As [`ratio_of_ratios`]; every reference value must be positive.
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::paired::ratio_of_ratios_beside;
/// use bench_stats::resample::BootstrapConfig;
/// // Block 2's candidate runs hit a load phase that slowed the machine by 30 %; its
/// // reference, measured beside it, saw the same phase.
/// let base = Sample::new(&[200.0, 202.0, 198.0, 201.0])?;
/// let cand = Sample::new(&[220.0, 222.2 * 1.3, 217.8, 221.1])?;
/// let rb = Sample::new(&[100.0, 101.0, 99.0, 100.5])?;
/// let rc = Sample::new(&[100.0, 101.0 * 1.3, 99.0, 100.5])?;
/// let r = ratio_of_ratios_beside(&base, &cand, &rb, &rc, &BootstrapConfig::default())?;
/// assert!((r.estimate - 1.1).abs() < 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn ratio_of_ratios_beside(
    baseline: &Sample,
    candidate: &Sample,
    baseline_reference: &Sample,
    candidate_reference: &Sample,
    config: &BootstrapConfig,
) -> Result<RatioOfRatios, StatsError> {
    build(
        baseline,
        candidate,
        [baseline_reference.values(), candidate_reference.values()],
        ReferencePlacement::BesideEachRun,
        config,
    )
}

fn check_inputs(b: &[f64], c: &[f64], refs: [&[f64]; 2]) -> Result<(), StatsError> {
    for other in [c, refs[0], refs[1]] {
        if other.len() != b.len() {
            return Err(StatsError::LengthMismatch {
                left: b.len(),
                right: other.len(),
            });
        }
    }
    if refs[0].iter().chain(refs[1]).chain(b).any(|&v| v <= 0.0) {
        return Err(StatsError::ZeroDenominator {
            what: "ratio of ratios (reference and baseline values must be positive)",
        });
    }
    Ok(())
}

fn build(
    baseline: &Sample,
    candidate: &Sample,
    refs: [&[f64]; 2],
    placement: ReferencePlacement,
    config: &BootstrapConfig,
) -> Result<RatioOfRatios, StatsError> {
    config.validate()?;
    let (b, c) = (baseline.values(), candidate.values());
    check_inputs(b, c, refs)?;
    let [rb, rc] = refs;
    let norm_b: Vec<f64> = b.iter().zip(rb).map(|(b, r)| b / r).collect();
    let norm_c: Vec<f64> = c.iter().zip(rc).map(|(c, r)| c / r).collect();
    let block_ratios: Vec<f64> = norm_c.iter().zip(&norm_b).map(|(c, b)| c / b).collect();
    let overflow = |v: f64| StatsError::NonFinite {
        what: "ratio of ratios (a ratio overflows f64; rescale the data)",
        value: v,
    };
    if let Some(&v) = norm_b
        .iter()
        .chain(&norm_c)
        .chain(&block_ratios)
        .find(|v| !v.is_finite())
    {
        return Err(overflow(v));
    }
    let stat = RorStat { norm_b, norm_c };
    let n = b.len();
    let estimate = stat
        .value(&[(0..n).collect()])
        .ok_or_else(|| overflow(f64::INFINITY))?;
    let interval = if n < 2 {
        Err(StatsError::TooFewSamples {
            what: "ratio of ratios blocks",
            needed: 2,
            got: n,
        })
    } else {
        bootstrap::run(&stat, config)
    };
    let beside = placement == ReferencePlacement::BesideEachRun;
    let reference_values: Vec<f64> = if beside {
        rb.iter().zip(rc).map(|(x, y)| (x + y) / 2.0).collect()
    } else {
        rb.to_vec()
    };
    let reference_cv = variance_parts(&reference_values)
        .map(|(m, sd)| sd / m)
        .filter(|v| v.is_finite());
    let reference_own_cv = if beside { own_cv(rb, rc) } else { None };
    let approximate_bias = reference_own_cv.map(|cv| cv * cv / n as f64);
    Ok(RatioOfRatios {
        estimate,
        interval,
        block_ratios,
        placement,
        reference_values,
        reference_pairs: if beside {
            rb.iter().zip(rc).map(|(&x, &y)| [x, y]).collect()
        } else {
            Vec::new()
        },
        reference_cv,
        reference_own_cv,
        approximate_bias,
        noisy: approximate_bias.is_some_and(|b| b > REFERENCE_BIAS_LIMIT),
    })
}

/// `sd_i(ln rc_i - ln rb_i) / sqrt(2)`: the coefficient of variation of one reference value
/// (log scale), from the two that saw the same block; `None` below 2 blocks.
fn own_cv(rb: &[f64], rc: &[f64]) -> Option<f64> {
    let d: Vec<f64> = rb
        .iter()
        .zip(rc)
        .map(|(b, c)| crate::special::log_ratio(*c, *b))
        .collect();
    variance_parts(&d)
        .map(|(_, sd)| sd / std::f64::consts::SQRT_2)
        .filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[f64]) -> Sample {
        Sample::new(v).unwrap()
    }

    #[test]
    fn once_per_block_cancels_from_every_block() {
        let r = ratio_of_ratios(
            &s(&[10.0, 12.0, 9.0]),
            &s(&[11.0, 12.0, 9.9]),
            &s(&[5.0, 7.0, 4.0]),
            &BootstrapConfig::default(),
        )
        .unwrap();
        for (q, want) in r.block_ratios.iter().zip([1.1, 1.0, 1.1]) {
            assert!((q - want).abs() < 1e-12);
        }
        assert_eq!(r.reference_own_cv, None);
        assert!(!r.noisy);
        assert_eq!(r.to_report().baseline_reference_values, None);
    }

    #[test]
    fn own_cv_reads_the_spread_between_the_two_references_of_a_block() {
        // ln(rc / rb) alternates +-0.1: sd (n - 1) of [0.1, -0.1, 0.1, -0.1] is 0.11547.
        let e = 0.1f64.exp();
        let rb = s(&[1.0, e, 1.0, e]);
        let rc = s(&[e, 1.0, e, 1.0]);
        let flat = s(&[2.0; 4]);
        let r =
            ratio_of_ratios_beside(&flat, &flat, &rb, &rc, &BootstrapConfig::default()).unwrap();
        let cv = r.reference_own_cv.unwrap();
        assert!(
            (cv - 0.115_470_053_837_925 / 2f64.sqrt()).abs() < 1e-12,
            "{cv}"
        );
        assert!((r.approximate_bias.unwrap() - cv * cv / 4.0).abs() < 1e-15);
        assert!(r.noisy); // 0.0033 / 4 blocks > 0.001
        let rep = r.to_report();
        assert_eq!(rep.candidate_reference_values.unwrap()[0], e);
        assert_eq!(rep.placement, Some(ReferencePlacement::BesideEachRun));
    }
}
