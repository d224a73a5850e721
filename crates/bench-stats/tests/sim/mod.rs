//! A seeded simulator of benchmark sessions on a noisy shared machine.
//!
//! The model is the variance-components model of the pairing/blocking notes, with the
//! features the issue measured on a 2-vCPU shared VM running a 50 ms command:
//!
//! - a **session level** `exp(sigma_b * z)` common to every run of one session (the
//!   frequency governor, the tenants next door);
//! - a **slow drift** within the session, `exp(slope * t)` with a per-session random slope;
//! - **run-level noise** `exp(sigma_w * z)`: lognormal, so right-skewed;
//! - **bursty slowdowns**: a two-state (fast/slow) process; a burst lasts 2 to 6 runs
//!   (100-300 ms of a 50 ms command) and one run in five is slow; a slow run takes
//!   15-40 % longer. This makes the run-time distribution bimodal;
//! - **spikes**: a rare pre-emption adds 50-250 %, the heavy right tail;
//! - **carryover**: a run that immediately follows the other variant inside a block is
//!   `carryover` (a fraction) faster. Blocks are separated by the harness's bookkeeping, so
//!   the first run of a block starts cold: the advantage belongs to the second position;
//! - the **true effect**: every run of the candidate `B` is `effect` times what `A`'s
//!   would be.
//!
//! Calibration of [`SimConfig::default`] against the measurements (re-checked by
//! `simulator_reproduces_the_measured_machine`): `sigma_b = 2 %` plus the run noise left in
//! a session's median make the typical run time move ~4 % between sessions; `sigma_w = 8 %`
//! makes Mann-Whitney on sequential 15 + 15 runs flag ~18 % of identical pairs (measured
//! 19 %); spikes on 2.5 % of runs bring the per-run SD to ~23-24 % of the mean.
//!
//! Designs: ABBA/BAAB blocks (positions recorded), strict AB alternation (AB in every
//! block) and sequential sessions (all of `A` in one session, then all of `B` in another
//! with its own session level, drift and burst history).

use bench_stats::{Dataset, Observation, Series};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Parameters of the noise model. `Default` is the machine the issue measured: mean 50 ms,
/// `sigma_b` 0.02, `sigma_w` 0.08, drift slope SD 0.0002 per run, bursts of 2-6 runs
/// starting after a fast run with probability 1/16 (a fifth of runs slow) adding 15-40 %,
/// spikes on 2.5 % of runs adding 50-250 %, carryover 1 %, no effect.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimConfig {
    /// Typical (noise-free) run time of `A`, in ms.
    pub mean: f64,
    /// SD of the log session level (between sessions).
    pub sigma_b: f64,
    /// SD of the lognormal run-level noise (within a session).
    pub sigma_w: f64,
    /// SD of the per-session drift slope, in log units per run.
    pub drift_sd_per_run: f64,
    /// Probability that a fast run is followed by the start of a burst.
    pub burst_start: f64,
    /// Shortest and longest burst, in runs (uniform).
    pub burst_len: (u32, u32),
    /// Extra time of a slow run, as a fraction (uniform in the range).
    pub burst_extra: (f64, f64),
    /// Probability of a spike on any run.
    pub spike_prob: f64,
    /// Extra time of a spike, as a fraction (uniform in the range).
    pub spike_extra: (f64, f64),
    /// Fraction by which a run right after the other variant (same block) is faster.
    pub carryover: f64,
    /// True ratio `B / A`.
    pub effect: f64,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            mean: 50.0,
            sigma_b: 0.02,
            sigma_w: 0.08,
            drift_sd_per_run: 0.0002,
            // Mean burst length 4 runs; fraction slow = 4 / (4 + 1 / p) = 0.2.
            burst_start: 1.0 / 16.0,
            burst_len: (2, 6),
            burst_extra: (0.15, 0.40),
            spike_prob: 0.025,
            spike_extra: (0.5, 2.5),
            carryover: 0.01,
            effect: 1.0,
        }
    }
}

impl SimConfig {
    /// A quieter shared VM, after the re-fitted description in the power issue: about 2%
    /// spread inside the main mode, one run in five slowed by 15-40% in bursts of 1-3
    /// runs, 2% session-to-session shift, rare 1.5-2x spikes. Its fit to the recorded
    /// figures is not checked here (that is the power issue's work); it stands for the
    /// less noisy machines users also have.
    pub fn shared_vm() -> Self {
        SimConfig {
            sigma_w: 0.02,
            // Mean burst length 2 runs; fraction slow = 2 / (2 + 1 / p) = 0.2.
            burst_start: 0.125,
            burst_len: (1, 3),
            spike_prob: 0.02,
            spike_extra: (0.5, 1.0),
            ..SimConfig::default()
        }
    }

    /// The same machine with true ratio `effect`.
    pub fn with_effect(self, effect: f64) -> Self {
        SimConfig { effect, ..self }
    }

    /// The same machine with a carryover advantage `carryover`.
    pub fn with_carryover(self, carryover: f64) -> Self {
        SimConfig { carryover, ..self }
    }

    /// Expected multiplier of one run from the run-level noise, bursts and spikes
    /// (stationary), not counting session level, drift and carryover.
    pub fn noise_mean(&self) -> f64 {
        let lognormal = (self.sigma_w * self.sigma_w / 2.0).exp();
        let mean_len = f64::from(self.burst_len.0 + self.burst_len.1) / 2.0;
        let slow = mean_len / (mean_len + 1.0 / self.burst_start);
        let burst = 1.0 + slow * (self.burst_extra.0 + self.burst_extra.1) / 2.0;
        let spike = 1.0 + self.spike_prob * (self.spike_extra.0 + self.spike_extra.1) / 2.0;
        lognormal * burst * spike
    }
}

/// Run-order designs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    /// ABBA on even blocks, BAAB on odd ones.
    Abba,
    /// AB in every block.
    Alternating,
    /// All of `A` (one session), then all of `B` (another session).
    Sequential,
}

impl Design {
    fn name(self) -> &'static str {
        match self {
            Design::Abba => "abba",
            Design::Alternating => "alternating",
            Design::Sequential => "sequential",
        }
    }
}

/// One simulated experiment.
#[derive(Debug, Clone)]
pub struct Experiment {
    /// The data, as abba would record it: series `A` (baseline) then `B`.
    pub dataset: Dataset,
    /// Per-block `[A, B]` means (empty for the sequential design).
    pub block_means: Vec<[f64; 2]>,
    /// Every run in order: `(variant, block, position, value)`.
    pub runs: Vec<(usize, u32, u32, f64)>,
    /// Per block, the expected difference of the block means `B - A` given this session's
    /// level and drift (the estimand of the mean difference; NaN for sequential data).
    pub block_truth: Vec<f64>,
}

fn normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    // Box-Muller; 1 - u keeps the logarithm finite.
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn uniform(rng: &mut Xoshiro256PlusPlus, (lo, hi): (f64, f64)) -> f64 {
    lo + (hi - lo) * rng.random::<f64>()
}

/// The state of one session: its level, drift, burst process and run counter.
struct Session {
    level: f64,
    slope: f64,
    t: u32,
    slow_left: u32,
}

impl Session {
    fn start(cfg: &SimConfig, rng: &mut Xoshiro256PlusPlus) -> Self {
        let level = cfg.mean * (cfg.sigma_b * normal(rng)).exp();
        let slope = cfg.drift_sd_per_run * normal(rng);
        let mean_len = f64::from(cfg.burst_len.0 + cfg.burst_len.1) / 2.0;
        let slow = mean_len / (mean_len + 1.0 / cfg.burst_start);
        // Start in the stationary state: inside a burst with probability `slow`.
        let slow_left = if rng.random::<f64>() < slow {
            rng.random_range(1..=cfg.burst_len.1)
        } else {
            0
        };
        Session {
            level,
            slope,
            t: 0,
            slow_left,
        }
    }

    /// The expected value of a run at time `t` (before noise, carryover and effect).
    fn expected(&self, cfg: &SimConfig, t: u32) -> f64 {
        self.level * (self.slope * f64::from(t)).exp() * cfg.noise_mean()
    }

    /// One run of `variant` (0 = A, 1 = B); `carried` when it follows the other variant
    /// inside the block.
    fn run(
        &mut self,
        cfg: &SimConfig,
        rng: &mut Xoshiro256PlusPlus,
        variant: usize,
        carried: bool,
    ) -> f64 {
        let mut v = self.level * (self.slope * f64::from(self.t)).exp();
        v *= (cfg.sigma_w * normal(rng)).exp();
        if self.slow_left > 0 {
            v *= 1.0 + uniform(rng, cfg.burst_extra);
            self.slow_left -= 1;
        } else if rng.random::<f64>() < cfg.burst_start {
            // The burst starts with the next run.
            self.slow_left = rng.random_range(cfg.burst_len.0..=cfg.burst_len.1);
        }
        if rng.random::<f64>() < cfg.spike_prob {
            v *= 1.0 + uniform(rng, cfg.spike_extra);
        }
        if carried {
            v *= 1.0 - cfg.carryover;
        }
        if variant == 1 {
            v *= cfg.effect;
        }
        self.t += 1;
        v
    }
}

fn series(name: &str, runs: &[(usize, u32, u32, f64)], variant: usize, blocked: bool) -> Series {
    Series::new(
        name,
        runs.iter()
            .filter(|r| r.0 == variant)
            .map(|&(_, block, position, value)| {
                if blocked {
                    Observation::in_block(value, block).at_position(position)
                } else {
                    Observation::new(value)
                }
            }),
    )
}

/// Simulates one experiment of `blocks` blocks with `seed` (the same seed gives the same
/// noise whatever `cfg.effect`, which only scales `B`).
///
/// ABBA blocks hold 4 runs, alternating blocks 2 (AB). A sequential experiment holds as
/// many runs as the ABBA one, `2 * blocks` per variant, recorded without blocks (its
/// `(block, position)` in `runs` only count the runs). Time: O(runs).
pub fn simulate(cfg: &SimConfig, design: Design, blocks: u32, seed: u64) -> Experiment {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut runs = Vec::new();
    let mut block_truth = Vec::new();
    match design {
        Design::Abba | Design::Alternating => {
            let mut s = Session::start(cfg, &mut rng);
            for b in 0..blocks {
                let order: &[usize] = match design {
                    Design::Abba if b % 2 == 0 => &[0, 1, 1, 0],
                    Design::Abba => &[1, 0, 0, 1],
                    _ => &[0, 1],
                };
                let mut block_expected = 0.0;
                for (p, &variant) in order.iter().enumerate() {
                    let carried = p > 0 && order[p - 1] != variant;
                    let mut e = s.expected(cfg, s.t);
                    if carried {
                        e *= 1.0 - cfg.carryover;
                    }
                    // Expected B - A contribution of this run to the block difference.
                    let share = 2.0 / order.len() as f64;
                    block_expected += if variant == 1 {
                        share * e * cfg.effect
                    } else {
                        -share * e
                    };
                    let v = s.run(cfg, &mut rng, variant, carried);
                    runs.push((variant, b, p as u32, v));
                }
                block_truth.push(block_expected);
            }
        }
        Design::Sequential => {
            let per_variant = 2 * blocks;
            for variant in 0..2 {
                let mut s = Session::start(cfg, &mut rng);
                for k in 0..per_variant {
                    let v = s.run(cfg, &mut rng, variant, false);
                    runs.push((variant, k / 2, k % 2, v));
                }
            }
            block_truth = vec![f64::NAN; blocks as usize];
        }
    }
    let blocked = design != Design::Sequential;
    let block_means = if blocked {
        (0..blocks)
            .map(|b| {
                let m = |variant| {
                    let v: Vec<f64> = runs
                        .iter()
                        .filter(|r| r.1 == b && r.0 == variant)
                        .map(|r| r.3)
                        .collect();
                    v.iter().sum::<f64>() / v.len() as f64
                };
                [m(0), m(1)]
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut dataset = Dataset::new(
        "ms",
        vec![
            series("A", &runs, 0, blocked),
            series("B", &runs, 1, blocked),
        ],
    );
    if let Ok(d) = design.name().parse() {
        dataset = dataset.with_design(d);
    }
    Experiment {
        dataset,
        block_means,
        runs,
        block_truth,
    }
}

/// Values of `variant` in run order.
pub fn values(e: &Experiment, variant: usize) -> Vec<f64> {
    e.runs
        .iter()
        .filter(|r| r.0 == variant)
        .map(|r| r.3)
        .collect()
}
