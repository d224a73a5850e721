//! Resampling: the seeded bootstrap engine (percentile, BCa and studentized intervals),
//! bit-identical whatever the thread count.
//!
//! ```
//! use bench_stats::Sample;
//! use bench_stats::resample::{BootstrapConfig, bootstrap_mean};
//! let s = Sample::new(&[9.8, 10.1, 10.0, 10.3, 9.9, 10.2])?;
//! let ci = bootstrap_mean(&s, &BootstrapConfig::default())?;
//! assert!(ci.low <= 10.05 && 10.05 <= ci.high);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod bootstrap;

pub use bootstrap::{
    BcaParameters, BootstrapConfig, BootstrapInterval, IntervalMethod, MIN_RESAMPLES,
    bca_from_replicates, bootstrap_mean, bootstrap_statistic, unpaired_bootstrap_difference,
};
pub(crate) mod jump;
pub(crate) mod median_ratio;
