//! Post-hoc i.i.d. sanity checks on an arrival-order stream of measurements.
//!
//! - Drift: a two-sided Mann-Whitney U test of the first half of the stream against the
//!   second half; a p-value below [`IidConfig::drift_alpha`] (0.001) warns that the
//!   distribution moved during measurement.
//! - Dependence: the lag-1 sample autocorrelation
//!   `r = sum (x_t - mean)(x_(t-1) - mean) / sum (x_t - mean)^2`; above
//!   [`IidConfig::max_autocorrelation`] (0.5) it warns, reporting the effective sample
//!   size `n (1 - r) / (1 + r)` of an AR(1) process.
//!
//! Both are advisory: they say the reported uncertainty may be too small.

use crate::Sample;
use crate::StatsError;
use crate::rank::mann_whitney::{MannWhitneyConfig, mann_whitney_slices};

/// Thresholds of [`iid_checks_with`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IidConfig {
    /// Fewest values for which the checks run. Default: 50.
    pub min_samples: usize,
    /// Drift warns when the split-half p-value is below this. Default: 0.001.
    pub drift_alpha: f64,
    /// Dependence warns when the lag-1 autocorrelation exceeds this. Default: 0.5.
    pub max_autocorrelation: f64,
}

impl Default for IidConfig {
    fn default() -> Self {
        IidConfig {
            min_samples: 50,
            drift_alpha: 0.001,
            max_autocorrelation: 0.5,
        }
    }
}

/// Outcome of the i.i.d. checks.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct IidChecks {
    /// Number of values checked.
    pub n: usize,
    /// Two-sided split-half Mann-Whitney p-value; `None` when every value is equal (no
    /// drift is possible then).
    pub drift_p_value: Option<f64>,
    /// `true` when `drift_p_value < drift_alpha`.
    pub drift: bool,
    /// Lag-1 autocorrelation; `None` when every value is equal.
    pub lag1_autocorrelation: Option<f64>,
    /// `true` when the autocorrelation exceeds `max_autocorrelation`.
    pub autocorrelated: bool,
    /// `n (1 - r) / (1 + r)`; `None` when `r` is undefined or `r <= -1`.
    pub effective_n: Option<f64>,
}

impl IidChecks {
    /// `true` when either check tripped.
    pub fn any_warning(&self) -> bool {
        self.drift || self.autocorrelated
    }
}

/// Runs both checks with the default thresholds on `stream` (values in arrival order).
///
/// Time: O(n log n).
///
/// # Errors
/// [`StatsError::TooFewSamples`] ("not checked") for fewer than 50 values.
///
/// # Examples
/// ```
/// use bench_stats::Sample;
/// use bench_stats::diagnostics::iid_checks;
/// let ramp: Vec<f64> = (0..100).map(|i| 100.0 + f64::from(i)).collect();
/// let c = iid_checks(&Sample::new(&ramp)?)?;
/// assert!(c.drift && c.autocorrelated);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn iid_checks(stream: &Sample) -> Result<IidChecks, StatsError> {
    iid_checks_with(stream, &IidConfig::default())
}

/// Runs both checks with explicit thresholds.
///
/// Time: O(n log n).
///
/// # Errors
/// [`StatsError::TooFewSamples`] for fewer than `max(config.min_samples, 4)` values.
pub fn iid_checks_with(stream: &Sample, config: &IidConfig) -> Result<IidChecks, StatsError> {
    let x = stream.values();
    let n = x.len();
    let needed = config.min_samples.max(4);
    if n < needed {
        return Err(StatsError::TooFewSamples {
            what: "i.i.d. checks",
            needed,
            got: n,
        });
    }
    let (first, second) = x.split_at(n / 2);
    let drift_p_value = match mann_whitney_slices(first, second, &MannWhitneyConfig::default()) {
        Ok(t) => Some(t.p_value),
        Err(_) => None,
    };
    let r = lag1_autocorrelation(x);
    let effective_n = r
        .filter(|&r| r > -1.0)
        .map(|r| n as f64 * (1.0 - r) / (1.0 + r));
    Ok(IidChecks {
        n,
        drift_p_value,
        drift: drift_p_value.is_some_and(|p| p < config.drift_alpha),
        lag1_autocorrelation: r,
        autocorrelated: r.is_some_and(|r| r > config.max_autocorrelation),
        effective_n,
    })
}

/// Lag-1 autocorrelation, computed on values scaled into `[-1, 1]` so that no
/// intermediate overflows. `None` when the values are all equal.
fn lag1_autocorrelation(x: &[f64]) -> Option<f64> {
    if x.iter().all(|v| *v == x[0]) {
        return None;
    }
    let scale = x.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    if scale == 0.0 {
        return None;
    }
    let n = x.len() as f64;
    let mean = x.iter().map(|v| v / scale).sum::<f64>() / n;
    let dev: Vec<f64> = x.iter().map(|v| v / scale - mean).collect();
    let den: f64 = dev.iter().map(|d| d * d).sum();
    if den <= 0.0 || !den.is_finite() {
        return None;
    }
    let num: f64 = dev.windows(2).map(|w| w[0] * w[1]).sum();
    let r = num / den;
    r.is_finite().then_some(r.clamp(-1.0, 1.0))
}
