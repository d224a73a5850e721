//! # bench-stats: the statistics of honest benchmark comparisons
//!
//! Every estimator and test abba reports, usable on its own without the CLI. Two paired
//! samples to an answer:
//!
//! ```
//! use bench_stats::{Outcome, compare_paired};
//! // Block i ran the old and the new version back to back (times in ms).
//! let old = [10.2, 10.4, 10.1, 10.3, 10.5, 10.2, 10.6, 10.3];
//! let new = [9.2, 9.4, 9.1, 9.3, 9.5, 9.2, 9.6, 9.3];
//! let answer = compare_paired(&old, &new)?;
//! assert_eq!(answer.outcome, Outcome::Faster);
//! println!("{answer}"); // the sentence abba prints, with the ratio and its interval
//! # Ok::<(), bench_stats::StatsError>(())
//! ```
//!
//! [`compare_paired`] returns an [`Answer`] (outcome, ratio and interval, the deciding p,
//! the sentence); [`compare_paired_with`] takes an [`AnalysisConfig`], and [`answers`]
//! gives one [`Answer`] per comparison of a [`Dataset`]. Beyond the answer:
//!
//! 1. **The whole analysis**: [`analyze`] takes a [`Dataset`] (named series of values,
//!    optionally in blocks) and an [`AnalysisConfig`], and returns the [`Analysis`] that
//!    `abba analyze` prints (the `abba.analysis/1` document): descriptives, the test that
//!    decides each comparison, intervals, a [`Verdict`] and an [`Outcome`] per candidate,
//!    and [`Warning`]s. A custom [`SignificanceTest`] plugs in with [`analyze_with`].
//! 2. **One statistic**: every estimator and test is reachable under its module, each
//!    taking a validated [`Sample`] (or paired slices) and returning a named result:
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`descriptive`] | [`Sample`], summaries, percentiles, Tukey outliers |
//! | [`rank`] | Mann-Whitney U, Kruskal-Wallis, Friedman, Wilcoxon signed-rank, Cliff's delta, Hodges-Lehmann, Holm, Page's L trend test |
//! | [`resample`] | the seeded bootstrap (percentile, BCa, studentized), thread-count independent |
//! | [`paired`] | the block bootstrap and paired estimators, variance components, ratio of ratios |
//! | [`parametric`] | Welch's t-test, the reference of sequential tools (never an abba verdict) |
//! | [`diagnostics`] | drift and autocorrelation of a run stream, ABBA carryover |
//! | [`hierarchy`] | many hosts: pooled interval (t on host means, random effects + HKSJ), variance per level, heterogeneity |
//! | [`plan`] | `abba plan`: blocks for a power, minimum detectable effect, blocks to a sequential decision, runs per block |
//! | [`sequential`] | anytime-valid confidence sequences and the `--until decided` stop rule |
//! | [`history`] | a benchmark's history by commit: e-divisive change points in the levels, the chain of paired steps |
//! | [`suite`] | a suite of benchmarks: Benjamini-Hochberg or Holm across them, the geometric-mean ratio |
//! | [`special`] | erfc, the normal distribution, log-gamma, the incomplete gamma and beta, Student's t |
//! | [`model`] | the input ([`Dataset`]) and the result ([`Analysis`]) types |
//! | [`analysis`] | the engine, its configuration and the pluggable significance strategy |
//! | [`probe`] | not statistics: the one write probe of the crates that write files (`bench-report`, `bench-history`) |
//! | `sim` | (feature `sim`) the seeded noise machine and named noise profiles `abba plan --profile` simulates its pilot on |
//!
//! The whole analysis of two variants measured in the same blocks:
//!
//! ```
//! use bench_stats::{AnalysisConfig, Dataset, Design, Observation, Outcome, Series, analyze};
//! // Two variants measured in the same 8 blocks; B is about 10% faster in every block.
//! let series = |name: &str, scale: f64| {
//!     Series::new(name, (0..8u32).map(|b| Observation::in_block(scale * (100.0 + f64::from(b % 3)), b)))
//! };
//! let data = Dataset::new("ns", vec![series("A", 1.0), series("B", 0.9)]).with_design(Design::Abba);
//! let analysis = analyze(&data, &AnalysisConfig::default())?;
//! let b = &analysis.groups[0].comparisons[0];
//! assert_eq!(b.outcome, Outcome::Faster);
//! assert!((b.ratio.unwrap() - 0.9).abs() < 1e-9);
//! # Ok::<(), bench_stats::StatsError>(())
//! ```
//!
//! One test on its own:
//!
//! ```
//! use bench_stats::Sample;
//! use bench_stats::rank::mann_whitney_u;
//! let old = Sample::new(&[10.2, 10.4, 10.1, 10.3, 10.5])?;
//! let new = Sample::new(&[9.1, 9.3, 9.0, 9.2, 9.4])?;
//! let test = mann_whitney_u(&old, &new)?;
//! assert!(test.p_value < 0.05); // exact two-sided p = 2/252
//! # Ok::<(), bench_stats::StatsError>(())
//! ```
//!
//! Features: `serde` (default) derives `Serialize`/`Deserialize` for the [`model`];
//! `parallel` (default) runs the bootstrap on rayon, bit-identical to the serial path.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
// A match on one of our enums names every variant, so a new variant is a compile (or
// clippy) error wherever it needs a decision.
#![deny(
    clippy::wildcard_enum_match_arm,
    clippy::match_wildcard_for_single_variants
)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod analysis;
pub mod descriptive;
pub mod diagnostics;
mod error;
mod front;
pub mod hierarchy;
pub mod history;
pub mod model;
pub mod paired;
pub mod parametric;
pub mod plan;
pub mod probe;
pub mod rank;
pub mod resample;
pub mod sequential;
#[cfg(feature = "sim")]
#[cfg_attr(docsrs, doc(cfg(feature = "sim")))]
pub mod sim;
pub mod special;
pub mod suite;

pub use crate::analysis::{
    AnalysisConfig, Grouping, PracticalRule, SignificanceTest, analyze, analyze_with,
};
pub use crate::descriptive::{Sample, SampleError};
pub use crate::error::StatsError;
pub use crate::front::{Answer, answers, compare_paired, compare_paired_with};
pub use crate::model::{
    ANALYSIS_SCHEMA, Analysis, Comparison, CustomTestReport, Dataset, Design, EffectReport,
    GroupAnalysis, Observation, Outcome, Parameter, Quantity, Series, TrendReport, Verdict,
    VerdictBasis, Warning, WarningCode,
};
pub use crate::paired::PairedEstimator;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
