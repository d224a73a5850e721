//! The other metrics of the same runs ([`Analysis::metrics`](crate::Analysis::metrics)):
//! when runs are counted (instructions, cycles, ...), every comparison's ratio on each
//! recorded metric beside the one the verdict decided on, and how far layout moves the
//! counts. Beyond the v1 contract; serialized only when present.

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use super::Quantity;

/// The other recorded metrics of a counted experiment.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct MetricsReport {
    /// The metric the verdicts decide on (`instructions`, `wall`, ...).
    pub decided_on: String,
    /// What counted the runs: `pmu` or `valgrind`.
    pub counter: String,
    /// `false` when the times and memory are not the program's own (under valgrind they
    /// are valgrind's, many times slower and larger).
    pub times_are_the_programs: bool,
    /// One per comparison, in the order of the groups and their comparisons.
    pub comparisons: Vec<MetricComparison>,
    /// How far the environment size (layout randomization) moves each variant's counts.
    pub layout: Vec<LayoutSpread>,
}

/// One comparison on the other metrics.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct MetricComparison {
    /// The comparison's class, `None` when unclassified.
    pub class: Option<String>,
    /// The baseline's name.
    pub baseline: String,
    /// The candidate's name.
    pub candidate: String,
    /// Each other recorded metric, in the raw file's order (wall, user, sys, max-rss,
    /// then the counts).
    pub metrics: Vec<MetricEffect>,
}

/// A comparison's ratio on one metric, estimated as the verdict's metric is (the same
/// estimator, blocks and confidence).
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct MetricEffect {
    /// `wall`, `user`, `sys`, `max-rss`, `instructions`, `cycles`, ...
    pub metric: String,
    /// What the metric measures (`time`, `memory`, or a count's name), for the words.
    pub quantity: Quantity,
    /// Ratio candidate / baseline; `None` when it cannot be computed.
    pub ratio: Option<f64>,
    /// Its interval at the analysis confidence.
    pub ratio_ci: Option<[f64; 2]>,
    /// `larger` or `smaller` when the interval lies wholly above or below 1, else
    /// `unclear`.
    pub direction: String,
    /// `false` for a time or memory measured under valgrind: valgrind's, not the
    /// program's.
    pub the_programs: bool,
}

impl MetricEffect {
    /// Whether the metric is a memory size (`max-rss`) rather than a time or a count.
    pub fn is_memory(&self) -> bool {
        self.quantity == Quantity::Memory
    }
}

/// How far layout moves one variant's count: the medians of its runs at each environment
/// size, their range.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct LayoutSpread {
    /// The variant.
    pub benchmark: String,
    /// The count (`instructions`, ...).
    pub metric: String,
    /// Distinct environment sizes among its successful runs.
    pub sizes: u32,
    /// Half the range of the per-size medians (the count moves by ± this).
    pub half_range: f64,
    /// `half_range` over the median of all its runs.
    pub relative: f64,
}
