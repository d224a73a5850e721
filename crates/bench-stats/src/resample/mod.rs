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

/// The jackknife standard error from the leave-one-out (or leave-one-group-out) values of
/// a statistic: `sqrt((g - 1) / g * sum (v_i - mean v)^2)` over the `g` values (0 for
/// fewer than 2).
pub(crate) fn jackknife_standard_error(values: &[f64]) -> f64 {
    let g = values.len() as f64;
    if values.len() < 2 {
        return 0.0;
    }
    let m = crate::descriptive::summary::mean(values);
    let ss: f64 = values.iter().map(|v| (v - m) * (v - m)).sum();
    ((g - 1.0) / g * ss).sqrt()
}
