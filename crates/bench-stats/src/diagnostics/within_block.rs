//! Dependence between neighbouring runs that a blocked analysis does not remove.
//!
//! A blocked comparison takes each block's level out (pairing), so a stream whose blocks
//! differ (a session, a load phase, a slow drift) is not a problem for it, although the
//! stream's lag-1 autocorrelation ([`crate::diagnostics::iid_checks`]) counts that level
//! as dependence. What pairing leaves is dependence *inside* a block: a run that moves its
//! neighbour in the same block (AR(1) noise, a machine state that lasts a few runs).
//!
//! # The rule
//! Runs are read on the log scale in their blocks, in position order. Blocks of 4 or more
//! runs are grouped by their order of variants (`A B B A`, `B A A B`, a Williams row,
//! ...), and neighbouring blocks of a group are taken in pairs (the pairing follows the
//! design, not the data). A pair's difference `e` (block minus block, position by
//! position) takes out everything the two blocks share: the variant's effect, the
//! position's, a carryover of the order and a drift that is linear in time; what is left
//! of the two block levels is one shift of all of `e`. With `m` positions, the nested
//! contrasts
//!
//! `D_j = e_j − e_{m−1−j}`, `j = 0 .. m/2 − 1`
//!
//! take the shift out, and each involves its own two positions. The statistic is the sum,
//! over the pairs, of the products of neighbouring contrasts `D_j D_{j+1}`, whose mean is
//! `4σ² (ρ_1 − ρ_{m−2j−2})` for runs of SD `σ` and correlation `ρ_k` at lag `k`: positive
//! when neighbours are more correlated than runs further apart, 0 when the runs of a
//! block are independent given its level.
//!
//! The test flips signs: when the runs of a block are independent given the block's level
//! and the fixed effects (any distribution, which may differ from position to position:
//! a coarse timer, integer counts, heavy tails), the contrasts are independent and each is
//! symmetric about 0, so every choice of their signs is equally likely whatever their
//! sizes. The signs are drawn at random 1,999 times (fixed seed), the sum recomputed, and
//! the one-sided p is `(1 + #{sum* ≥ sum}) / 2,000`, exact, with no normal approximation;
//! the check warns at [`WITHIN_BLOCK_LEVEL`] (1%). Exchangeable runs (the runs of a block
//! in any order) are one such case. [`WithinBlockDependence::excess_lag1`] is
//! `Σ D_j D_{j+1} / Σ (D_j² + D_{j+1}²) / 2`, about `ρ_1 − ρ_far`: how much more
//! neighbours are correlated than runs further apart in the same block.
//!
//! A contrast touched by a disturbance is set to 0: one beyond [`WITHIN_BLOCK_SCREEN`]
//! robust SDs of a run (the SD from the lower quartile of the contrasts' absolute values,
//! so that a machine disturbing half of the blocks does not set it). A burst of slow runs
//! at one end of a block moves two neighbouring contrasts together, which is dependence,
//! but not the dependence of the typical run: the extra runs of a block carry as much as
//! independent runs do on the simulated bursty machine (`cargo xtask
//! autocorrelation-grid --precision`, docs/estimator-grid.md). The screen reads sizes, not
//! signs, so it leaves the test exact. Blocks of 1 to 3 runs read nothing: two contrasts
//! free of the block level need 4 positions.
//!
//! The blocked tests use the block as their unit (signed-rank tests and bootstraps of
//! block values), so dependence inside blocks does not bias their error rates; it means
//! a block's runs can carry less information than their number.

use std::collections::BTreeMap;

/// Fewest pairs of blocks of 4 or more runs (each with two neighbouring contrasts kept)
/// the check reads.
pub const WITHIN_MIN_PAIRS: usize = 8;

/// The one-sided level of the within-block check: the share of experiments whose runs are
/// independent inside their blocks given the blocks' levels (whatever those levels) it
/// warns on.
pub const WITHIN_BLOCK_LEVEL: f64 = 0.01;

/// A contrast beyond this many robust SDs of a run is set to 0 (see the module docs).
pub const WITHIN_BLOCK_SCREEN: f64 = 2.5;

/// Random orders of the permutation test (its p is a multiple of 1 / (this + 1)).
const RESAMPLES: u32 = 1999;

/// The settings of [`within_block_dependence_with`]: the level it warns at and the size
/// beyond which a contrast is set to 0. `WithinBlockConfig::default()` is what the analysis uses.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct WithinBlockConfig {
    /// One-sided level ([`WITHIN_BLOCK_LEVEL`]).
    pub level: f64,
    /// Largest contrast of a kept pair of blocks, in robust SDs of one run
    /// ([`WITHIN_BLOCK_SCREEN`]).
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
    /// The same settings with the size `screen` (robust SDs of a run) beyond which a
    /// contrast is set to 0.
    pub fn with_screen(self, screen: f64) -> Self {
        WithinBlockConfig { screen, ..self }
    }
}

/// The within-block dependence check's result (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct WithinBlockDependence {
    /// Blocks read (in pairs; pairs with no two neighbouring contrasts kept left out).
    pub blocks: usize,
    /// How much more neighbouring runs of a block are correlated than its runs further
    /// apart, after the block's level and the effects of variant, position and order
    /// (0 for exchangeable runs).
    pub excess_lag1: f64,
    /// One-sided p of "neighbours no more correlated than runs further apart" (the
    /// sign-flip test of the module docs).
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
/// `None` with fewer than [`WITHIN_MIN_PAIRS`] pairs of usable blocks (4 or more runs, in
/// a group of blocks with the same order of variants, two neighbouring contrasts kept),
/// or with a value that is not positive and finite. Time: `O(N log N + 2000 N)` for `N`
/// runs.
///
/// # Examples
/// ```
/// use bench_stats::diagnostics::{BlockedRun, within_block_dependence};
/// use rand::SeedableRng;
/// // ABBA/BAAB blocks with very different levels and a 10% version effect, the runs of a
/// // block otherwise independent (noise of 1%): nothing for the check to find.
/// let session = |seed: u64| {
///     let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
///     let mut runs = Vec::new();
///     for block in 0..60u32 {
///         let level = 100.0 * (1.0 + 0.3 * f64::from(block % 5));
///         let order = if block % 2 == 0 { [0, 1, 1, 0] } else { [1, 0, 0, 1] };
///         for (p, &variant) in order.iter().enumerate() {
///             let noise = (0.01 * bench_stats::sim::normal(&mut rng)).exp();
///             let value = level * noise * if variant == 1 { 1.1 } else { 1.0 };
///             runs.push(BlockedRun { variant, block, position: p as u32, value });
///         }
///     }
///     runs
/// };
/// // A 1% test: on 50 such sessions it warns on about half of one.
/// let warned = (0..50)
///     .filter(|&s| within_block_dependence(&session(s)).unwrap().dependent)
///     .count();
/// assert!(warned <= 2, "{warned}");
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
    // Every run as (block, position, variant, log), in block then position order (a
    // stable sort: runs of one place keep their order of arrival).
    let mut logs: Vec<(u32, u32, usize, f64)> = Vec::with_capacity(runs.len());
    for r in runs {
        if !(r.value > 0.0 && r.value.is_finite()) {
            return None;
        }
        logs.push((r.block, r.position, r.variant, r.value.ln()));
    }
    if !logs.is_sorted_by_key(|r| (r.0, r.1)) {
        logs.sort_by_key(|r| (r.0, r.1));
    }
    // Each block's start in `logs`, grouped by the order of variants (blocks in the order
    // of their ids); a block of 3 or more runs at distinct positions.
    let mut groups: BTreeMap<Vec<usize>, Vec<usize>> = BTreeMap::new();
    let mut start = 0;
    for b in logs.chunk_by(|x, y| x.0 == y.0) {
        let at = start;
        start += b.len();
        if b.len() < 3 || b.windows(2).any(|w| w[0].1 == w[1].1) {
            continue;
        }
        let order: Vec<usize> = b.iter().map(|r| r.2).collect();
        groups.entry(order).or_default().push(at);
    }
    // Neighbouring blocks of a group in pairs, fixed by the design alone (not by the data):
    // the difference `e` of two blocks of the same order takes out every fixed effect of
    // variant, position and order, and a linear drift, without an estimate that all
    // blocks share; what is left of the block levels is one shift of all of `e`, which
    // the nested contrasts `D_j = e_j − e_{m−1−j}` take out. Each pair's `m / 2`
    // contrasts one after the other in `pairs`.
    let mut pairs = Contrasts::default();
    for (order, starts) in &groups {
        let m = order.len();
        if m < 4 {
            continue;
        }
        for pair in starts.chunks_exact(2) {
            let e = |j: usize| logs[pair[0] + j].3 - logs[pair[1] + j].3;
            pairs.push((0..m / 2).map(|j| e(j) - e(m - 1 - j)));
        }
    }
    drop(logs);
    // One run's SD from the lower quarter of the contrasts' nonzero absolute values (|Z| of
    // a normal is below 0.3186 a quarter of the time; on a machine that disturbs half of
    // the blocks the median is already a disturbed one; a contrast is a sum of four runs,
    // so its SD is twice a run's): a function of the contrasts' sizes, not of their signs.
    let mut sizes: Vec<f64> = pairs
        .values
        .iter()
        .map(|d| d.abs())
        .filter(|d| *d > 0.0)
        .collect();
    if sizes.is_empty() {
        return None;
    }
    sizes.sort_by(f64::total_cmp);
    let run_sd = crate::descriptive::summary::quantile_sorted(&sizes, 0.25) / 0.3186 / 2.0;
    drop(sizes);
    // A contrast touched by a disturbance (beyond `screen` run SDs) is set to 0, and with
    // it its products: what a burst or a pre-emption does to a few runs is not the
    // dependence of the typical run. The screen reads the contrasts' sizes only, so the
    // test stays exact. A pair is read when two neighbouring contrasts are kept.
    let limit = config.screen * run_sd;
    let mut kept = Contrasts::default();
    for d in pairs.iter() {
        let screened = d.iter().map(|&v| if v.abs() <= limit { v } else { 0.0 });
        let both = |w: &[f64]| w[0] != 0.0 && w[1] != 0.0;
        let mut row = [0.0f64; 8];
        if d.len() <= row.len() {
            for (r, v) in row.iter_mut().zip(screened) {
                *r = v;
            }
            if row[..d.len()].windows(2).any(both) {
                kept.push(row[..d.len()].iter().copied());
            }
        } else {
            let row: Vec<f64> = screened.collect();
            if row.windows(2).any(both) {
                kept.push(row.into_iter());
            }
        }
    }
    drop(pairs);
    if kept.len() < WITHIN_MIN_PAIRS {
        return None;
    }
    let (mut num, mut den) = (0.0, 0.0);
    for d in kept.iter() {
        for w in d.windows(2).filter(|w| w[0] != 0.0 && w[1] != 0.0) {
            num += w[0] * w[1];
            den += (w[0] * w[0] + w[1] * w[1]) / 2.0;
        }
    }
    let p_value = sign_flip_p(&kept);
    Some(WithinBlockDependence {
        blocks: 2 * kept.len(),
        excess_lag1: if den > 0.0 { num / den } else { 0.0 },
        p_value,
        dependent: p_value <= config.level,
    })
}

/// Each pair of blocks' contrasts, one pair after the other in one array.
#[derive(Default)]
struct Contrasts {
    values: Vec<f64>,
    /// Where each pair's contrasts end in `values`.
    ends: Vec<usize>,
}

impl Contrasts {
    fn push(&mut self, d: impl Iterator<Item = f64>) {
        self.values.extend(d);
        self.ends.push(self.values.len());
    }

    /// How many pairs.
    fn len(&self) -> usize {
        self.ends.len()
    }

    /// Each pair's contrasts, in order.
    fn iter(&self) -> impl Iterator<Item = &[f64]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(start, &end)| &self.values[start..end])
    }
}

/// `Σ` over the pairs of the products of neighbouring contrasts.
fn chain_sum(contrasts: &Contrasts) -> f64 {
    contrasts
        .iter()
        .map(|d| d.windows(2).map(|w| w[0] * w[1]).sum::<f64>())
        .sum()
}

/// The seed of the sign-flip test's stream.
const SIGN_SEED: u64 = 0x00ab_ba42;

/// Resamples evaluated as one piece: each piece starts where the one stream of signs
/// reaches its first resample ([`jumped`]), so the pieces can run on any number of
/// threads and count the same resamples reaching the observed sum.
const PIECE: u32 = 64;

/// Sign draws (one per contrast and resample) below which the test runs as one piece on
/// the calling thread (no jump): small checks, such as the lab's grids run by the
/// thousand.
const SERIAL_DRAWS: u64 = 1 << 22;

/// The one-sided p of the sign-flip test: the contrasts' signs drawn at random (1,999
/// times, fixed seed), [`chain_sum`] against the observed one; ties count as reaching it.
fn sign_flip_p(contrasts: &Contrasts) -> f64 {
    let observed = chain_sum(contrasts);
    // Relative to the products' own size: counts of a million vary by parts per million.
    let size: f64 = contrasts
        .iter()
        .map(|d| d.windows(2).map(|w| (w[0] * w[1]).abs()).sum::<f64>())
        .sum();
    let tie = 1e-9 * size;
    // Each resample draws one sign a contrast, pair by pair in order (the stream of a
    // flipped copy of every contrast: a sign is the top bit of one 64-bit draw, as
    // `Rng::random::<bool>` reads it), and sums each pair's flipped neighbour products in
    // the order `chain_sum` does: a sign flip is exact in floating point, so the sums are
    // those of the flipped copies, without copying them (a million runs are 125,000 pairs
    // and 1,999 resamples).
    let products: Vec<f64> = contrasts
        .iter()
        .flat_map(|d| d.windows(2).map(|w| w[0] * w[1]))
        .collect();
    let lens: Vec<usize> = contrasts.iter().map(<[f64]>::len).collect();
    let draws: u64 = lens.iter().map(|&l| l as u64).sum();
    let threshold = observed - tie;
    let count = |from: u32, to: u32| -> usize {
        let mut rng = jumped(u64::from(from) * draws);
        (from..to)
            .filter(|_| flipped_sum(&lens, &products, &mut rng) >= threshold)
            .count()
    };
    let reached = if draws * u64::from(RESAMPLES) < SERIAL_DRAWS {
        count(0, RESAMPLES)
    } else {
        let pieces: Vec<u32> = (0..RESAMPLES.div_ceil(PIECE)).collect();
        let piece = |&k: &u32| count(k * PIECE, ((k + 1) * PIECE).min(RESAMPLES));
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            pieces.par_iter().map(piece).sum::<usize>()
        }
        #[cfg(not(feature = "parallel"))]
        {
            pieces.iter().map(piece).sum::<usize>()
        }
    };
    (1.0 + reached as f64) / (f64::from(RESAMPLES) + 1.0)
}

/// One resample's [`chain_sum`] of the contrasts (of `lens` contrasts a pair, their
/// neighbour products `products` in order) with one sign drawn a contrast from `rng`.
fn flipped_sum(lens: &[usize], products: &[f64], rng: &mut impl rand::RngCore) -> f64 {
    let mut at = 0;
    lens.iter()
        .map(|&len| {
            if len == 0 {
                return 0.0;
            }
            let p = &products[at..at + len - 1];
            at += p.len();
            let mut previous = rng.next_u64() >> 63;
            p.iter()
                .map(|&p| {
                    let sign = rng.next_u64() >> 63;
                    let flip = previous ^ sign;
                    previous = sign;
                    // The sign bit flipped when the two signs differ: exactly `-p`.
                    f64::from_bits(p.to_bits() ^ (flip << 63))
                })
                .sum::<f64>()
        })
        .sum()
}

/// The sign-flip stream after `steps` draws, without drawing them.
fn jumped(steps: u64) -> rand_xoshiro::Xoshiro256PlusPlus {
    crate::resample::jump::xoshiro_after(SIGN_SEED, steps)
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
                    .is_some_and(|d| d.dependent && d.excess_lag1 > 0.05)
            })
            .count();
        // 12 of 100 with the sign-flip test and its screen (58 with the permutation test
        // before any screen, when bursts counted too); on A/A data it fires on about 1%,
        // so 8 or more of 100 by chance has a probability near 1e-4.
        assert!(found >= 8, "found in {found} of 100");
    }

    #[test]
    fn a_burst_of_slow_runs_at_the_start_of_a_block_is_screened_out() {
        // Every third block has its first two runs 20% slower (a burst of two runs):
        // neighbours that move together, which the check does not count as the typical
        // run's dependence. Both contrasts of such a pair (about 20% against run noise of
        // 1%) are far beyond the screen, so they are set to 0. Read with every contrast
        // kept, the same runs warn.
        let mut quiet = 0;
        let mut warned_unscreened = 0;
        for seed in 0..20 {
            let mut runs = abba(60, 0.05, 0.0, 0.0, 2000 + seed);
            for r in &mut runs {
                if r.block % 3 == 0 && r.position < 2 {
                    r.value *= 1.2;
                }
            }
            let screened = within_block_dependence(&runs).expect("60 blocks");
            quiet += u32::from(!screened.dependent);
            let all = within_block_dependence_with(
                &runs,
                &WithinBlockConfig::default().with_screen(f64::INFINITY),
            )
            .expect("60 blocks");
            warned_unscreened += u32::from(all.dependent);
        }
        assert!(quiet >= 19, "screened check warned on {} of 20", 20 - quiet);
        assert!(
            warned_unscreened >= 15,
            "unscreened check warned on {warned_unscreened} of 20"
        );
    }

    /// One A/A session of the audit's kind (issue 42): `blocks` blocks of `order` and its
    /// mirror, block log levels with SD 5%, the first run 3% slower and the second 1%, run
    /// noise of SD 1% that `value` turns into the recorded value (a timer, a count).
    fn audit(
        blocks: u32,
        order: &[usize],
        seed: u64,
        value: impl Fn(f64, &mut Xoshiro256PlusPlus) -> f64,
    ) -> Vec<BlockedRun> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut runs = Vec::new();
        for block in 0..blocks {
            let level = 0.05 * crate::sim::normal(&mut rng);
            for (p, &v) in order.iter().enumerate() {
                let fixed = [0.03, 0.01].get(p).copied().unwrap_or(0.0);
                let variant = if block % 2 == 0 { v } else { 1 - v };
                let z = crate::sim::normal(&mut rng);
                runs.push(BlockedRun {
                    variant,
                    block,
                    position: p as u32,
                    value: value(level + fixed + 0.01 * z, &mut rng),
                });
            }
        }
        runs
    }

    fn fired(sessions: impl Fn(u64) -> Vec<BlockedRun>) -> usize {
        (0..400)
            .filter(|&s| within_block_dependence(&sessions(5000 + s)).is_some_and(|d| d.dependent))
            .count()
    }

    #[test]
    fn a_coarse_timer_with_position_effects_holds_the_level() {
        // A timer tick of 3 noise SDs: most runs of a block tie, and how much a position's
        // runs vary depends on where its fixed effect falls between two ticks, so the runs
        // of a block are independent but not exchangeable (the permutation test of each
        // pair's values fired on 5% of 100 such sessions). Nominal + 2 MC SE at 400 is 2%.
        let k = fired(|s| {
            audit(30, &[0, 1, 1, 0], s, |log, _| {
                (1000.0 * log.exp() / 30.0).round() * 30.0
            })
        });
        assert!(k <= 8, "fired on {k} of 400");
    }

    #[test]
    fn integer_counts_and_heavy_tails_in_blocks_of_8_hold_the_level() {
        let order = [0, 1, 1, 0, 1, 0, 0, 1];
        let counts = fired(|s| {
            audit(30, &order, s, |log, rng| {
                let base = (1.0e6 * (1.0 + log)).round();
                base + f64::from(rng.random_range(0..4u8))
            })
        });
        assert!(counts <= 8, "counts fired on {counts} of 400");
        let t3 = fired(|s| {
            audit(30, &order, s, |log, rng| {
                let chi2: f64 = (0..3).map(|_| crate::sim::normal(rng).powi(2)).sum();
                1000.0 * (log + 0.02 * crate::sim::normal(rng) / (chi2 / 3.0).sqrt()).exp()
            })
        });
        assert!(t3 <= 8, "t3 fired on {t3} of 400");
    }

    #[test]
    fn blocks_of_three_runs_or_fewer_read_nothing() {
        for order in [&[0usize][..], &[0, 1], &[0, 1, 0]] {
            let runs = audit(60, order, 1, |log, _| 1000.0 * log.exp());
            assert!(within_block_dependence(&runs).is_none(), "{order:?}");
        }
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

    /// Pairs of contrasts as [`Contrasts`].
    fn flat(pairs: &[Vec<f64>]) -> Contrasts {
        let mut out = Contrasts::default();
        for d in pairs {
            out.push(d.iter().copied());
        }
        out
    }

    /// The check as first written (a map of blocks, a list a block and a pair): the
    /// reference of [`within_block_dependence_with`]'s flat arrays.
    fn within_block_by_maps(
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
        // the difference `e` of two blocks of the same order takes out every fixed effect of
        // variant, position and order, and a linear drift, without an estimate that all
        // blocks share; what is left of the block levels is one shift of all of `e`, which
        // the nested contrasts `D_j = e_j − e_{m−1−j}` take out.
        let pairs: Vec<Vec<f64>> = groups
            .values()
            .flat_map(|g| g.chunks_exact(2))
            .filter(|pair| pair[0].len() >= 4)
            .map(|pair| {
                let e: Vec<f64> = pair[0].iter().zip(&pair[1]).map(|(a, b)| a - b).collect();
                let m = e.len();
                (0..m / 2).map(|j| e[j] - e[m - 1 - j]).collect()
            })
            .collect();
        // One run's SD from the lower quarter of the contrasts' nonzero absolute values (|Z| of
        // a normal is below 0.3186 a quarter of the time; on a machine that disturbs half of
        // the blocks the median is already a disturbed one; a contrast is a sum of four runs,
        // so its SD is twice a run's): a function of the contrasts' sizes, not of their signs.
        let mut sizes: Vec<f64> = pairs
            .iter()
            .flatten()
            .map(|d| d.abs())
            .filter(|d| *d > 0.0)
            .collect();
        if sizes.is_empty() {
            return None;
        }
        sizes.sort_by(f64::total_cmp);
        let run_sd = crate::descriptive::summary::quantile_sorted(&sizes, 0.25) / 0.3186 / 2.0;
        // A contrast touched by a disturbance (beyond `screen` run SDs) is set to 0, and with
        // it its products: what a burst or a pre-emption does to a few runs is not the
        // dependence of the typical run. The screen reads the contrasts' sizes only, so the
        // test stays exact. A pair is read when two neighbouring contrasts are kept.
        let limit = config.screen * run_sd;
        let kept: Vec<Vec<f64>> = pairs
            .into_iter()
            .map(|d| {
                d.into_iter()
                    .map(|v| if v.abs() <= limit { v } else { 0.0 })
                    .collect::<Vec<f64>>()
            })
            .filter(|d| d.windows(2).any(|w| w[0] != 0.0 && w[1] != 0.0))
            .collect();
        if kept.len() < WITHIN_MIN_PAIRS {
            return None;
        }
        let (mut num, mut den) = (0.0, 0.0);
        for d in &kept {
            for w in d.windows(2).filter(|w| w[0] != 0.0 && w[1] != 0.0) {
                num += w[0] * w[1];
                den += (w[0] * w[0] + w[1] * w[1]) / 2.0;
            }
        }
        let p_value = sign_flip_p(&flat(&kept));
        Some(WithinBlockDependence {
            blocks: 2 * kept.len(),
            excess_lag1: if den > 0.0 { num / den } else { 0.0 },
            p_value,
            dependent: p_value <= config.level,
        })
    }

    #[test]
    fn the_flat_arrays_give_the_numbers_of_the_maps() {
        let config = WithinBlockConfig::default();
        let mut cases = vec![
            abba(40, 0.05, 0.0, 0.03, 1),
            abba(60, 0.05, 0.8, 0.0, 2),
            abba(9, 0.05, 0.6, 0.0, 3),
        ];
        // Runs out of order, a block with two runs at one place, a block of 3 runs, and
        // blocks of 6 runs in two orders.
        let mut shuffled = abba(50, 0.02, 0.3, 0.0, 4);
        shuffled.reverse();
        shuffled.swap(3, 77);
        shuffled[10].position = shuffled[11].position;
        shuffled.retain(|r| !(r.block == 7 && r.position == 2));
        cases.push(shuffled);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let six: Vec<BlockedRun> = (0..80u32)
            .flat_map(|block| {
                let order: [usize; 6] = if block % 3 == 0 {
                    [0, 1, 1, 0, 0, 1]
                } else {
                    [1, 0, 0, 1, 1, 0]
                };
                let level = 1.0 + 0.1 * f64::from(block % 7);
                let noise: Vec<f64> = (0..6).map(|_| rng.random::<f64>()).collect();
                (0..6).map(move |p| BlockedRun {
                    variant: order[p],
                    block,
                    position: p as u32,
                    value: level * (1.0 + 0.02 * noise[p]),
                })
            })
            .collect();
        cases.push(six);
        for (i, runs) in cases.iter().enumerate() {
            for screen in [WITHIN_BLOCK_SCREEN, 1.0, 100.0] {
                let config = config.with_screen(screen);
                assert_eq!(
                    within_block_dependence_with(runs, &config),
                    within_block_by_maps(runs, &config),
                    "case {i} screen {screen}"
                );
            }
        }
    }

    /// The sign-flip p as it was first written: one `random::<bool>()` a contrast, a
    /// flipped copy's chain sum, on one thread.
    fn sign_flip_p_by_copies(contrasts: &[Vec<f64>]) -> f64 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(SIGN_SEED);
        let observed = chain_sum(&flat(contrasts));
        let size: f64 = contrasts
            .iter()
            .map(|d| d.windows(2).map(|w| (w[0] * w[1]).abs()).sum::<f64>())
            .sum();
        let reached = (0..RESAMPLES)
            .filter(|_| {
                let flipped: Vec<Vec<f64>> = contrasts
                    .iter()
                    .map(|d| {
                        d.iter()
                            .map(|&v| if rng.random::<bool>() { -v } else { v })
                            .collect()
                    })
                    .collect();
                chain_sum(&flat(&flipped)) >= observed - 1e-9 * size
            })
            .count();
        (1.0 + reached as f64) / (f64::from(RESAMPLES) + 1.0)
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn the_p_is_that_of_flipped_copies_in_pieces_on_any_number_of_threads() {
        // Pairs of 2 and 3 contrasts (blocks of 4 and 6 runs), some set to 0, enough of
        // them that the resamples run in pieces.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let contrasts: Vec<Vec<f64>> = (0..1200)
            .map(|i| {
                let len = if i % 3 == 0 { 3 } else { 2 };
                (0..len)
                    .map(|j| {
                        let z = crate::sim::normal(&mut rng);
                        if (i + j) % 17 == 0 { 0.0 } else { z + 0.05 }
                    })
                    .collect()
            })
            .collect();
        let draws: u64 = contrasts.iter().map(|d| d.len() as u64).sum();
        assert!(draws * u64::from(RESAMPLES) >= SERIAL_DRAWS);
        let expected = sign_flip_p_by_copies(&contrasts);
        assert!(expected > 0.001 && expected < 0.999, "{expected}");
        for threads in [1, 2, 3] {
            let p = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| sign_flip_p(&flat(&contrasts)));
            assert_eq!(p, expected, "{threads} threads");
        }
        // Below the size that runs in pieces.
        let few = &contrasts[..100];
        assert_eq!(sign_flip_p(&flat(few)), sign_flip_p_by_copies(few));
    }

    #[test]
    fn too_few_blocks_or_a_non_positive_run_read_nothing() {
        assert!(within_block_dependence(&abba(9, 0.05, 0.6, 0.0, 1)).is_none());
        let mut runs = abba(30, 0.05, 0.0, 0.0, 1);
        runs[5].value = 0.0;
        assert!(within_block_dependence(&runs).is_none());
    }
}
