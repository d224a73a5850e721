//! Counts checked against native time ([`Analysis::native_time`](crate::Analysis::native_time)):
//! under valgrind every run's time is valgrind's, so a few blocks of the same commands are
//! also run natively and timed, and each counted comparison is set beside the native
//! CPU time's. Counts are a proxy for time: a branchless loop executes more instructions
//! and runs faster. Beyond the v1 contract; serialized only when present (issue 36).

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use super::report::Outcome;

/// The native-time check of every counted comparison.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct NativeTimeReport {
    /// The time metric of the native runs (`cpu`: user + system).
    pub metric: String,
    /// How many blocks ran natively.
    pub blocks: u32,
    /// One per counted comparison that the native runs also compare.
    pub comparisons: Vec<NativeTimeComparison>,
}

/// One comparison's counts beside its native time.
///
/// Exhaustive on purpose: part of the serialized document.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct NativeTimeComparison {
    /// The baseline's name.
    pub baseline: String,
    /// The candidate's name.
    pub candidate: String,
    /// The counts' ratio, candidate over baseline.
    pub count_ratio: Option<f64>,
    /// The counts' outcome (`faster` is fewer counts when lower is better).
    pub count_outcome: Outcome,
    /// Native time's ratio, candidate over baseline (the native analysis's ratio).
    pub time_ratio: Option<f64>,
    /// Its interval, when the native analysis gave one.
    pub time_ratio_ci: Option<[f64; 2]>,
    /// Native time's outcome by its own test (few blocks: often inconclusive).
    pub time_outcome: Outcome,
    /// The direction native time shows, `faster` or `slower`, when its test decided or
    /// every native run of one variant took less time than every run of the other
    /// (Mann-Whitney p below alpha); `None` when time shows no clear direction.
    pub time_direction: Option<Outcome>,
    /// `true` when the counts and native time both show a direction and they are
    /// opposite (more counts and less time, or fewer counts and more time).
    pub disagrees: bool,
    /// The line the reports print when they disagree.
    pub sentence: Option<String>,
}
