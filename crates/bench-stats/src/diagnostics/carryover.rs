//! Carryover diagnostic for ABBA / BAAB blocks.
//!
//! In both orders, positions 1 and 3 run immediately after the *other* variant, while
//! position 0 runs first and position 2 runs after the *same* variant. A carryover effect
//! (caches, branch predictors, allocator or page state left by the previous run) therefore
//! shows up as a pattern by position, whichever variant sits there.
//!
//! # The rule
//! For each complete block with values `y0..y3` by position, the contrast
//!
//! `k = (-y0 + 3 y1 - 3 y2 + y3) / 4`
//!
//! estimates the extra value of a run that follows the other variant. Its weights sum to
//! zero (the block level cancels), give zero weight to the version (the variant of
//! positions 0 and 3 gets `-1 + 1`, that of 1 and 2 gets `3 - 3`, in ABBA and BAAB alike),
//! and are orthogonal to linear and quadratic drift within the block (`w·(0,1,2,3) = 0`,
//! `w·(0,1,4,9) = 0`), so a slow warm-up or thermal trend is not mistaken for carryover.
//!
//! The contrasts are tested against zero with the exact two-sided sign test (blocks with
//! `k = 0` dropped; `p = min(1, 2 P(X <= min(k+, k-)))`, `X ~ Binomial(n, 1/2)`), which
//! needs no distributional assumption and no special functions. The finding is
//!
//! - [`CarryoverFinding::NotDetected`] when `p >= alpha`;
//! - [`CarryoverFinding::PositionDominates`] when `p < alpha` and `|mean k|` is at least the
//!   mean version difference `|mean(variant 1) - mean(variant 0)|`: the data follow
//!   position more than version;
//! - [`CarryoverFinding::Detected`] otherwise (`p < alpha`, smaller than the version effect).
//!
//! Blocks that are incomplete, repeat a position, or are not in ABBA/BAAB order are skipped
//! and counted. With `n` usable blocks the smallest attainable p is `2^(1-n)`, so at least 6
//! blocks are needed to ever reach `alpha = 0.05`.
//!
//! # Back-to-back blocks: three quarters of the carryover
//! `abba compare` runs blocks back to back, and ABBA alternates with BAAB, so position 0 of
//! a block follows the other variant's last run of the previous block: positions 0, 1 and 3
//! follow the other variant, only position 2 follows its own. Write `l_A` for the extra
//! value of an `A` run right after `B` and `l_B` for the reverse. In an ABBA block
//! `y = (A + l_A, B + l_B, B, A + l_A)` and the contrast is `(-l_A + 3 l_B + l_A) / 4 =
//! 3 l_B / 4`; in a BAAB block it is `3 l_A / 4`. Over both kinds the mean contrast is
//! `3/4` of the mean carryover `(l_A + l_B) / 2`, against all of it when blocks are
//! separated (position 0 cold: `(3 l_B + l_A) / 4` and `(3 l_A + l_B) / 4`).
//! [`CarryoverConfig::join`] says which ([`BlockJoin`]); [`CarryoverReport::position_effect`]
//! divides the mean contrast by that share, so it estimates the carryover itself. The sign
//! test does not depend on the scale. When a reference run sits beside every variant run
//! (`R A B R R B A R`), positions 0 and 2 among the variants follow a reference run and
//! 1 and 3 the other variant: the contrast is that of separated blocks, and it measures
//! "after the other variant" against "after the reference".
//!
//! # Carryover that differs between the versions
//! ABBA cancels a carryover that is the same in both directions, not one that differs
//! (`l_A != l_B`, e.g. versions with different working sets). Averaged over ABBA and BAAB
//! blocks, the block mean difference `mean(B) - mean(A)` is off by `3 (l_B - l_A) / 4` back
//! to back and `(l_B - l_A) / 2` separated. The contrasts above tell the two apart: the
//! mean contrast of the ABBA blocks minus that of the BAAB blocks is `3 (l_B - l_A) / 4`
//! back to back and `(l_B - l_A) / 2` separated, the same multiple in both joins. So
//!
//! - [`DifferentialCarryover::version_bias`] = `mean k(ABBA) - mean k(BAAB)` estimates the
//!   bias of the version difference directly, whatever the join;
//! - [`DifferentialCarryover::estimate`] = `version_bias / share` estimates `l_B - l_A`
//!   (share `3/4` back to back, `1/2` separated);
//! - [`DifferentialCarryover::p_value`] is the two-sided Mann-Whitney test of the ABBA
//!   blocks' contrasts against the BAAB blocks' (no distributional assumption; both kinds
//!   see the same drift, which `k` ignores anyway), and `detected` is `p < alpha`.

use std::collections::BTreeMap;

use crate::StatsError;
use crate::descriptive::summary::mean;
use crate::rank::mann_whitney::{MannWhitneyConfig, mann_whitney_slices};

/// One run of an ABBA/BAAB experiment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CarryoverRun {
    /// 0 for the baseline, 1 for the candidate.
    pub variant: usize,
    /// Block index.
    pub block: u32,
    /// Position inside the block, 0..=3.
    pub position: u32,
    /// Measured value.
    pub value: f64,
}

/// Settings of [`carryover`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CarryoverConfig {
    /// Significance level of the sign test and of the differential test, in (0, 1).
    /// Default 0.05.
    pub alpha: f64,
    /// How consecutive blocks meet. Default [`BlockJoin::BackToBack`], as `abba compare`
    /// runs them.
    pub join: BlockJoin,
}

impl Default for CarryoverConfig {
    fn default() -> Self {
        CarryoverConfig {
            alpha: 0.05,
            join: BlockJoin::BackToBack,
        }
    }
}

/// How the runs of consecutive blocks meet (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum BlockJoin {
    /// Position 0 follows the previous block's last run, the other variant (ABBA then
    /// BAAB): the contrast sees 3/4 of the carryover.
    #[default]
    BackToBack,
    /// Position 0 follows no variant run (a pause, or a reference run beside every
    /// variant run): the contrast sees all of it.
    Separated,
}

impl BlockJoin {
    /// The mean contrast as a share of the mean carryover: 3/4 back to back, 1 separated.
    pub fn contrast_share(self) -> f64 {
        match self {
            BlockJoin::BackToBack => 0.75,
            BlockJoin::Separated => 1.0,
        }
    }

    /// The bias of the version difference as a share of `l_B - l_A` (equal to the ABBA
    /// minus BAAB contrast difference): 3/4 back to back, 1/2 separated.
    pub fn differential_share(self) -> f64 {
        match self {
            BlockJoin::BackToBack => 0.75,
            BlockJoin::Separated => 0.5,
        }
    }
}

/// Carryover that differs between the versions, from ABBA against BAAB blocks (see the
/// module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct DifferentialCarryover {
    /// Estimated `l_1 - l_0`: the extra value of a variant-1 run right after variant 0
    /// minus that of a variant-0 run right after variant 1.
    pub estimate: f64,
    /// Estimated bias of `mean(variant 1) - mean(variant 0)` this causes:
    /// `mean k(ABBA) - mean k(BAAB)`.
    pub version_bias: f64,
    /// Two-sided Mann-Whitney p of the ABBA blocks' contrasts against the BAAB blocks'.
    pub p_value: f64,
    /// `p_value < alpha`.
    pub detected: bool,
}

/// What the diagnostic concluded. See the module docs for the exact rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CarryoverFinding {
    /// No evidence of a position effect.
    NotDetected,
    /// A significant position effect, smaller than the version effect.
    Detected,
    /// A significant position effect at least as large as the version effect.
    PositionDominates,
}

/// The carryover diagnostic's result.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CarryoverReport {
    /// Complete ABBA/BAAB blocks used.
    pub blocks_used: usize,
    /// Blocks skipped (incomplete or not in ABBA/BAAB order).
    pub blocks_skipped: usize,
    /// Mean value of each variant at each position, `[variant][position]`; `None` where
    /// the variant never ran at that position.
    pub position_means: [[Option<f64>; 4]; 2],
    /// Per-block contrast `(-y0 + 3 y1 - 3 y2 + y3) / 4`, in block order.
    pub block_contrasts: Vec<f64>,
    /// The estimated extra value of a run that follows the other variant: the mean
    /// contrast divided by [`BlockJoin::contrast_share`] (back to back, the mean contrast
    /// is 3/4 of it).
    pub position_effect: f64,
    /// How the blocks were taken to meet.
    pub join: BlockJoin,
    /// Carryover that differs between the versions; `None` without 2 ABBA and 2 BAAB
    /// blocks (or when all their contrasts are equal).
    pub differential: Option<DifferentialCarryover>,
    /// Mean over blocks of `mean(variant 1) - mean(variant 0)`.
    pub version_effect: f64,
    /// Blocks with a positive contrast.
    pub positive: usize,
    /// Blocks with a negative contrast.
    pub negative: usize,
    /// Exact two-sided sign-test p-value of the contrasts.
    pub p_value: f64,
    /// The conclusion.
    pub finding: CarryoverFinding,
}

/// Runs the carryover diagnostic on the runs of a two-variant ABBA/BAAB experiment.
///
/// Time: O(r log r) for r runs.
///
/// # Errors
/// [`StatsError::InvalidParameter`] for `alpha` outside (0, 1) or a variant other than 0
/// or 1; [`StatsError::NonFinite`] for a NaN or infinite value (or a block contrast that
/// overflows); [`StatsError::TooFewSamples`] when fewer than 2 complete blocks remain.
///
/// # Examples
/// ```
/// use bench_stats::diagnostics::{carryover, BlockJoin, CarryoverConfig, CarryoverFinding, CarryoverRun};
/// // Version effect +10; every run right after the other variant reads 5 higher, blocks
/// // separated by a pause (position 0 starts cold).
/// let mut runs = Vec::new();
/// for block in 0..8u32 {
///     let order = if block % 2 == 0 { [0, 1, 1, 0] } else { [1, 0, 0, 1] };
///     for (position, &variant) in order.iter().enumerate() {
///         let carry = if position % 2 == 1 { 5.0 } else { 0.0 };
///         let value = 100.0 + 10.0 * variant as f64 + carry + 0.1 * block as f64;
///         runs.push(CarryoverRun { variant, block, position: position as u32, value });
///     }
/// }
/// let config = CarryoverConfig { join: BlockJoin::Separated, ..CarryoverConfig::default() };
/// let r = carryover(&runs, &config)?;
/// assert!((r.position_effect - 5.0).abs() < 1e-9);
/// assert_eq!(r.finding, CarryoverFinding::Detected);
/// # Ok::<(), bench_stats::StatsError>(())
/// ```
pub fn carryover(
    runs: &[CarryoverRun],
    config: &CarryoverConfig,
) -> Result<CarryoverReport, StatsError> {
    if !(config.alpha > 0.0 && config.alpha < 1.0) {
        return Err(StatsError::InvalidParameter {
            name: "alpha",
            value: config.alpha,
            reason: "must be strictly between 0 and 1",
        });
    }
    let mut by_block: BTreeMap<u32, Vec<CarryoverRun>> = BTreeMap::new();
    for run in runs {
        if run.variant > 1 {
            return Err(StatsError::InvalidParameter {
                name: "variant",
                value: run.variant as f64,
                reason: "the carryover diagnostic compares variants 0 and 1",
            });
        }
        if !run.value.is_finite() {
            return Err(StatsError::NonFinite {
                what: "carryover run value",
                value: run.value,
            });
        }
        by_block.entry(run.block).or_default().push(*run);
    }
    let mut sums = [[(0.0_f64, 0_usize); 4]; 2];
    let mut contrasts = Vec::new();
    // The variant at position 0 of each used block (0: ABBA, 1: BAAB).
    let mut first = Vec::new();
    let mut version = Vec::new();
    let mut skipped = 0;
    for block in by_block.values() {
        let Some(y) = abba_values(block) else {
            skipped += 1;
            continue;
        };
        let k = (-y[0].1 + 3.0 * y[1].1 - 3.0 * y[2].1 + y[3].1) / 4.0;
        if !k.is_finite() {
            return Err(StatsError::NonFinite {
                what: "carryover block contrast (overflows f64; rescale the data)",
                value: k,
            });
        }
        contrasts.push(k);
        first.push(y[0].0);
        // Variant of positions 0 and 3 vs that of positions 1 and 2.
        let outer = (y[0].1 + y[3].1) / 2.0;
        let inner = (y[1].1 + y[2].1) / 2.0;
        version.push(if y[0].0 == 1 {
            outer - inner
        } else {
            inner - outer
        });
        for (pos, &(v, value)) in y.iter().enumerate() {
            sums[v][pos].0 += value;
            sums[v][pos].1 += 1;
        }
    }
    if contrasts.len() < 2 {
        return Err(StatsError::TooFewSamples {
            what: "carryover complete ABBA/BAAB blocks",
            needed: 2,
            got: contrasts.len(),
        });
    }
    let position_means =
        sums.map(|row| row.map(|(s, c)| (c > 0).then(|| s / c as f64).filter(|v| v.is_finite())));
    let position_effect = mean(&contrasts) / config.join.contrast_share();
    let differential = differential(&contrasts, &first, config);
    let version_effect = mean(&version);
    let positive = contrasts.iter().filter(|&&k| k > 0.0).count();
    let negative = contrasts.iter().filter(|&&k| k < 0.0).count();
    let p_value = sign_test_p(positive, negative);
    let finding = if p_value >= config.alpha {
        CarryoverFinding::NotDetected
    } else if position_effect.abs() >= version_effect.abs() {
        CarryoverFinding::PositionDominates
    } else {
        CarryoverFinding::Detected
    };
    Ok(CarryoverReport {
        blocks_used: contrasts.len(),
        blocks_skipped: skipped,
        position_means,
        block_contrasts: contrasts,
        position_effect,
        join: config.join,
        differential,
        version_effect,
        positive,
        negative,
        p_value,
        finding,
    })
}

/// The ABBA-against-BAAB comparison of the contrasts `k` (`first[i]` the variant at
/// position 0 of block `i`).
fn differential(
    k: &[f64],
    first: &[usize],
    config: &CarryoverConfig,
) -> Option<DifferentialCarryover> {
    let of = |v: usize| -> Vec<f64> {
        k.iter()
            .zip(first)
            .filter(|(_, f)| **f == v)
            .map(|(k, _)| *k)
            .collect()
    };
    let (abba, baab) = (of(0), of(1));
    let test = mann_whitney_slices(&abba, &baab, &MannWhitneyConfig::default()).ok()?;
    let version_bias = mean(&abba) - mean(&baab);
    Some(DifferentialCarryover {
        estimate: version_bias / config.join.differential_share(),
        version_bias,
        p_value: test.p_value,
        detected: test.p_value < config.alpha,
    })
}

/// `(variant, value)` by position when `block` is a complete ABBA or BAAB block.
fn abba_values(block: &[CarryoverRun]) -> Option<[(usize, f64); 4]> {
    if block.len() != 4 {
        return None;
    }
    let mut y: [Option<(usize, f64)>; 4] = [None; 4];
    for run in block {
        let slot = y.get_mut(run.position as usize)?;
        if slot.is_some() {
            return None;
        }
        *slot = Some((run.variant, run.value));
    }
    let y = y.map(|s| s.unwrap_or((usize::MAX, 0.0)));
    let ok = y[0].0 == y[3].0 && y[1].0 == y[2].0 && y[0].0 != y[1].0 && y[0].0 <= 1 && y[1].0 <= 1;
    ok.then_some(y)
}

/// Exact two-sided sign test: `min(1, 2 P(X <= min(pos, neg)))`, `X ~ Bin(pos + neg, 1/2)`.
fn sign_test_p(positive: usize, negative: usize) -> f64 {
    let n = positive + negative;
    if n == 0 {
        return 1.0;
    }
    let m = positive.min(negative);
    // Sum the binomial terms in log space so large n cannot underflow 2^-n early.
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    let mut ln_term = ln_half_n; // ln C(n, 0) 2^-n
    let mut cdf = ln_term.exp();
    for i in 1..=m {
        ln_term += ((n - i + 1) as f64).ln() - (i as f64).ln();
        cdf += ln_term.exp();
    }
    (2.0 * cdf).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_test_matches_binomial() {
        // scipy.stats.binomtest(2, 12, 0.5).pvalue = 0.03857421875
        assert!((sign_test_p(2, 10) - 0.038_574_218_75).abs() < 1e-14);
        assert!((sign_test_p(0, 12) - 2.0 / 4096.0).abs() < 1e-16);
        assert_eq!(sign_test_p(6, 6), 1.0);
        assert_eq!(sign_test_p(0, 0), 1.0);
    }

    #[test]
    fn contrast_ignores_version_and_drift() {
        let mut runs = Vec::new();
        for block in 0..10u32 {
            let order = if block % 2 == 0 {
                [0, 1, 1, 0]
            } else {
                [1, 0, 0, 1]
            };
            for (pos, &variant) in order.iter().enumerate() {
                let t = pos as f64;
                // version +50, strong quadratic drift, no carryover
                let value = 1000.0 + 50.0 * variant as f64 + 7.0 * t + 2.0 * t * t;
                runs.push(CarryoverRun {
                    variant,
                    block,
                    position: pos as u32,
                    value,
                });
            }
        }
        let r = carryover(&runs, &CarryoverConfig::default()).unwrap();
        assert!(r.position_effect.abs() < 1e-9, "{}", r.position_effect);
        assert_eq!(r.finding, CarryoverFinding::NotDetected);
        assert!(r.version_effect > 40.0);
    }

    #[test]
    fn position_pattern_without_version_effect_dominates() {
        let mut runs = Vec::new();
        for block in 0..8u32 {
            let order = if block % 2 == 0 {
                [0, 1, 1, 0]
            } else {
                [1, 0, 0, 1]
            };
            for (pos, &variant) in order.iter().enumerate() {
                let carry = if pos % 2 == 1 { -3.0 } else { 0.0 };
                let noise = ((block * 4 + pos as u32) % 3) as f64 * 0.01;
                runs.push(CarryoverRun {
                    variant,
                    block,
                    position: pos as u32,
                    value: 10.0 + carry + noise,
                });
            }
        }
        // An incomplete block is skipped, not fatal.
        runs.push(CarryoverRun {
            variant: 0,
            block: 99,
            position: 0,
            value: 10.0,
        });
        let r = carryover(&runs, &CarryoverConfig::default()).unwrap();
        assert_eq!(r.blocks_used, 8);
        assert_eq!(r.blocks_skipped, 1);
        assert_eq!(r.finding, CarryoverFinding::PositionDominates);
        assert!(r.p_value < 0.01);
    }
}
