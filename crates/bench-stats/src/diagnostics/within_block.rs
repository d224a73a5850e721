//! Dependence between neighbouring runs that a blocked analysis does not remove.
//!
//! A blocked comparison takes each block's level out (pairing), so a stream whose blocks
//! differ (a session, a load phase, a slow drift) is not a problem for it, although the
//! stream's lag-1 autocorrelation ([`crate::diagnostics::iid_checks`]) counts that level
//! as dependence. What pairing leaves is dependence *inside* a block: a run that moves its
//! neighbour in the same block (AR(1) noise, a machine state that lasts a few runs).
//!
//! # The rule
//! Runs are read on the log scale in their blocks, in position order, less their block's
//! mean log. Blocks are grouped by their order of variants (`A B B A`, `B A A B`, a
//! Williams row, ...). A block touched by a disturbance is left out: one whose residuals
//! (around its group's median at each position) span more than [`WITHIN_BLOCK_SCREEN`]
//! robust SDs (the SD from the lower quartile of those absolute residuals, so that a
//! machine disturbing half of the blocks does not set it). The span, not the largest
//! residual, is what a burst of two or three slow runs cannot hide: centred on a mean they
//! raise, each of them sits only half the burst above it, while the span is the whole
//! burst. The kept blocks of a group are taken in pairs of neighbours, and each pair's
//! difference `e` (block minus block, position by position) takes out everything the two
//! share: the variant's effect, the position's, a carryover of the order, a drift that is
//! linear in time, and the block levels; no estimate shared by all blocks enters (one would
//! move every block alike). With `m` positions, `Q = Σ (e − ē)²`, `L1` the mean product of
//! neighbours (`|p − q| = 1`) and `L2` that of positions further apart,
//!
//! `u = (L1 − L2) / (Q / m)`.
//!
//! When the runs of a block are exchangeable (any distribution, any block level, any
//! fixed effect of variant, position or order), every order of `e`'s values is equally
//! likely, also among the pairs kept (a block's span depends on the order of its runs only
//! through its group's medians at each position, which are alike); positive
//! dependence between neighbours makes `u` positive (AR(1) noise of coefficient `φ` in
//! blocks of 4: about `φ − (2φ² + φ³) / 3`). The test is the permutation test of `Σ u`
//! over the pairs: each pair's values are put in orders drawn at random (from every order
//! of its `m` values up to 6 runs a block, else from 720 drawn orders), `Σ u` is recomputed
//! 1,999 times with a fixed seed, and the one-sided p is `(1 + #{Σ u* ≥ Σ u}) / 2,000`,
//! which is exact (no normal approximation) and warns at [`WITHIN_BLOCK_LEVEL`] (1%).
//! [`WithinBlockDependence::excess_lag1`] is `Σ (L1 − L2) / Σ (Q / m)`: how much more
//! neighbours are correlated than runs further apart in the same block.
//!
//! What it is not: a burst of slow runs is dependence too (a machine state that lasts a
//! few runs), and the bursts a block's span cannot tell from its noise stay in (on a
//! machine whose run noise is 8%, bursts of 15-40% of 2-6 runs: `cargo xtask
//! autocorrelation-grid`, docs/estimator-grid.md, gives the rates on each simulated
//! machine).
//!
//! The blocked tests use the block as their unit (signed-rank tests and bootstraps of
//! block values), so dependence inside blocks does not bias their error rates; it means
//! a block's runs carry less information than their number.

use std::collections::BTreeMap;

/// Fewest pairs of undisturbed blocks of 3 or more runs the check reads.
pub const WITHIN_MIN_PAIRS: usize = 8;

/// The one-sided level of the within-block check: the share of experiments whose runs are
/// exchangeable inside their blocks (whatever the blocks' levels) it warns on.
pub const WITHIN_BLOCK_LEVEL: f64 = 0.01;

/// A block whose residuals span more than this many robust SDs (the lower quartile of the
/// absolute residuals over 0.3186) is left out of the check (see the module docs).
pub const WITHIN_BLOCK_SCREEN: f64 = 4.0;

/// Random orders of the permutation test (its p is a multiple of 1 / (this + 1)).
const RESAMPLES: u32 = 1999;

/// Longest pair whose orders are tabulated (6! = 720); longer ones are shuffled afresh.
const MAX_ENUMERATED: usize = 6;

/// The settings of [`within_block_dependence_with`]: the level it warns at and the span
/// that leaves a block out. `WithinBlockConfig::default()` is what the analysis uses.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct WithinBlockConfig {
    /// One-sided level ([`WITHIN_BLOCK_LEVEL`]).
    pub level: f64,
    /// Largest span of a kept block's residuals, in robust SDs ([`WITHIN_BLOCK_SCREEN`]).
    pub screen: f64,
}

impl Default for WithinBlockConfig {
    fn default() -> Self {
        WithinBlockConfig {
            level: WITHIN_BLOCK_LEVEL,
            screen: WITHIN_BLOCK_SCREEN,
        }
    }
}

impl WithinBlockConfig {
    /// The same settings with the span `screen` (robust SDs) that leaves a block out.
    pub fn with_screen(self, screen: f64) -> Self {
        WithinBlockConfig { screen, ..self }
    }
}

/// The within-block dependence check's result (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct WithinBlockDependence {
    /// Blocks read (in pairs; disturbed ones left out).
    pub blocks: usize,
    /// How much more neighbouring runs of a block are correlated than its runs further
    /// apart, after the block's level and the effects of variant, position and order
    /// (0 for exchangeable runs).
    pub excess_lag1: f64,
    /// One-sided p of "neighbours no more correlated than runs further apart" (the
    /// permutation test of the module docs).
    pub p_value: f64,
    /// `p_value <= WITHIN_BLOCK_LEVEL`.
    pub dependent: bool,
}

/// One run of a blocked experiment, for [`within_block_dependence`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockedRun {
    /// Variant index (any numbering).
    pub variant: usize,
    /// Block id.
    pub block: u32,
    /// Position inside the block (run order; need not start at 0).
    pub position: u32,
    /// Measured value (positive).
    pub value: f64,
}

/// The within-block dependence check of the module docs on the runs of every variant of
/// a group.
///
/// `None` with fewer than [`WITHIN_MIN_PAIRS`] pairs of usable blocks (3 or more runs,
/// undisturbed, in a group of blocks with the same order of variants), or with a value that is not
/// positive and finite. Time: `O(N log N + 2000 P)` for `N` runs in `P` pairs of blocks.
///
/// # Examples
/// ```
/// use bench_stats::diagnostics::{BlockedRun, within_block_dependence};
/// // ABBA/BAAB blocks with very different levels and a 10% version effect, the runs of a
/// // block otherwise alike: nothing for the check to find.
/// let mut runs = Vec::new();
/// for block in 0..20u32 {
///     let level = 100.0 * (1.0 + 0.3 * f64::from(block % 5));
///     let order = if block % 2 == 0 { [0, 1, 1, 0] } else { [1, 0, 0, 1] };
///     for (p, &variant) in order.iter().enumerate() {
///         let wobble = [1.0, 1.01, 0.99, 1.0][(p + block as usize) % 4];
///         let value = level * wobble * if variant == 1 { 1.1 } else { 1.0 };
///         runs.push(BlockedRun { variant, block, position: p as u32, value });
///     }
/// }
/// let d = within_block_dependence(&runs).unwrap();
/// assert!(!d.dependent);
/// ```
pub fn within_block_dependence(runs: &[BlockedRun]) -> Option<WithinBlockDependence> {
    within_block_dependence_with(runs, &WithinBlockConfig::default())
}

/// [`within_block_dependence`] with the settings of `config` (the lab's grids vary the
/// screen; the analysis uses the default).
pub fn within_block_dependence_with(
    runs: &[BlockedRun],
    config: &WithinBlockConfig,
) -> Option<WithinBlockDependence> {
    let mut blocks: BTreeMap<u32, Vec<(u32, usize, f64)>> = BTreeMap::new();
    for r in runs {
        if !(r.value > 0.0 && r.value.is_finite()) {
            return None;
        }
        blocks
            .entry(r.block)
            .or_default()
            .push((r.position, r.variant, r.value.ln()));
    }
    // Logs of each block in position order, grouped by the order of variants (blocks in
    // the order of their ids).
    let mut groups: BTreeMap<Vec<usize>, Vec<Vec<f64>>> = BTreeMap::new();
    for mut b in blocks.into_values().filter(|b| b.len() >= 3) {
        b.sort_by_key(|r| r.0);
        if b.windows(2).any(|w| w[0].0 == w[1].0) {
            continue;
        }
        let order: Vec<usize> = b.iter().map(|r| r.1).collect();
        groups
            .entry(order)
            .or_default()
            .push(b.iter().map(|r| r.2).collect());
    }
    // Neighbouring blocks of a group in pairs, fixed by the design alone (not by the data):
    // the difference of two blocks of the same order takes out every fixed effect of
    // variant, position and order, a linear drift and both block levels, without an
    // estimate that all blocks share (a shared estimate moves every block alike, and the
    // pairs' u would no longer be independent).
    let pairs: Vec<Vec<f64>> = groups
        .values()
        .flat_map(|g| g.chunks_exact(2))
        .map(|pair| pair[0].iter().zip(&pair[1]).map(|(a, b)| a - b).collect())
        .collect();
    // The run noise's SD, from the lower quarter of every pair's deviations from its own
    // mean (|Z| of a normal is below 0.3186 a quarter of the time; on a machine that
    // disturbs half of the blocks the median deviation is already a disturbed one),
    // each scaled to one run (`e`'s values less their mean have variance
    // `2 σ² (1 − 1/m)`). A function of each pair's values whatever their order.
    let mut all: Vec<f64> = pairs
        .iter()
        .flat_map(|e| {
            let m = e.len() as f64;
            let mean = e.iter().sum::<f64>() / m;
            let unit = (2.0 * (1.0 - 1.0 / m)).sqrt();
            e.iter().map(move |v| (v - mean).abs() / unit)
        })
        .collect();
    if all.is_empty() {
        return None;
    }
    all.sort_by(f64::total_cmp);
    let robust_sd = crate::descriptive::summary::quantile_sorted(&all, 0.25) / 0.3186;
    // A pair touched by a disturbance (its difference spanning more than `screen` SDs of
    // a difference, `√2 σ`) is left out: what a burst or a pre-emption does to a few runs
    // is not the dependence of the typical run. The span does not depend on the order of
    // the pair's values, so leaving a pair out does not select orders: the test below
    // stays exact among the pairs kept.
    let limit = config.screen * std::f64::consts::SQRT_2 * robust_sd;
    let mut tables: Vec<Vec<f64>> = Vec::new();
    let mut long: Vec<Vec<f64>> = Vec::new();
    let (mut observed, mut num, mut den) = (0.0, 0.0, 0.0);
    for e in pairs.iter().filter(|e| span(e) <= limit) {
        let Some((stat, diff, scale)) = lag_statistic(e) else {
            continue;
        };
        observed += stat;
        num += diff;
        den += scale;
        if e.len() <= MAX_ENUMERATED {
            tables.push(order_table(e)?);
        } else {
            long.push(e.clone());
        }
    }
    let read = tables.len() + long.len();
    if read < WITHIN_MIN_PAIRS {
        return None;
    }
    let p_value = permutation_p(observed, &tables, &long);
    Some(WithinBlockDependence {
        blocks: 2 * read,
        excess_lag1: num / den,
        p_value,
        dependent: p_value <= config.level,
    })
}

/// Largest less smallest of `x`.
fn span(x: &[f64]) -> f64 {
    let hi = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lo = x.iter().copied().fold(f64::INFINITY, f64::min);
    hi - lo
}

/// The one-sided p of the permutation test: `Σ u` of random orders of each pair's values
/// (one entry of its [`order_table`] each, or a fresh random order of a longer pair's
/// values; fixed seed) against `observed`.
fn permutation_p(observed: f64, tables: &[Vec<f64>], long: &[Vec<f64>]) -> f64 {
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0x00ab_ba42);
    let mut scratch: Vec<Vec<f64>> = long.to_vec();
    // Ties (orders with the same u, such as a reversal, or tied values) count as reaching
    // the observed: the p never falls below the exact one.
    let tie = 1e-9 * (1.0 + observed.abs());
    let reached = (0..RESAMPLES)
        .filter(|_| {
            let mut drawn: f64 = tables.iter().map(|t| t[rng.random_range(0..t.len())]).sum();
            for x in &mut scratch {
                x.shuffle(&mut rng);
                drawn += lag_statistic(x).map_or(0.0, |s| s.0);
            }
            drawn >= observed - tie
        })
        .count();
    (1.0 + reached as f64) / (f64::from(RESAMPLES) + 1.0)
}

/// `u` of the difference `e` of a pair of blocks (module docs), with its numerator and
/// scale; `None` when `e`'s values are all equal.
fn lag_statistic(x: &[f64]) -> Option<(f64, f64, f64)> {
    let m = x.len();
    let mean = x.iter().sum::<f64>() / m as f64;
    let c: Vec<f64> = x.iter().map(|v| v - mean).collect();
    let q: f64 = c.iter().map(|v| v * v).sum();
    if !(q > 0.0 && q.is_finite()) {
        return None;
    }
    let (mut near, mut n_near, mut far, mut n_far) = (0.0, 0usize, 0.0, 0usize);
    for i in 0..m {
        for j in i + 1..m {
            if j == i + 1 {
                near += c[i] * c[j];
                n_near += 1;
            } else {
                far += c[i] * c[j];
                n_far += 1;
            }
        }
    }
    let diff = near / n_near as f64 - far / n_far as f64;
    let scale = q / m as f64;
    Some((diff / scale, diff, scale))
}

/// `u` of every order of `e`'s values (Heap's algorithm; the observed order among them),
/// for pairs of up to [`MAX_ENUMERATED`] values. Under exchangeable runs each is as likely
/// as the observed one.
fn order_table(e: &[f64]) -> Option<Vec<f64>> {
    let mut x = e.to_vec();
    let mut c = vec![0usize; x.len()];
    let mut table = vec![lag_statistic(&x)?.0];
    let mut i = 0;
    while i < x.len() {
        if c[i] < i {
            if i % 2 == 0 {
                x.swap(0, i);
            } else {
                x.swap(c[i], i);
            }
            table.push(lag_statistic(&x)?.0);
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// `blocks` ABBA/BAAB blocks, back to back; each block's log level drawn with SD
    /// `level_sd`, a fixed extra `first` on position 0, and noise with SD 1% that is an
    /// AR(1) of coefficient `phi` over the whole stream.
    fn abba(blocks: u32, level_sd: f64, phi: f64, first: f64, seed: u64) -> Vec<BlockedRun> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut normal = move || -> f64 {
            let u1: f64 = 1.0 - rng.random::<f64>();
            let u2: f64 = rng.random::<f64>();
            (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
        };
        let mut runs = Vec::new();
        let mut e = normal();
        for block in 0..blocks {
            let level = level_sd * normal();
            let order: [usize; 4] = if block % 2 == 0 {
                [0, 1, 1, 0]
            } else {
                [1, 0, 0, 1]
            };
            for (p, &variant) in order.iter().enumerate() {
                e = phi * e + (1.0 - phi * phi).sqrt() * normal();
                let fixed = if p == 0 { first } else { 0.0 };
                runs.push(BlockedRun {
                    variant,
                    block,
                    position: p as u32,
                    value: 100.0 * (level + fixed + 0.01 * e).exp(),
                });
            }
        }
        runs
    }

    #[test]
    fn block_levels_and_a_first_run_effect_warn_on_at_most_nominal_plus_2_se() {
        // Block levels 5x the run noise and a 3% slower first run of every block: the
        // runs of a block are exchangeable after the block's level and the position's
        // effect, so the exact test warns on about 1% (nominal + 2 MC SE at 400 is 2%).
        let reps = 400;
        let fired = (0..reps)
            .filter(|&s| {
                within_block_dependence(&abba(30, 0.05, 0.0, 0.03, s)).is_some_and(|d| d.dependent)
            })
            .count();
        assert!(fired <= 8, "fired on {fired} of {reps}");
    }

    #[test]
    fn ar1_noise_inside_blocks_is_found() {
        let found = (0..100)
            .filter(|&s| {
                within_block_dependence(&abba(60, 0.05, 0.8, 0.0, 1000 + s))
                    .is_some_and(|d| d.dependent && d.excess_lag1 > 0.1)
            })
            .count();
        // 58 of 100 before the span screen; the integration test's 6 seeded sessions of
        // the same kind find it in 3 since (a strong AR(1) moves some blocks' runs apart
        // enough to leave them out).
        assert!(found >= 30, "found in {found} of 100");
    }

    #[test]
    fn a_burst_of_slow_runs_inside_a_block_is_left_out_by_its_span() {
        // Every third block has its first two runs 20% slower (a burst of two runs; the
        // middle two would not do: their u is 0, a block of 4 being symmetric):
        // neighbours that move together, which the check does not count as the typical
        // run's dependence. The block's span (about 20% against run noise of 1%) is far
        // beyond 4 robust SDs, so it is left out. Read with every block kept, the same
        // runs warn.
        let mut left_out = 0;
        let mut warned_unscreened = 0;
        for seed in 0..20 {
            let mut runs = abba(60, 0.05, 0.0, 0.0, 2000 + seed);
            for r in &mut runs {
                if r.block % 3 == 0 && r.position < 2 {
                    r.value *= 1.2;
                }
            }
            let screened = within_block_dependence(&runs).expect("60 blocks");
            left_out += u32::from(!screened.dependent);
            let all = within_block_dependence_with(
                &runs,
                &WithinBlockConfig::default().with_screen(f64::INFINITY),
            )
            .expect("60 blocks");
            warned_unscreened += u32::from(all.dependent);
        }
        assert!(
            left_out >= 19,
            "screened check warned on {} of 20",
            20 - left_out
        );
        assert!(
            warned_unscreened >= 15,
            "unscreened check warned on {warned_unscreened} of 20"
        );
    }

    #[test]
    fn the_permutation_p_is_a_multiple_of_one_over_its_resamples_plus_one() {
        let d = within_block_dependence(&abba(40, 0.05, 0.0, 0.0, 7)).expect("40 blocks");
        let k = d.p_value * f64::from(RESAMPLES + 1);
        assert!(
            (k - k.round()).abs() < 1e-9 && k >= 1.0,
            "p = {}",
            d.p_value
        );
    }

    #[test]
    fn too_few_blocks_or_a_non_positive_run_read_nothing() {
        assert!(within_block_dependence(&abba(9, 0.05, 0.6, 0.0, 1)).is_none());
        let mut runs = abba(30, 0.05, 0.0, 0.0, 1);
        runs[5].value = 0.0;
        assert!(within_block_dependence(&runs).is_none());
    }
}
