//! Blocked (paired) data: the block bootstrap and the paired estimators, effect sizes
//! (Cohen's dz), variance components (what pairing gains), and the ratio of ratios against
//! a reference workload.

pub mod all_runs;
pub mod estimators;
pub mod reference;
pub mod robust;
pub mod running;
pub mod shape;
pub mod variance;

pub use all_runs::{AllRunsMean, all_runs_mean};
pub use estimators::{
    LARGE_SAMPLE_BLOCKS, PairedAnalysis, PairedConfig, PairedEstimator, RunsEstimate,
    block_bootstrap, cohens_d, paired_analysis, paired_analysis_of_runs,
};
pub use reference::{REFERENCE_BIAS_LIMIT, RatioOfRatios, ratio_of_ratios, ratio_of_ratios_beside};
pub use robust::{BlockSummary, PooledMedianRatio, pooled_median_ratio};
pub use running::{PROVISIONAL_AFTER, Provisional, RunningEstimate};
pub use variance::{VarianceComponents, paired_variance_components, variance_components};
