//! The noise machine of `abba plan --profile`: a seeded model of benchmark sessions on
//! noisy machines, with named noise profiles (feature `sim`, off by default; it adds no
//! dependency).
//!
//! `abba plan --profile NAME` predicts blocks and power from a simulated pilot of one of
//! the [`NoiseProfile`]s ([`crate::plan::profile_pilot`], through [`abba_runs`]). The
//! research built on the same machine (run-order designs, changes that are not shifts,
//! the oracle of disturbed runs, the calibration grids) lives in the workspace's
//! unpublished `bench-lab` crate, which drives this [`Session`].
//!
//! The model multiplies a run's noise-free time by independent factors:
//!
//! - a **session level** `exp(sigma_b * z)` shared by every run of one session (the
//!   frequency governor, the tenants next door);
//! - a **slow drift** within the session, `exp(slope * t)` with a per-session random slope;
//! - **load phases**: a step function of the session level that changes every few seconds
//!   (phase length in runs, each phase's log level drawn with SD `phase_sd`);
//! - **run-level noise** `exp(sigma_w * z)`: lognormal, so right-skewed;
//! - **bursts**: a two-state (fast/slow) process; a slow run takes `burst_extra` longer,
//!   which makes the distribution of run times bimodal;
//! - **spikes**: a rare pre-emption adding `spike_extra`, the heavy right tail;
//! - **carryover**: a run that directly follows the other variant is `carryover` faster,
//!   and a run that follows `B` is `after_b` slower (a state `B` leaves behind: the
//!   asymmetric carryover ABBA does not cancel).
//!   Blocks run back to back, as the runner runs them, so the first run of a block
//!   follows the last run of the previous block;
//! - a **first-run-of-block** factor `1 + f` with `f ~ N(first_run.0, first_run.1)` drawn
//!   once per session: the runner settles between blocks, and the run after the pause can
//!   be systematically slower or faster;
//! - the **true effect**: every run of the candidate `B` is `effect` times `A`'s.
//!
//! Each run also says whether the machine disturbed it (a burst or a spike).

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::{Observation, Series};

mod profile;

pub use profile::NoiseProfile;

/// Parameters of the noise model; start from a [`NoiseProfile`]'s and change fields.
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
    /// Shortest and longest load phase, in runs (uniform); `(0, 0)` means no phases.
    pub phase_len: (u32, u32),
    /// SD of a load phase's log level.
    pub phase_sd: f64,
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
    /// Fraction by which a run right after the other variant is faster.
    pub carryover: f64,
    /// Fraction by which a run right after `B` is slower, whichever variant it is: a state
    /// `B` leaves behind (a cache it evicts, a file it grows). Asymmetric: a run after `A`
    /// is not touched. 0 in every profile.
    pub after_b: f64,
    /// Mean and SD (between sessions) of the first-run-of-block extra time, a fraction.
    pub first_run: (f64, f64),
    /// True ratio `B / A`.
    pub effect: f64,
}

impl Default for SimConfig {
    /// The [`NoiseProfile::Bursty`] machine.
    fn default() -> Self {
        NoiseProfile::Bursty.config()
    }
}

impl SimConfig {
    /// The same machine with true ratio `effect`.
    pub fn with_effect(self, effect: f64) -> Self {
        SimConfig { effect, ..self }
    }

    /// The same machine with a carryover advantage `carryover`.
    pub fn with_carryover(self, carryover: f64) -> Self {
        SimConfig { carryover, ..self }
    }

    /// The same machine where a run right after `B` is `after_b` slower.
    pub fn with_after_b(self, after_b: f64) -> Self {
        SimConfig { after_b, ..self }
    }

    /// The same machine with noise-free run time `mean` (ms).
    pub fn with_mean(self, mean: f64) -> Self {
        SimConfig { mean, ..self }
    }

    /// Fraction of runs inside a burst, in the stationary state.
    pub fn slow_fraction(&self) -> f64 {
        let mean_len = f64::from(self.burst_len.0 + self.burst_len.1) / 2.0;
        if self.burst_start <= 0.0 {
            return 0.0;
        }
        mean_len / (mean_len + 1.0 / self.burst_start)
    }

    /// Expected multiplier of one run from the run-level noise, bursts and spikes
    /// (stationary), not counting session level, phases, drift and carryover.
    pub fn noise_mean(&self) -> f64 {
        let lognormal = (self.sigma_w * self.sigma_w / 2.0).exp();
        let burst = 1.0 + self.slow_fraction() * (self.burst_extra.0 + self.burst_extra.1) / 2.0;
        let spike = 1.0 + self.spike_prob * (self.spike_extra.0 + self.spike_extra.1) / 2.0;
        lognormal * burst * spike
    }
}

/// One standard normal draw from `rng` (Box-Muller, one of the pair).
pub fn normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    // Box-Muller; 1 - u keeps the logarithm finite.
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn uniform<R: Rng + ?Sized>(rng: &mut R, (lo, hi): (f64, f64)) -> f64 {
    lo + (hi - lo) * rng.random::<f64>()
}

/// The state of one simulated session: its level, drift, phase, burst process and run
/// counter. Every random draw comes from the `rng` handed to each call, so one seeded
/// generator replays the same session.
#[derive(Debug, Clone)]
pub struct Session {
    level: f64,
    slope: f64,
    first_run: f64,
    phase: f64,
    phase_left: u32,
    t: u32,
    slow_left: u32,
    last_variant: Option<usize>,
}

impl Session {
    /// A new session of the machine `cfg`: its level, drift slope, first-run factor and
    /// burst state drawn from `rng`.
    pub fn start<R: Rng + ?Sized>(cfg: &SimConfig, rng: &mut R) -> Self {
        let level = cfg.mean * (cfg.sigma_b * normal(rng)).exp();
        let slope = cfg.drift_sd_per_run * normal(rng);
        let first_run = cfg.first_run.0 + cfg.first_run.1 * normal(rng);
        // Start in the stationary state: inside a burst with probability `slow`.
        let slow_left = if rng.random::<f64>() < cfg.slow_fraction() {
            rng.random_range(1..=cfg.burst_len.1.max(1))
        } else {
            0
        };
        let mut s = Session {
            level,
            slope,
            first_run,
            phase: 1.0,
            phase_left: 0,
            t: 0,
            slow_left,
            last_variant: None,
        };
        s.next_phase(cfg, rng);
        s
    }

    fn next_phase<R: Rng + ?Sized>(&mut self, cfg: &SimConfig, rng: &mut R) {
        if cfg.phase_len.1 == 0 {
            self.phase = 1.0;
            self.phase_left = u32::MAX;
            return;
        }
        self.phase = (cfg.phase_sd * normal(rng)).exp();
        self.phase_left = rng.random_range(cfg.phase_len.0.max(1)..=cfg.phase_len.1);
    }

    /// The expected value of the next run (before noise, carryover, first-run factor and
    /// effect).
    pub fn expected(&self, cfg: &SimConfig) -> f64 {
        self.level * self.phase * (self.slope * f64::from(self.t)).exp() * cfg.noise_mean()
    }

    /// The carryover and first-run factor of the next run of `variant`.
    pub fn order_factor(&self, cfg: &SimConfig, variant: usize, first_in_block: bool) -> f64 {
        let mut f = 1.0;
        if self.last_variant.is_some_and(|v| v != variant) {
            f *= 1.0 - cfg.carryover;
        }
        if self.last_variant == Some(1) {
            f *= 1.0 + cfg.after_b;
        }
        if first_in_block {
            f *= 1.0 + self.first_run;
        }
        f
    }

    /// One run of `variant` (0 = A, 1 = B), and whether the machine disturbed it (a burst
    /// or a spike).
    pub fn run<R: Rng + ?Sized>(
        &mut self,
        cfg: &SimConfig,
        rng: &mut R,
        variant: usize,
        first_in_block: bool,
    ) -> (f64, bool) {
        let mut v = self.level * self.phase * (self.slope * f64::from(self.t)).exp();
        v *= (cfg.sigma_w * normal(rng)).exp();
        let mut disturbed = false;
        if self.slow_left > 0 {
            v *= 1.0 + uniform(rng, cfg.burst_extra);
            self.slow_left -= 1;
            disturbed = true;
        } else if rng.random::<f64>() < cfg.burst_start {
            // The burst starts with the next run.
            self.slow_left = rng.random_range(cfg.burst_len.0..=cfg.burst_len.1);
        }
        if rng.random::<f64>() < cfg.spike_prob {
            v *= 1.0 + uniform(rng, cfg.spike_extra);
            disturbed = true;
        }
        v *= self.order_factor(cfg, variant, first_in_block);
        if variant == 1 {
            v *= cfg.effect;
        }
        self.t += 1;
        self.last_variant = Some(variant);
        self.phase_left = self.phase_left.saturating_sub(1);
        if self.phase_left == 0 {
            self.next_phase(cfg, rng);
        }
        (v, disturbed)
    }
}

/// The series `name` of the runs of `variant`, in run order: observations in their blocks
/// and positions when `blocked`, plain values otherwise.
pub fn series(name: &str, runs: &[Run], variant: usize, blocked: bool) -> Series {
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

/// One run: `(variant, block, position, value)`, variant 0 the baseline `A`, 1 the
/// candidate `B`.
pub type Run = (usize, u32, u32, f64);

/// One session of `blocks` ABBA blocks (ABBA on even blocks, BAAB on odd ones, back to
/// back) on the machine `cfg`, seeded by `seed`: every run in order. The same seed gives
/// the same noise whatever `cfg.effect`, which only scales `B`. Time: O(blocks).
pub fn abba_runs(cfg: &SimConfig, blocks: u32, seed: u64) -> Vec<Run> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut session = Session::start(cfg, &mut rng);
    let mut runs = Vec::with_capacity(4 * blocks as usize);
    for b in 0..blocks {
        let order: [usize; 4] = if b % 2 == 0 {
            [0, 1, 1, 0]
        } else {
            [1, 0, 0, 1]
        };
        for (p, &variant) in order.iter().enumerate() {
            let (value, _) = session.run(cfg, &mut rng, variant, p == 0);
            runs.push((variant, b, p as u32, value));
        }
    }
    runs
}
