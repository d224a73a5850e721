//! `abba plan`: how many blocks a question needs, before running it.
//!
//! From a pilot's block log-ratios (a raw file, or a long simulated run of a noise
//! profile), centred on their median so they stand for the noise alone:
//!
//! - the **blocks needed** for a power (default 80%) to detect a change of a given size
//!   with the default fixed-sample verdict (the signed-rank test of the block
//!   log-ratios), and the **minimum detectable effect** of a given budget
//!   ([`power`](power::power), by resampling the pilot);
//! - the **expected blocks to a decision** under `--until decided` for no change, the
//!   margin, and twice and five times the margin ([`ExpectedStop`]);
//! - how many **runs per variant per block** pay off ([`RunsAdvice`], Kalibera and Jones's
//!   cost-ratio rule).
//!
//! Resampling treats blocks as independent draws from the pilot: a pilot of a dozen blocks
//! gives a rough plan (its tail is a dozen values), and a machine whose noise comes in
//! bursts longer than a block makes real blocks less independent than the plan assumes.

mod cost;
mod power;
mod sequential;

pub use cost::{RunsAdvice, runs_per_block};
pub use power::{blocks_for_power, minimum_detectable_effect, power};
pub use sequential::{ExpectedStop, expected_stop};

use crate::sequential::SequentialRule;

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
}

/// The pilot's log-ratios centred on their median (the noise alone), sorted.
pub fn centred_noise(log_ratios: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = log_ratios
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .collect();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return v;
    }
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    };
    v.iter_mut().for_each(|x| *x -= median);
    v
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
/// log max_blocks).
pub fn plan(log_ratios: &[f64], runs: Option<RunsAdvice>, req: &PlanRequest) -> PlanReport {
    let noise = centred_noise(log_ratios);
    let (sd, robust_sd) = spread(&noise);
    let min = crate::analysis::paired_verdict::min_paired_blocks(req.alpha);
    let max = req.max_blocks.max(min as u32) as usize;
    let blocks_needed = blocks_for_power(
        &noise,
        1.0 + req.effect,
        req.power,
        req.alpha,
        (min, max),
        req.reps,
        req.seed,
    );
    let minimum_detectable_effect = req.budget_blocks.and_then(|n| {
        minimum_detectable_effect(&noise, n, req.power, req.alpha, req.reps, req.seed)
    });
    let rule = SequentialRule {
        max_blocks: max as u32,
        ..SequentialRule::new(req.alpha, req.margin)
    };
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
    }
}

/// Sessions and blocks per session of a profile's simulated pilot: many short sessions,
/// as real experiments are, so the pilot's spread is a short experiment's.
#[cfg(feature = "sim")]
pub const PROFILE_PILOT: (u64, u32) = (100, 20);

/// A noise profile's pilot: [`PROFILE_PILOT`] simulated ABBA sessions of 50 ms commands
/// with no effect, their block log-ratios (through [`crate::sequential::dataset_log_ratios`])
/// and per-block replicates `[baseline, candidate]`. Time: O(sessions * blocks).
#[cfg(feature = "sim")]
pub fn profile_pilot(
    profile: crate::sim::NoiseProfile,
    seed: u64,
) -> (Vec<f64>, Vec<[Vec<f64>; 2]>) {
    use crate::sim::{SimDesign, simulate};
    let (sessions, blocks) = PROFILE_PILOT;
    let mut logs = Vec::new();
    let mut reps = Vec::new();
    for s in 0..sessions {
        let e = simulate(
            &profile.config(),
            SimDesign::Abba,
            blocks,
            seed.wrapping_mul(1_000_003).wrapping_add(s),
        );
        logs.extend(crate::sequential::dataset_log_ratios(&e.dataset, None).unwrap_or_default());
        let mut per: Vec<[Vec<f64>; 2]> = vec![[Vec::new(), Vec::new()]; blocks as usize];
        for &(v, b, _, x) in &e.runs {
            per[b as usize][v].push(x);
        }
        reps.extend(per);
    }
    (logs, reps)
}
