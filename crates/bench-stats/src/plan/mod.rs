//! `abba plan`: how many blocks a question needs, before running it.
//!
//! From a pilot's block log-ratios (a raw file, or a long simulated run of a noise
//! profile), centred on their Hodges-Lehmann pseudo-median (the median of the Walsh
//! averages, the location the signed-rank test is about) so they stand for the noise
//! alone. Centred on the median instead, a skewed pilot keeps a pseudo-median off zero and
//! its resampled "no change" rejects more often than alpha: part of the predicted power
//! would be power against the pilot's own skew.
//!
//! - the **blocks needed** for a power (default 80%) to detect a change of a given size
//!   with the default fixed-sample verdict (the signed-rank test of the block
//!   log-ratios), and the **minimum detectable effect** of a given budget
//!   ([`power`](power::power), by resampling the pilot);
//! - the **expected blocks to a decision** under `--until decided` for no change, the
//!   margin, and twice and five times the margin ([`ExpectedStop`]);
//! - how many **runs per variant per block** pay off ([`RunsAdvice`], Kalibera and Jones's
//!   cost-ratio rule);
//! - how uncertain the blocks needed are: the pilot's blocks resampled
//!   [`PlanRequest::resamples`] times, each resample re-centred and planned again
//!   ([`BlocksRange`], its 10th and 90th percentiles: the percentile bootstrap, Efron and
//!   Tibshirani 1993, ch. 13), and a [`PilotWarning`] when the range is too wide to trust.
//!
//! Resampling treats blocks as independent draws from the pilot: a pilot of a dozen blocks
//! gives a rough plan (its tail is a dozen values), and a machine whose noise comes in
//! bursts longer than a block makes real blocks less independent than the plan assumes.

mod cost;
mod power;
mod sequential;

pub use cost::{RunsAdvice, runs_per_block};
pub use power::{
    SIMULATED_MAX_BLOCKS, blocks_for_power, minimum_detectable_effect, normal_power, power,
};
pub use sequential::{ExpectedStop, MIN_STOP_REPS, STOP_DRAW_BUDGET, expected_stop, stop_reps};

use rand::Rng;

use crate::rank::wilcoxon::paired_hl_estimate;
use crate::resample::bootstrap::{per_index, stream};
use crate::sequential::SequentialRule;

/// The percentiles of the resampled blocks needed that [`BlocksRange`] reports.
pub const RANGE_QUANTILES: [f64; 2] = [0.1, 0.9];

/// A pilot is too short to trust when the range's upper end exceeds the point plan by
/// more than this factor (see [`PilotWarning`]).
pub const WIDE_RANGE_FACTOR: f64 = 1.5;

/// What to plan for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlanRequest {
    /// The change to detect, relative (`0.05` = 5%). Default 0.05.
    pub effect: f64,
    /// The power wanted. Default 0.8.
    pub power: f64,
    /// Significance level. Default 0.05.
    pub alpha: f64,
    /// Equivalence margin of the sequential rule. Default 0.01.
    pub margin: f64,
    /// A budget in blocks for the minimum detectable effect, if any.
    pub budget_blocks: Option<usize>,
    /// Most blocks the search and the sequential rule consider. Default 200.
    pub max_blocks: u32,
    /// Resampled experiments per power estimate. Default 2000 (Monte Carlo SE <= 1.1
    /// points).
    pub reps: u32,
    /// Seed of the resampling. Default 1.
    pub seed: u64,
    /// Resamples of the pilot for the range of the blocks needed ([`BlocksRange`]); 0
    /// for none. Default 200.
    pub resamples: u32,
    /// Resampled experiments per power estimate inside each resample of the pilot.
    /// Default 200 (Monte Carlo SE 2.8 points at 80% power, which widens the range a
    /// little beyond the pilot's own uncertainty).
    pub resample_reps: u32,
}

impl Default for PlanRequest {
    fn default() -> Self {
        PlanRequest {
            effect: 0.05,
            power: 0.8,
            alpha: 0.05,
            margin: 0.01,
            budget_blocks: None,
            max_blocks: 200,
            reps: 2000,
            seed: 1,
            resamples: 200,
            resample_reps: 200,
        }
    }
}

/// The plan.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlanReport {
    /// Blocks in the pilot.
    pub pilot_blocks: usize,
    /// SD of the pilot's block log-ratios.
    pub sd: f64,
    /// Robust SD (IQR / 1.349) of the pilot's block log-ratios.
    pub robust_sd: f64,
    /// The change planned for (relative).
    pub effect: f64,
    /// The power wanted.
    pub power: f64,
    /// Significance level.
    pub alpha: f64,
    /// Blocks for that power against that change (fixed count); `None` beyond the limit.
    pub blocks_needed: Option<usize>,
    /// The budget in blocks the minimum detectable effect is for.
    pub budget_blocks: Option<usize>,
    /// Minimum detectable change with the budget at that power.
    pub minimum_detectable_effect: Option<f64>,
    /// Expected behaviour of `--until decided` at no change, the margin, 2x and 5x it.
    pub until_decided: Vec<ExpectedStop>,
    /// The sequential rule those figures assume.
    pub max_blocks: u32,
    /// Runs per variant per block (Kalibera and Jones), when the pilot has replicates.
    pub runs_per_block: Option<RunsAdvice>,
    /// The Hodges-Lehmann pseudo-median of the pilot's block log-ratios: what the plan
    /// subtracts so the pilot stands for the noise alone.
    pub centre: f64,
    /// The range of the blocks needed over resamples of the pilot; `None` when
    /// [`PlanRequest::resamples`] is 0 or the point plan found no count.
    pub blocks_needed_range: Option<BlocksRange>,
    /// Set when the pilot is too short to trust the blocks needed.
    pub pilot_warning: Option<PilotWarning>,
    /// The most blocks this pilot plans for ([`supported_blocks`]), set when the request
    /// asked for more: `max_blocks` and `budget_blocks` were cut to it. Absent in older
    /// plans.
    #[cfg_attr(feature = "serde", serde(default))]
    pub supported_blocks: Option<usize>,
}

/// How far the blocks needed move when the pilot is resampled: each of `resamples`
/// resamples draws the pilot's blocks with replacement, centres them on their own
/// Hodges-Lehmann pseudo-median and searches the blocks needed again (with `reps`
/// experiments per power estimate).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BlocksRange {
    /// The 10th percentile of the resampled blocks needed.
    pub low: usize,
    /// The 90th percentile; `None` when more than 10% of the resamples need more than
    /// `max_blocks`.
    pub high: Option<usize>,
    /// The percentiles `low` and `high` are ([`RANGE_QUANTILES`]).
    pub quantiles: [f64; 2],
    /// Share of resamples that need more than `max_blocks`.
    pub beyond_max: f64,
    /// Resamples of the pilot.
    pub resamples: u32,
    /// Experiments per power estimate inside a resample.
    pub reps: u32,
}

/// Why a pilot is too short to trust, and how long one would be.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PilotWarning {
    /// The range's upper end over the point plan; `None` when the upper end is beyond
    /// `max_blocks`.
    pub spread: Option<f64>,
    /// Pilot blocks that would bring the upper end within [`WIDE_RANGE_FACTOR`] of the
    /// point: the range's relative width shrinks as `1 / sqrt(pilot blocks)`, so
    /// `pilot_blocks * ((spread - 1) / (WIDE_RANGE_FACTOR - 1))^2`, rounded up to ten
    /// (with `max_blocks` for an upper end beyond the limit: a lower bound then).
    pub pilot_blocks_advised: usize,
}

/// The Hodges-Lehmann pseudo-median of the finite `log_ratios`: the median of their Walsh
/// averages `(x_i + x_j) / 2`, `i <= j` (Hodges and Lehmann 1963; more than
/// [`crate::rank::PAIRED_HL_MAX_DIFFERENCES`] values are stride-subsampled first, as
/// [`crate::rank::paired_hodges_lehmann`] does); 0 when there is no value. The plug-in
/// form over all ordered pairs was tried too: on an exponential pilot it holds the
/// resampled no change no closer to alpha (the test's own size moves off alpha under
/// skew). Time: O(n^2) expected.
pub fn pilot_centre(log_ratios: &[f64]) -> f64 {
    let v: Vec<f64> = log_ratios
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .collect();
    paired_hl_estimate(&v).unwrap_or(0.0)
}

/// The pilot's finite log-ratios centred on their pseudo-median ([`pilot_centre`]): the
/// noise alone, as the signed-rank test sees it (its "no change" is a pseudo-median of
/// 0), sorted. Time: O(n^2) expected.
pub fn centred_noise(log_ratios: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = log_ratios
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .collect();
    v.sort_by(f64::total_cmp);
    let centre = pilot_centre(&v);
    v.iter_mut().for_each(|x| *x -= centre);
    v
}

/// The range of the blocks needed over `req.resamples` resamples of the pilot (see
/// [`BlocksRange`]), each searched from the point plan `point`. Resample `i` draws its
/// blocks from its own stream of `req.seed`, so the range is the same on any number of
/// threads. Time: O(resamples * resample_reps * n log n * log n) for an answer near `n`.
pub fn blocks_needed_range(
    log_ratios: &[f64],
    point: usize,
    req: &PlanRequest,
) -> Option<BlocksRange> {
    let pilot: Vec<f64> = log_ratios
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .collect();
    if req.resamples == 0 || pilot.len() < 2 {
        return None;
    }
    let (min, max) = search_bounds(req);
    let needed: Vec<Option<usize>> = per_index(
        req.resamples,
        || Vec::with_capacity(pilot.len()),
        |resample: &mut Vec<f64>, i| {
            let mut rng = stream(req.seed ^ 0x706c_616e_5f62_6f6f, i);
            resample.clear();
            resample.extend((0..pilot.len()).map(|_| pilot[rng.random_range(0..pilot.len())]));
            let noise = centred_noise(resample);
            power::blocks_for_power_from(
                &noise,
                1.0 + req.effect,
                req.power,
                req.alpha,
                (min, point, max),
                req.resample_reps,
                req.seed,
            )
        },
    );
    let mut sorted: Vec<usize> = needed.iter().map(|n| n.unwrap_or(usize::MAX)).collect();
    sorted.sort_unstable();
    let at =
        |q: f64| sorted[((q * (sorted.len() - 1) as f64).round() as usize).min(sorted.len() - 1)];
    let beyond = needed.iter().filter(|n| n.is_none()).count();
    Some(BlocksRange {
        low: at(RANGE_QUANTILES[0]).min(max),
        high: Some(at(RANGE_QUANTILES[1])).filter(|&n| n != usize::MAX),
        quantiles: RANGE_QUANTILES,
        beyond_max: beyond as f64 / f64::from(req.resamples),
        resamples: req.resamples,
        reps: req.resample_reps,
    })
}

/// The warning for a pilot of `pilot_blocks` whose plan needs `point` blocks within
/// `range`: set when the range's upper end exceeds [`WIDE_RANGE_FACTOR`] times the point
/// (or lies beyond `max_blocks`).
pub fn pilot_warning(
    pilot_blocks: usize,
    point: usize,
    range: &BlocksRange,
    max_blocks: usize,
) -> Option<PilotWarning> {
    let point_f = point.max(1) as f64;
    let spread = range.high.map_or(f64::INFINITY, |h| h as f64 / point_f);
    if spread <= WIDE_RANGE_FACTOR {
        return None;
    }
    let bound = if spread.is_finite() {
        spread
    } else {
        (max_blocks as f64 / point_f).max(WIDE_RANGE_FACTOR)
    };
    let advised = pilot_blocks as f64 * ((bound - 1.0) / (WIDE_RANGE_FACTOR - 1.0)).powi(2);
    let advised = ((advised / 10.0).ceil() as usize * 10).max(pilot_blocks + 10);
    Some(PilotWarning {
        spread: Some(spread).filter(|s| s.is_finite()),
        pilot_blocks_advised: advised,
    })
}

/// The blocks needed for `req.power` against `req.effect` from a pilot's block
/// log-ratios (centred by [`centred_noise`]): the point plan of [`plan`], `None` beyond
/// `req.max_blocks`. Time: O(reps * max_blocks log max_blocks * log max_blocks).
pub fn blocks_needed(log_ratios: &[f64], req: &PlanRequest) -> Option<usize> {
    let noise = centred_noise(log_ratios);
    blocks_for_power(
        &noise,
        1.0 + req.effect,
        req.power,
        req.alpha,
        search_bounds(req),
        req.reps,
        req.seed,
    )
}

/// The fewest and most blocks the searches consider.
fn search_bounds(req: &PlanRequest) -> (usize, usize) {
    let min = crate::analysis::paired_verdict::min_paired_blocks(req.alpha);
    (min, req.max_blocks.max(min as u32) as usize)
}

fn spread(noise: &[f64]) -> (f64, f64) {
    let n = noise.len() as f64;
    if noise.len() < 2 {
        return (0.0, 0.0);
    }
    let mean = noise.iter().sum::<f64>() / n;
    let sd = (noise.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let q = |p: f64| noise[((p * (n - 1.0)).round() as usize).min(noise.len() - 1)];
    (sd, (q(0.75) - q(0.25)) / 1.349)
}

/// The whole plan from a pilot's block log-ratios (at least 2) and, when known, the runs
/// advice. Time: dominated by the power searches, O(reps * max_blocks log max_blocks *
/// log max_blocks), and the range's resamples ([`blocks_needed_range`]).
pub fn plan(log_ratios: &[f64], runs: Option<RunsAdvice>, req: &PlanRequest) -> PlanReport {
    let noise = centred_noise(log_ratios);
    // Beyond [`SIMULATED_MAX_BLOCKS`] the power is the normal approximation over the
    // pilot's few values, whose steps (a centred block at 0 turns positive at any shift)
    // make changes far below the pilot's resolution look detectable and the power not
    // grow with the blocks: a plan goes past that only as far as the pilot itself is long.
    let supported = supported_blocks(noise.len());
    let asked_more =
        req.max_blocks as usize > supported || req.budget_blocks.is_some_and(|b| b > supported);
    let req = &PlanRequest {
        max_blocks: req.max_blocks.min(supported as u32),
        budget_blocks: req.budget_blocks.map(|b| b.min(supported)),
        ..*req
    };
    let centre = pilot_centre(log_ratios);
    let (sd, robust_sd) = spread(&noise);
    let (_, max) = search_bounds(req);
    let blocks_needed = blocks_needed(log_ratios, req);
    let minimum_detectable_effect = req.budget_blocks.and_then(|n| {
        minimum_detectable_effect(&noise, n, req.power, req.alpha, req.reps, req.seed)
    });
    let rule = SequentialRule {
        max_blocks: max as u32,
        ..SequentialRule::new(req.alpha, req.margin)
    };
    let blocks_needed_range = blocks_needed.and_then(|n| blocks_needed_range(log_ratios, n, req));
    let pilot_warning = blocks_needed
        .zip(blocks_needed_range.as_ref())
        .and_then(|(n, range)| pilot_warning(noise.len(), n, range, max));
    let seq_reps = (req.reps / 4).max(100);
    let until_decided = [0.0, 1.0, 2.0, 5.0]
        .iter()
        .map(|k| expected_stop(&noise, 1.0 + k * req.margin, &rule, seq_reps, req.seed))
        .collect();
    PlanReport {
        pilot_blocks: noise.len(),
        sd,
        robust_sd,
        effect: req.effect,
        power: req.power,
        alpha: req.alpha,
        blocks_needed,
        budget_blocks: req.budget_blocks,
        minimum_detectable_effect,
        until_decided,
        max_blocks: max as u32,
        runs_per_block: runs,
        centre,
        blocks_needed_range,
        pilot_warning,
        supported_blocks: asked_more.then_some(supported),
    }
}

/// The most blocks a pilot of `pilot_blocks` blocks plans for: [`SIMULATED_MAX_BLOCKS`]
/// (resampled experiments), or the pilot's own length when it is longer (the normal
/// approximation of [`normal_power`] then rests on as many values as blocks planned).
///
/// # Examples
/// ```
/// use bench_stats::plan::supported_blocks;
/// assert_eq!(supported_blocks(8), 300);
/// assert_eq!(supported_blocks(2000), 2000);
/// ```
pub fn supported_blocks(pilot_blocks: usize) -> usize {
    SIMULATED_MAX_BLOCKS.max(pilot_blocks)
}

/// Sessions and blocks per session of a profile's simulated pilot: many short sessions,
/// as real experiments are, so the pilot's spread is a short experiment's.
#[cfg(feature = "sim")]
pub const PROFILE_PILOT: (u64, u32) = (100, 20);

/// A noise profile's pilot: [`PROFILE_PILOT`] simulated ABBA sessions of 50 ms commands
/// with no effect ([`crate::sim::abba_runs`]), their block log-ratios (through
/// [`crate::sequential::dataset_log_ratios`]) and per-block replicates `[baseline,
/// candidate]`. Time: O(sessions * blocks).
#[cfg(feature = "sim")]
pub fn profile_pilot(
    profile: crate::sim::NoiseProfile,
    seed: u64,
) -> (Vec<f64>, Vec<[Vec<f64>; 2]>) {
    use crate::sim::{abba_runs, series};
    let (sessions, blocks) = PROFILE_PILOT;
    let mut logs = Vec::new();
    let mut reps = Vec::new();
    for s in 0..sessions {
        let runs = abba_runs(
            &profile.config(),
            blocks,
            seed.wrapping_mul(1_000_003).wrapping_add(s),
        );
        let dataset = crate::Dataset::new(
            "ms",
            vec![series("A", &runs, 0, true), series("B", &runs, 1, true)],
        )
        .with_design(crate::Design::Abba);
        logs.extend(crate::sequential::dataset_log_ratios(&dataset, None).unwrap_or_default());
        let mut per: Vec<[Vec<f64>; 2]> = vec![[Vec::new(), Vec::new()]; blocks as usize];
        for &(v, b, _, x) in &runs {
            per[b as usize][v].push(x);
        }
        reps.extend(per);
    }
    (logs, reps)
}
