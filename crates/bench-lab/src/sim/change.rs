//! Changes between the variants that are not shifts: each variant's program draws, run by
//! run, one of several modes (a factor on the run's time), independently of the machine's
//! noise.
//!
//! A [`Change`] is a pair of mixtures, one for `A` and one for `B`. A pure shift is one
//! mode of weight 1 for `B`; "30 % of B's runs 20 % slower" is B = {70 % at 1.0, 30 % at
//! 1.2}; a faster fast mode with slower typical runs is B = {45 % at 0.96, 55 % at 1.15};
//! a scale change is one mode with a lognormal spread. Any share, any factor, any direction:
//! [`Change::mixture`] takes the modes as given. The truth of a change on a machine (the
//! ratio of each quantile of B's runs over A's, and of the means) is measured by
//! [`truth`] from a large sample of the same simulator.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{Experiment, Session, SimConfig, SimDesign, simulate_change};

/// One mode of a program's run time: with probability `weight` (relative to the other
/// modes' weights) a run takes `factor` times the machine's time, the factor uniform in
/// `factor.0..=factor.1` and multiplied by `exp(log_sd * z)` with `z` standard normal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mode {
    /// Relative weight of the mode (the weights of one variant need not sum to 1).
    pub weight: f64,
    /// Smallest and largest factor (uniform between; equal for a fixed factor).
    pub factor: (f64, f64),
    /// SD of an extra lognormal factor (0 for none): the mode's own spread.
    pub log_sd: f64,
}

impl Mode {
    /// A mode of weight `weight` at the fixed factor `factor`.
    pub fn at(weight: f64, factor: f64) -> Mode {
        Mode {
            weight,
            factor: (factor, factor),
            log_sd: 0.0,
        }
    }

    /// Expected factor of the mode.
    fn mean(&self) -> f64 {
        (self.factor.0 + self.factor.1) / 2.0 * (self.log_sd * self.log_sd / 2.0).exp()
    }
}

/// How the two variants' programs differ: each run of variant `v` is multiplied by a
/// factor drawn from `modes[v]` (independently of every other run and of the machine's
/// noise, from a random stream of its own: the same seed gives the same machine noise
/// whatever the change). An empty mixture means the factor 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// A short description for tables ("30% of B's runs 20% slower").
    pub name: String,
    /// The modes of `A` (index 0) and `B` (index 1).
    pub modes: [Vec<Mode>; 2],
}

impl Change {
    /// No change (A/A): both programs run at factor 1.
    pub fn none() -> Change {
        Change::mixture("no change", Vec::new(), Vec::new())
    }

    /// The pure shift: every run of `B` takes `factor` times `A`'s.
    pub fn shift(factor: f64) -> Change {
        Change::mixture(
            format!("shift x{factor}"),
            Vec::new(),
            vec![Mode::at(1.0, factor)],
        )
    }

    /// A share of `B`'s runs changed: a fraction `share` of its runs take a factor
    /// uniform in `factor` (above 1 slower, below 1 faster), the rest are unchanged. A
    /// tail mixture is a small share with one factor (`(f, f)`).
    pub fn share(share: f64, factor: (f64, f64)) -> Change {
        let what = if factor.0 == factor.1 {
            pct_change(factor.0)
        } else {
            format!(
                "{}-{}",
                pct_change(factor.0)
                    .trim_end_matches(" slower")
                    .trim_end_matches('%'),
                pct_change(factor.1)
            )
        };
        Change::mixture(
            format!("{:.0}% of B's runs {what}", share * 100.0),
            Vec::new(),
            vec![
                Mode::at(1.0 - share, 1.0),
                Mode {
                    weight: share,
                    factor,
                    log_sd: 0.0,
                },
            ],
        )
    }

    /// Two modes in `B`: a fraction `1 - slow_share` of its runs at `fast` (its fast mode,
    /// e.g. 0.96 for 4 % faster) and `slow_share` at `slow` (e.g. 1.15).
    pub fn fast_and_slow(fast: f64, slow_share: f64, slow: f64) -> Change {
        Change::mixture(
            format!(
                "B's fast mode {}, {:.0}% of its runs {}",
                pct_change(fast),
                slow_share * 100.0,
                pct_change(slow)
            ),
            Vec::new(),
            vec![Mode::at(1.0 - slow_share, fast), Mode::at(slow_share, slow)],
        )
    }

    /// Both programs bimodal: a fraction `slow_share` of every variant's runs at `slow`;
    /// `B`'s fast mode at `b_fast` (its slow mode unchanged).
    pub fn both_bimodal(slow_share: f64, slow: f64, b_fast: f64) -> Change {
        Change::mixture(
            format!(
                "both bimodal ({:.0}% of runs {}), B's fast mode {}",
                slow_share * 100.0,
                pct_change(slow),
                pct_change(b_fast)
            ),
            vec![Mode::at(1.0 - slow_share, 1.0), Mode::at(slow_share, slow)],
            vec![
                Mode::at(1.0 - slow_share, b_fast),
                Mode::at(slow_share, slow),
            ],
        )
    }

    /// A scale change: `B`'s runs spread wider by an extra lognormal factor of SD
    /// `log_sd` (its median run about unchanged, its mean and slow runs slower, its fast
    /// runs faster).
    pub fn scale(log_sd: f64) -> Change {
        Change::mixture(
            format!("B's spread grows (lognormal SD {log_sd})"),
            Vec::new(),
            vec![Mode {
                weight: 1.0,
                factor: (1.0, 1.0),
                log_sd,
            }],
        )
    }

    /// Any mixture: `a` and `b` are the modes of each variant (empty: factor 1).
    pub fn mixture(name: impl Into<String>, a: Vec<Mode>, b: Vec<Mode>) -> Change {
        Change {
            name: name.into(),
            modes: [a, b],
        }
    }

    /// `true` when neither variant has a mode other than the factor 1.
    pub fn is_none(&self) -> bool {
        self.modes
            .iter()
            .flatten()
            .all(|m| m.weight == 0.0 || (m.factor == (1.0, 1.0) && m.log_sd == 0.0))
    }

    /// Expected factor of a run of `variant`.
    pub fn mean_factor(&self, variant: usize) -> f64 {
        let modes = &self.modes[variant];
        let total: f64 = modes.iter().map(|m| m.weight).sum();
        if total <= 0.0 {
            return 1.0;
        }
        modes.iter().map(|m| m.weight * m.mean()).sum::<f64>() / total
    }

    /// One draw of `variant`'s factor.
    pub(crate) fn draw(&self, variant: usize, rng: &mut Xoshiro256PlusPlus) -> f64 {
        let modes = &self.modes[variant];
        let total: f64 = modes.iter().map(|m| m.weight).sum();
        if modes.is_empty() || total <= 0.0 {
            return 1.0;
        }
        let mut u = rng.random::<f64>() * total;
        let mode = modes
            .iter()
            .find(|m| {
                u -= m.weight;
                u < 0.0
            })
            .unwrap_or(&modes[modes.len() - 1]);
        let (lo, hi) = mode.factor;
        let mut f = lo + (hi - lo) * rng.random::<f64>();
        if mode.log_sd > 0.0 {
            f *= (mode.log_sd * super::normal(rng)).exp();
        }
        f
    }

    /// The random stream of the program factors for an experiment of `seed` (apart from
    /// the machine's, so the noise does not depend on the change).
    pub(crate) fn stream(seed: u64) -> Xoshiro256PlusPlus {
        Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed_c4a9_6e00_0001)
    }
}

/// `0.96` as "4% faster", `1.2` as "20% slower".
fn pct_change(f: f64) -> String {
    let p = (f - 1.0) * 100.0;
    let p_str = format!("{:.1}", p.abs());
    let p_str = p_str.trim_end_matches(".0");
    if p >= 0.0 {
        format!("{p_str}% slower")
    } else {
        format!("{p_str}% faster")
    }
}

/// The true quantities of a change on a machine: ratios `B / A` of the median run, the
/// mean, the 10th and the 90th percentile of each variant's runs, pooled over many
/// sessions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Truth {
    /// Ratio of the medians (the typical run).
    pub median: f64,
    /// Ratio of the means.
    pub mean: f64,
    /// Ratio of the 10th percentiles (the fast runs).
    pub p10: f64,
    /// Ratio of the 90th percentiles (the slow runs).
    pub p90: f64,
}

impl Truth {
    /// The direction of the typical run: -1 faster, +1 slower, 0 within `margin` of no
    /// change (relative, e.g. 0.01).
    pub fn direction(&self, margin: f64) -> i8 {
        if self.median > 1.0 + margin {
            1
        } else if self.median < 1.0 - margin {
            -1
        } else {
            0
        }
    }
}

/// The truth of `change` on `cfg`'s machine, as users get it: every run of `sessions`
/// experiments of `blocks` ABBA blocks (`cfg.effect` included), pooled per variant; the
/// ratio of each quantile (type 7) and of the means. The machine's noise (bursts, spikes,
/// levels) is part of what each variant's runs look like, so a share of slow runs moves
/// the median less on a noisy machine than on a quiet one. Time: O(runs log runs).
pub fn truth(cfg: &SimConfig, change: &Change, sessions: u32, blocks: u32, seed: u64) -> Truth {
    let mut runs: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for s in 0..u64::from(sessions) {
        let e = simulate_change(
            cfg,
            change,
            SimDesign::Abba,
            blocks,
            1,
            seed.wrapping_add(s),
        );
        for &(v, _, _, x) in &e.runs {
            runs[v].push(x);
        }
    }
    ratios(runs)
}

/// Replicas of a session's runs [`session_truth`] draws by default: 250 replicas of a
/// 30-block session pool 30,000 runs of each variant.
pub const SESSION_REPLICAS: u32 = 250;

/// The session's truth: the ratios of each quantile (type 7) and of the means of the runs
/// `B` and `A` would give on the machine as it was during the session `e` (simulated from
/// `cfg` with `change`), the estimand a paired experiment can have.
///
/// The session's machine state is held fixed: each slot's factor in `e.machine` (the
/// session's level, load phase and drift, and the slot's carryover and first-run factor
/// as its run had them). Everything else is drawn again, `replicas` times, from `seed`:
/// each run's own noise (lognormal, bursts, spikes, from a [`Session`] of `cfg` with its
/// level, drift, phases and order factors taken out) and the change's draw (its mixture
/// membership and factor). Both variants run in every slot of the session with the same
/// machine noise (common random numbers) and a draw of their own program each, so the
/// comparison is made under the same conditions for both: a shift's truth is the shift
/// (to rounding) and no change's is exactly 1, the same as the pooled [`truth`]'s; where
/// the change is not a shift the two differ by what the session's machine state does to
/// the change's effect on each quantile. Time: O(replicas runs log(replicas runs)).
pub fn session_truth(
    cfg: &SimConfig,
    change: &Change,
    e: &Experiment,
    replicas: u32,
    seed: u64,
) -> Truth {
    let noise_only = SimConfig {
        mean: 1.0,
        sigma_b: 0.0,
        drift_sd_per_run: 0.0,
        phase_len: (0, 0),
        phase_sd: 0.0,
        carryover: 0.0,
        after_b: 0.0,
        first_run: (0.0, 0.0),
        effect: 1.0,
        ..*cfg
    };
    let slots = e.machine.len() * replicas as usize;
    let mut runs: [Vec<f64>; 2] = [Vec::with_capacity(slots), Vec::with_capacity(slots)];
    for r in 0..u64::from(replicas) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5e55_1017_7a0e_0000 ^ r);
        let mut program = Change::stream(seed.wrapping_add(r.wrapping_mul(0x9e37_79b9)));
        let mut s = Session::start(&noise_only, &mut rng);
        for &m in &e.machine {
            let (noise, _) = s.run(&noise_only, &mut rng, 0, false);
            let slot = m * noise;
            runs[0].push(slot * change.draw(0, &mut program));
            runs[1].push(slot * change.draw(1, &mut program) * cfg.effect);
        }
    }
    ratios(runs)
}

/// The ratios `B / A` of the quantiles (type 7) and of the means of each variant's runs.
fn ratios(mut runs: [Vec<f64>; 2]) -> Truth {
    for r in &mut runs {
        r.sort_by(f64::total_cmp);
    }
    let q = |p: f64| {
        bench_stats::descriptive::quantile_sorted(&runs[1], p)
            / bench_stats::descriptive::quantile_sorted(&runs[0], p)
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    Truth {
        median: q(0.5),
        mean: mean(&runs[1]) / mean(&runs[0]),
        p10: q(0.1),
        p90: q(0.9),
    }
}
