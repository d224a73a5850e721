//! The whole analysis: configuration, the pluggable significance strategy, the engine
//! that turns a [`crate::Dataset`] into an [`crate::Analysis`], and the verdict words.
//!
//! # How a comparison is decided
//!
//! Per group (a class, or everything in cross-class mode) the engine summarizes every
//! benchmark, then decides with one test chosen by the data:
//!
//! | data | test | verdict basis |
//! | --- | --- | --- |
//! | blocked, 2 variants | the configured [`crate::PairedEstimator`]'s interval (default: Hodges-Lehmann of the block log-ratios, signed-rank interval) excludes no change | `paired-signed-rank:hl-log-ratio` / `paired-bootstrap:<estimator>` |
//! | blocked, 3+ variants | Friedman, then (only when significant) Holm-adjusted Wilcoxon signed-rank post-hoc tests | `friedman+wilcoxon-holm` |
//! | unpaired, 2 variants | Mann-Whitney U | `mann-whitney` |
//! | unpaired, 3+ variants | Kruskal-Wallis, then (only when significant) Holm-adjusted Mann-Whitney post-hoc tests (Holm 1979) | `kruskal-wallis+mann-whitney-holm` |
//! | any, with [`analyze_with`] | your [`SignificanceTest`], given the blocks when there are any | its name |
//!
//! Data are blocked when every series carries a block for every value, the design pairs
//! blocks (not [`crate::Design::Sequential`] or [`crate::Design::Unpaired`]), and at least
//! two blocks hold every variant; incomplete blocks are dropped with a warning. A paired
//! two-variant comparison with fewer blocks than can reach alpha (6 at 0.05: the smallest
//! exact p is `2 / 2^n`) is not tested.
//!
//! When every series of a group carries a numeric parameter of one name (a scan: see
//! [`crate::Series::with_parameter`]) with 3+ distinct values and the data are blocked,
//! the group also reports Page's L trend test across the parameter
//! ([`crate::TrendReport`]); it never changes a verdict.
//!
//! Counts with no spread are decided exactly, without a test (`exact`): when every run
//! of the baseline gave one count and every run of the candidate gave one count (the
//! values are counts: [`crate::Quantity::is_count`]), the ratio is known at any number
//! of blocks; MORE or FEWER outside the equivalence margin, EQUIVALENT inside it. One
//! differing run puts the comparison back on the table above.
//!
//! The practical gate runs after the test, whatever the test was: a significant verdict
//! whose [`EffectSize::practical_value`] is below the configured minimum is downgraded to
//! not significant, and a warning says so. Then the outcome is named: faster or slower
//! when significant, equivalent when the whole ratio interval lies inside the
//! equivalence margin, else inconclusive.

pub(crate) mod blocks;
mod carryover;
mod comparison;
mod config;
pub(crate) mod decision;
mod engine;
mod exact;
mod gate;
pub(crate) mod paired_verdict;
pub(crate) mod progress;
mod reach;
mod sequential_verdict;
mod significance;
mod trend;
mod verdict;
mod warnings;
mod written;

pub use config::{AnalysisConfig, Grouping, PracticalRule, SequentialRun};
pub use decision::{ALL_RUNS_MARGIN_FACTOR, TAIL_MARGIN_FACTOR, part_margin, shape_equivalent};
pub use engine::{analyze, analyze_with};
pub use gate::{Gate, GateResult, Regression, SuiteGates, TripReason, regressions};

pub use progress::{Progress, ProgressHook, Stage};
pub use significance::{
    DefaultTest, EffectSize, FriedmanTest, Group, KruskalWallisTest, MannWhitneyTest,
    PairwiseComparison, SignificanceContext, SignificanceReport, SignificanceTest,
    paired_dominance,
};
pub use written::{
    WrittenError, parse_estimator, parse_fraction, parse_margin, parse_percent, parse_practical,
};
