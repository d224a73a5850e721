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
//! - Paired analysis of blocked data (the default verdict: Hodges-Lehmann of the per-block
//!   log-ratios with its signed-rank interval, chosen by calibration), variance components,
//!   ratio of ratios, carryover.
//! - [`analyze`] and [`Analysis`]: a [`Dataset`] in, the `abba.analysis/1` model out, with
//!   a pluggable [`SignificanceTest`] and the practical-significance gate.
//!
//! ```
//! use bench_stats::{AnalysisConfig, Dataset, Observation, Outcome, Series, analyze};
//! // Two variants measured in the same 8 blocks; B is about 10% faster in every block.
//! let series = |name: &str, scale: f64| Series {
//!     name: name.into(),
//!     class: None,
//!     observations: (0..8u32)
//!         .map(|b| Observation { value: scale * (100.0 + f64::from(b % 3)), block: Some(b), position: None })
//!         .collect(),
//! };
//! let data = Dataset {
//!     unit: "ns".into(),
//!     higher_is_better: false,
//!     design: Some("abba".into()),
//!     series: vec![series("A", 1.0), series("B", 0.9)],
//!     reference: None,
//! };
//! let analysis = analyze(&data, &AnalysisConfig::default())?;
//! let b = &analysis.groups[0].comparisons[0];
//! assert_eq!(b.outcome, Outcome::Faster);
//! assert!((b.ratio.unwrap() - 0.9).abs() < 1e-9);
//! # Ok::<(), bench_stats::StatsError>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod analysis;
mod bootstrap;
mod carryover;
mod cliff;
mod dataset;
mod error;
mod friedman;
mod hodges_lehmann;
mod holm;
mod iid;
mod kruskal;
mod mann_whitney;
mod model;
mod paired;
mod rank;
mod reference;
mod sample;
mod special;
mod summary;
mod variance;
mod wilcoxon;

pub use crate::analysis::{
    AnalysisConfig, DefaultTest, EffectSize, FriedmanTest, Group, Grouping, KruskalWallisTest,
    MannWhitneyTest, PairwiseComparison, SignificanceContext, SignificanceReport, SignificanceTest,
    analyze, analyze_with, paired_dominance,
};
pub use crate::bootstrap::{
    BcaParameters, BootstrapConfig, BootstrapInterval, IntervalMethod, MIN_RESAMPLES,
    bca_from_replicates, bootstrap_mean, bootstrap_statistic, unpaired_bootstrap_difference,
};
pub use crate::carryover::{
    CarryoverConfig, CarryoverFinding, CarryoverReport, CarryoverRun, carryover,
};
pub use crate::cliff::{CliffsDelta, Magnitude, cliffs_delta};
pub use crate::dataset::{Dataset, Observation, Series};
pub use crate::error::StatsError;
pub use crate::friedman::{FriedmanOutcome, friedman};
pub use crate::hodges_lehmann::{HL_MAX_PER_GROUP, ShiftEstimate, hodges_lehmann};
pub use crate::holm::holm_bonferroni;
pub use crate::iid::{IidChecks, IidConfig, iid_checks, iid_checks_with};
pub use crate::kruskal::{KruskalWallisOutcome, kruskal_wallis};
pub use crate::mann_whitney::{
    AUTO_EXACT_MAX_TOTAL, Alternative, EXACT_MAX_TOTAL, MannWhitneyConfig, MannWhitneyMethod,
    MannWhitneyMethodChoice, MannWhitneyOutcome, mann_whitney_u, mann_whitney_u_with,
};
pub use crate::model::{
    ANALYSIS_SCHEMA, Analysis, BenchmarkSummary, CliffsDeltaReport, Comparison, Control,
    GroupAnalysis, MannWhitneyReport, Omnibus, OmnibusTest, Outcome, OutlierCounts, PairedReport,
    ReferenceReport, ShiftReport, Treatment, VarianceComponentsReport, Verdict, Warning,
};
pub use crate::paired::{
    LARGE_SAMPLE_BLOCKS, PairedAnalysis, PairedConfig, PairedEstimator, block_bootstrap, cohens_d,
    paired_analysis,
};
pub use crate::reference::{REFERENCE_BIAS_LIMIT, RatioOfRatios, ratio_of_ratios};
pub use crate::sample::{Sample, SampleError};
pub use crate::special::{
    chi2_sf, erfc, ln_gamma, normal_cdf, normal_ppf, normal_sf, regularized_gamma_p,
    regularized_gamma_q,
};
pub use crate::summary::{
    P99_MIN_SAMPLES, P99Withheld, Summary, TukeyFences, benchmark_summary, percentile, summarize,
};
pub use crate::variance::{VarianceComponents, paired_variance_components, variance_components};
pub use crate::wilcoxon::{
    ContinuityCorrection, PAIRED_HL_MAX_DIFFERENCES, PairedShift, WILCOXON_AUTO_EXACT_MAX,
    WILCOXON_EXACT_MAX, WILCOXON_PERMUTATION_MAX, WilcoxonConfig, WilcoxonMethod,
    WilcoxonMethodChoice, WilcoxonOutcome, paired_hodges_lehmann, wilcoxon_signed_rank,
    wilcoxon_signed_rank_with,
};
