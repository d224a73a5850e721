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
//! Williams row, ...). A block touched by a disturbance is left out: one with a run more
//! than 3 robust SDs from its group's median at that position (the SD from the lower
//! quartile of those absolute residuals, so that a machine disturbing half of the blocks
//! does not set it). The kept blocks of a group are taken in pairs of neighbours, and each
//! pair's difference `e` (block minus block, position by position) takes out everything
//! the two share: the variant's effect, the position's, a carryover of the order, and the
//! block levels; no estimate shared by all blocks enters (one would move every block
//! alike). With `m` positions, `Q = Σ (e − ē)²`, `L1` the mean product of neighbours
//! (`|p − q| = 1`) and `L2` that of positions further apart,
//!
//! `u = (L1 − L2) / (Q / m)`.
//!
//! When the runs of a block are exchangeable (any distribution, any block level, any
//! fixed effect of variant, position or order), every order of `e`'s values is equally
//! likely, so `u` has mean 0 and a variance read exactly from those orders; positive
//! dependence between neighbours makes it positive (AR(1) noise of coefficient `φ` in
//! blocks of 4: about `φ − (2φ² + φ³) / 3` before centring). The pairs' `u` are summed and
//! divided by the root of their summed variances, and the one-sided normal p warns at
//! [`WITHIN_BLOCK_LEVEL`] (1%): a permutation test's normal approximation.
//! [`WithinBlockDependence::excess_lag1`] is `Σ (L1 − L2) / Σ (Q / m)`: how much more
//! neighbours are correlated than runs further apart in the same block.
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

/// A block with a residual beyond this many robust SDs (the lower quartile of the absolute
/// residuals over 0.3186) is left out of the check (see [`within_block_dependence`]).
const OUTLIER_SDS: f64 = 3.0;

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
/// positive and finite. Time: `O(N log N)` for `N` runs.
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
    // Centred logs of each block in position order, grouped by the order of variants.
    let mut groups: BTreeMap<Vec<usize>, Vec<Vec<f64>>> = BTreeMap::new();
    for mut b in blocks.into_values().filter(|b| b.len() >= 3) {
        b.sort_by_key(|r| r.0);
        if b.windows(2).any(|w| w[0].0 == w[1].0) {
            continue;
        }
        let mean = b.iter().map(|r| r.2).sum::<f64>() / b.len() as f64;
        let order: Vec<usize> = b.iter().map(|r| r.1).collect();
        groups
            .entry(order)
            .or_default()
            .push(b.iter().map(|r| r.2 - mean).collect());
    }
    let groups: Vec<Vec<Vec<f64>>> = groups.into_values().filter(|g| g.len() >= 2).collect();
    // First pass: residuals around each group's median at each position, which a
    // disturbed run cannot drag, and the SD of the undisturbed runs from the lower quarter
    // of their absolute values (|Z| of a normal is below 0.3186 a quarter of the time: on
    // a machine that disturbs half of the blocks, the median absolute residual is already
    // a disturbed one).
    let mut all: Vec<f64> = groups
        .iter()
        .flat_map(|g| residuals(g))
        .flatten()
        .map(f64::abs)
        .collect();
    if all.is_empty() {
        return None;
    }
    all.sort_by(f64::total_cmp);
    let robust_sd = crate::descriptive::summary::quantile_sorted(&all, 0.25) / 0.3186;
    // A block touched by a disturbance (a run beyond OUTLIER_SDS robust SDs) is left out,
    // and out of its group's means: what a burst or a pre-emption does to a few runs is
    // not the dependence of the typical run, and through the group's means it would move
    // every other block alike. The rule is invariant under a permutation of the positions,
    // so E[u] = 0 still holds for the blocks kept.
    let (mut sum, mut sum_var, mut num, mut den, mut pairs) = (0.0, 0.0, 0.0, 0.0, 0usize);
    for g in &groups {
        let keep: Vec<bool> = residuals(g)
            .iter()
            .map(|e| e.iter().all(|x| x.abs() <= OUTLIER_SDS * robust_sd))
            .collect();
        // Neighbouring kept blocks of the group in pairs: the difference of two blocks
        // of the same order takes out every fixed effect of variant, position and order
        // without an estimate that all blocks share (a shared estimate moves every
        // block's residuals alike, and the pairs' u would no longer be independent).
        let kept: Vec<&Vec<f64>> = g
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(b, _)| b)
            .collect();
        for pair in kept.chunks_exact(2) {
            let e: Vec<f64> = pair[0].iter().zip(pair[1]).map(|(a, b)| a - b).collect();
            let Some((stat, var, diff, scale)) = pair_statistic(&e) else {
                continue;
            };
            sum += stat;
            sum_var += var;
            num += diff;
            den += scale;
            pairs += 1;
        }
    }
    if pairs < WITHIN_MIN_PAIRS || sum_var.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let p_value = crate::special::normal_sf(sum / sum_var.sqrt());
    Some(WithinBlockDependence {
        blocks: 2 * pairs,
        excess_lag1: num / den,
        p_value,
        dependent: p_value <= WITHIN_BLOCK_LEVEL,
    })
}

/// The residuals of the blocks of one group: each block's centred logs less the group's
/// median at each position.
fn residuals(group: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let m = group.first().map_or(0, Vec::len);
    let at: Vec<f64> = (0..m)
        .map(|p| {
            let mut v: Vec<f64> = group.iter().map(|b| b[p]).collect();
            v.sort_by(f64::total_cmp);
            crate::descriptive::summary::quantile_sorted(&v, 0.5)
        })
        .collect();
    group
        .iter()
        .map(|b| b.iter().zip(&at).map(|(x, a)| x - a).collect())
        .collect()
}

/// `u` of the difference `e` of a pair of blocks (module docs), its variance over the
/// orders of `e`'s values (every order when `e` has up to 6 values, else 720 orders drawn
/// with a fixed seed), and the numerator and scale of `u`. Under exchangeable runs each
/// order of the values is as likely, so `u`'s mean is 0 and this its exact variance given
/// the values: the sum over pairs, divided by the root of the summed variances, is
/// compared with the normal (a conditional, permutation test's normal approximation).
fn pair_statistic(e: &[f64]) -> Option<(f64, f64, f64, f64)> {
    let u = |x: &[f64]| -> Option<(f64, f64, f64)> {
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
    };
    let (stat, diff, scale) = u(e)?;
    let mut x = e.to_vec();
    let (mut s2, mut n) = (0.0, 0usize);
    if x.len() <= 6 {
        // Heap's algorithm over every order.
        let mut c = vec![0usize; x.len()];
        s2 += u(&x)?.0.powi(2);
        n += 1;
        let mut i = 0;
        while i < x.len() {
            if c[i] < i {
                if i % 2 == 0 {
                    x.swap(0, i);
                } else {
                    x.swap(c[i], i);
                }
                s2 += u(&x)?.0.powi(2);
                n += 1;
                c[i] += 1;
                i = 0;
            } else {
                c[i] = 0;
                i += 1;
            }
        }
    } else {
        use rand::SeedableRng;
        use rand::seq::SliceRandom;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0x00ab_ba42);
        for _ in 0..720 {
            x.shuffle(&mut rng);
            s2 += u(&x)?.0.powi(2);
            n += 1;
        }
    }
    Some((stat, s2 / n as f64, diff, scale))
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
    fn block_levels_and_a_first_run_effect_warn_on_at_most_3_percent() {
        // Block levels 5x the run noise and a 3% slower first run of every block. The
        // nominal level is 1%; leaving disturbed blocks out costs exactness here: 9 of 400
        // (2.25%) fire (without that step 8 of 400, but disturbed machines fire on 22%).
        let reps = 400;
        let fired = (0..reps)
            .filter(|&s| {
                within_block_dependence(&abba(30, 0.05, 0.0, 0.03, s)).is_some_and(|d| d.dependent)
            })
            .count();
        assert!(fired <= 12, "fired on {fired} of {reps}");
    }

    #[test]
    fn ar1_noise_inside_blocks_is_found() {
        let found = (0..100)
            .filter(|&s| {
                within_block_dependence(&abba(60, 0.05, 0.8, 0.0, 1000 + s))
                    .is_some_and(|d| d.dependent && d.excess_lag1 > 0.1)
            })
            .count();
        // 58 of 100 at 60 blocks of 4 runs (1% level).
        assert!(found >= 45, "found in {found} of 100");
    }

    #[test]
    fn too_few_blocks_or_a_non_positive_run_read_nothing() {
        assert!(within_block_dependence(&abba(9, 0.05, 0.6, 0.0, 1)).is_none());
        let mut runs = abba(30, 0.05, 0.0, 0.0, 1);
        runs[5].value = 0.0;
        assert!(within_block_dependence(&runs).is_none());
    }
}
