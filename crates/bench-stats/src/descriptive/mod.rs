//! Validated samples and their descriptive statistics: location, spread, percentiles and
//! Tukey outliers.

pub mod sample;
pub mod summary;

pub use sample::{Sample, SampleError};
pub use summary::{
    P99_MIN_SAMPLES, P99Withheld, Summary, TukeyFences, benchmark_summary, median_interval,
    median_of, percentile, quantile_sorted, summarize,
};
