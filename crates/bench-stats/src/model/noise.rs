//! Where a wall-time comparison's spread comes from ([`Analysis::noise`](crate::Analysis::noise)):
//! each run's wall time split into time on the CPU (user + system) and time off it, the
//! share of the comparison's spread that time off the CPU makes, whether the command is
//! CPU-bound, and, when it is, the same comparison decided on CPU time. Beyond the v1
//! contract; serialized only when present (issue 36).

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use super::report::{Outcome, Remedy, Verdict};

/// The noise diagnosis of every two-variant comparison decided on wall time.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct NoiseReport {
    /// One per paired comparison, in the order of the groups and their comparisons.
    pub comparisons: Vec<NoiseComparison>,
}

/// Whether a command's CPU time stands for its wall time: read off its least-disturbed
/// runs (see [`crate::diagnostics::off_cpu`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum CpuBound {
    /// On the CPU for most of its wall time, one thread at a time: CPU time measures the
    /// same work as wall time without the waits for the CPU.
    Yes,
    /// Off the CPU for a large part of its wall time even undisturbed (sleeps, I/O,
    /// waiting on other processes): CPU time would leave that out.
    OffCpu,
    /// More CPU time than wall time: several threads or processes run at once, so CPU
    /// time adds up their work, not the time to finish.
    Threads,
}

/// What the diagnosis found for one comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum NoiseFinding {
    /// Wall time decided (or its spread is mostly on the CPU): nothing to say.
    WallDecides,
    /// Wall time did not decide, its spread is mostly time off the CPU, the command is
    /// CPU-bound, and CPU time decides.
    CpuDecides,
    /// As [`NoiseFinding::CpuDecides`], but CPU time does not decide either.
    CpuCannotDecide,
    /// Wall time did not decide and its spread is mostly time off the CPU, but the command
    /// is not CPU-bound, so CPU time is not offered.
    NotCpuBound,
}

/// The same comparison decided on CPU time (user + system) by the same analysis.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct CpuTimeVerdict {
    /// Its verdict.
    pub verdict: Verdict,
    /// Its outcome (faster, slower, equivalent, inconclusive, mixed).
    pub outcome: Outcome,
    /// Ratio candidate / baseline of CPU time.
    pub ratio: Option<f64>,
    /// Its interval at the analysis confidence.
    pub ratio_ci: Option<[f64; 2]>,
}

/// One comparison's wall time split into time on and off the CPU.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct NoiseComparison {
    /// The comparison's class, `None` when unclassified.
    pub class: Option<String>,
    /// The baseline's name.
    pub baseline: String,
    /// The candidate's name.
    pub candidate: String,
    /// Blocks with both variants' runs.
    pub blocks: u32,
    /// Standard deviation of the block log-ratios of wall time.
    pub wall_spread: f64,
    /// Standard deviation of the block log-ratios of CPU time (user + system).
    pub cpu_spread: f64,
    /// The share of the wall-time log-ratios' variance that time off the CPU adds:
    /// `1 - var(cpu) / var(wall)`, clamped to `[0, 1]`.
    pub off_cpu_share: f64,
    /// Each variant's CPU time over wall time in its least-disturbed runs (the 90th
    /// percentile of the per-run fractions), baseline first.
    pub on_cpu: [f64; 2],
    /// Whether CPU time stands for wall time here.
    pub cpu_bound: CpuBound,
    /// `true` when the wall-time verdict is a direction or equivalence.
    pub wall_decided: bool,
    /// The comparison decided on CPU time, when the command is CPU-bound.
    pub cpu_time: Option<CpuTimeVerdict>,
    /// What the diagnosis found.
    pub finding: NoiseFinding,
    /// The one line the reports print, when there is something to say.
    pub sentence: Option<String>,
    /// What the user can do about it (not serialized; the CLI words it as a flag).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub remedy: Option<Remedy>,
}
