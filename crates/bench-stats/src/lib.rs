//! # bench-stats: the statistics of honest benchmark comparisons
//!
//! Every estimator and test abba reports, usable on its own without the CLI:
//!
//! - [`Sample`]: validated input (no NaN, no infinities, never empty), descriptives,
//!   percentiles and Tukey outliers.
//! - Rank tests: Mann-Whitney U (exact and asymptotic), Kruskal-Wallis, Friedman, Wilcoxon
//!   signed-rank, Holm-Bonferroni, Cliff's delta with Romano magnitudes, Hodges-Lehmann.
//! - Bootstrap: seeded percentile, BCa and studentized intervals; block bootstrap for
//!   paired designs, bit-identical whatever the thread count.
//! - Paired analysis of blocked data, variance components, ratio of ratios, carryover.
//! - [`Analysis`]: the `abba.analysis/1` model that ties them together.
//!
//! ```
//! use bench_stats::Sample;
//! let a = Sample::new(&[10.0, 11.0, 10.5])?;
//! assert_eq!(a.len(), 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod dataset;
mod error;
mod model;
mod sample;

pub use crate::dataset::{Dataset, Observation, Series};
pub use crate::error::StatsError;
pub use crate::model::{
    ANALYSIS_SCHEMA, Analysis, BenchmarkSummary, CliffsDeltaReport, Comparison, Control,
    GroupAnalysis, MannWhitneyReport, Omnibus, OmnibusTest, Outcome, OutlierCounts,
    PairedReport, ReferenceReport, ShiftReport, Treatment, VarianceComponentsReport, Verdict,
    Warning,
};
pub use crate::sample::{Sample, SampleError};
