//! The named noise profiles: machines users have, each fitted to stated figures.

use super::SimConfig;

/// A named noise profile of [`SimConfig`]. Each profile's figures are checked by
/// bench-lab's `tests/grid/sim_profiles.rs`; `docs/estimator-grid.md` tabulates every
/// estimator on each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NoiseProfile {
    /// A dedicated, quiet box: about 1-2 % per-run SD, almost no bursts.
    Quiet,
    /// A shared 2-vCPU VM: a tight main mode (about 2 % spread), one run in five slowed by
    /// 15-40 % in bursts of 1-3 runs, 3 % of runs pre-empted (1.5-3x), about 2 % shift between
    /// sessions. Fitted to the ratio of pooled medians: SD about 0.009 over sessions of 15
    /// ABBA blocks, about 0.03 when the same runs are done all-A-then-all-B, about 0.019
    /// for interleaved AB pairs.
    SharedVm,
    /// The hard case: a wide main mode (8 %), long bursts (2-6 runs), spikes of up to
    /// 3.5x; per-run SD about 24 %.
    Bursty,
    /// The shared VM with slow load phases: the level changes every 1-4 s (20-80 runs of a
    /// 50 ms command) by about 5 %, plus a steeper drift.
    Drift,
}

impl NoiseProfile {
    /// Every profile, in the order of the docs' tables.
    pub const ALL: [NoiseProfile; 4] = [
        NoiseProfile::Quiet,
        NoiseProfile::SharedVm,
        NoiseProfile::Bursty,
        NoiseProfile::Drift,
    ];

    /// The stable name: `quiet`, `shared-vm`, `bursty`, `drift`.
    pub fn as_str(self) -> &'static str {
        match self {
            NoiseProfile::Quiet => "quiet",
            NoiseProfile::SharedVm => "shared-vm",
            NoiseProfile::Bursty => "bursty",
            NoiseProfile::Drift => "drift",
        }
    }

    /// The profile called `name` ([`NoiseProfile::as_str`]), if any.
    pub fn from_name(name: &str) -> Option<NoiseProfile> {
        Self::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// The profile's parameters (a 50 ms command, no effect).
    pub fn config(self) -> SimConfig {
        match self {
            NoiseProfile::Quiet => SimConfig {
                mean: 50.0,
                sigma_b: 0.005,
                sigma_w: 0.012,
                drift_sd_per_run: 0.000_02,
                phase_len: (0, 0),
                phase_sd: 0.0,
                burst_start: 0.005,
                burst_len: (1, 2),
                burst_extra: (0.02, 0.06),
                spike_prob: 0.002,
                spike_extra: (0.1, 0.3),
                carryover: 0.002,
                after_b: 0.0,
                first_run: (0.0, 0.003),
                effect: 1.0,
            },
            NoiseProfile::SharedVm => SimConfig {
                mean: 50.0,
                sigma_b: 0.02,
                sigma_w: 0.02,
                drift_sd_per_run: 0.0001,
                phase_len: (0, 0),
                phase_sd: 0.0,
                // Mean burst length 2 runs; fraction slow = 2 / (2 + 1 / p) = 0.2.
                burst_start: 0.125,
                burst_len: (1, 3),
                burst_extra: (0.15, 0.40),
                spike_prob: 0.03,
                spike_extra: (0.5, 2.0),
                carryover: 0.005,
                after_b: 0.0,
                first_run: (0.0, 0.017),
                effect: 1.0,
            },
            NoiseProfile::Bursty => SimConfig {
                mean: 50.0,
                sigma_b: 0.02,
                sigma_w: 0.08,
                drift_sd_per_run: 0.0002,
                phase_len: (0, 0),
                phase_sd: 0.0,
                // Mean burst length 4 runs; fraction slow = 4 / (4 + 1 / p) = 0.2.
                burst_start: 1.0 / 16.0,
                burst_len: (2, 6),
                burst_extra: (0.15, 0.40),
                spike_prob: 0.025,
                spike_extra: (0.5, 2.5),
                carryover: 0.01,
                after_b: 0.0,
                first_run: (0.0, 0.017),
                effect: 1.0,
            },
            NoiseProfile::Drift => SimConfig {
                drift_sd_per_run: 0.0005,
                phase_len: (20, 80),
                phase_sd: 0.05,
                ..NoiseProfile::SharedVm.config()
            },
        }
    }
}

impl std::fmt::Display for NoiseProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
