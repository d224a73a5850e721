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
