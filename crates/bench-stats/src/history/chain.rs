//! The chain of paired steps: the cumulative change over consecutive commit-vs-parent
//! comparisons.

use crate::special::{normal_ppf, normal_sf};

/// One paired step: a commit against its parent (or any two recorded commits).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Step {
    /// `ln(candidate / baseline)`.
    pub log_ratio: f64,
    /// Standard error of `log_ratio` (at least 0).
    pub std_error: f64,
}

impl Step {
    /// The step of a paired `ratio` with its interval `[low, high]` at `confidence`,
    /// taking the interval as normal on the log scale: `log_ratio = ln(ratio)`,
    /// `std_error = (ln high - ln low) / (2 z)`. `None` unless `0 < low <= ratio <= high`
    /// are finite and `confidence` is in (0, 1).
    ///
    /// # Examples
    /// ```
    /// use bench_stats::history::Step;
    /// let s = Step::from_interval(1.02, [1.0, 1.04], 0.95).unwrap();
    /// assert!((s.log_ratio - 1.02f64.ln()).abs() < 1e-15);
    /// assert!((s.std_error - (1.04f64.ln() / (2.0 * 1.959_963_984_540_054))).abs() < 1e-12);
    /// ```
    pub fn from_interval(ratio: f64, interval: [f64; 2], confidence: f64) -> Option<Step> {
        let [low, high] = interval;
        let ok = [ratio, low, high].iter().all(|v| v.is_finite())
            && 0.0 < low
            && low <= ratio
            && ratio <= high;
        if !ok {
            return None;
        }
        let z = z_of(confidence)?;
        Some(Step {
            log_ratio: ratio.ln(),
            std_error: (high.ln() - low.ln()) / (2.0 * z),
        })
    }

    /// The two-sided normal p of "no change": `2 * (1 - Phi(|log_ratio| / std_error))`.
    /// `None` for a non-finite field or a zero or negative standard error.
    ///
    /// # Examples
    /// ```
    /// use bench_stats::history::Step;
    /// let p = Step { log_ratio: 0.0196, std_error: 0.01 }.p_value().unwrap();
    /// assert!((p - 0.05).abs() < 1e-3);
    /// ```
    pub fn p_value(&self) -> Option<f64> {
        if !(self.log_ratio.is_finite() && self.std_error.is_finite() && self.std_error > 0.0) {
            return None;
        }
        Some((2.0 * normal_sf(self.log_ratio.abs() / self.std_error)).min(1.0))
    }
}

/// The cumulative change over a chain of [`Step`]s ([`chain`]).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Chain {
    /// `exp(sum log_ratio)`: the last commit against the first baseline.
    pub ratio: f64,
    /// The interval of `ratio` at the confidence asked for: `exp(D -+ z sqrt(sum s^2))`.
    pub interval: [f64; 2],
    /// Indices of the steps that carried most of the change, largest first: the fewest
    /// steps, taken in decreasing order of their log ratio in the direction of the total,
    /// whose log ratios add up to at least half of the total (empty when the total is 0).
    pub largest_steps: Vec<usize>,
    /// `sum log_ratio`.
    pub log_ratio: f64,
    /// `sqrt(sum std_error^2)`.
    pub std_error: f64,
}

/// The chain of `steps` at `confidence` (the method below). `None` for no
/// step, a non-finite or negative field, `confidence` outside (0, 1), or a sum that
/// overflows.
///
/// # Method
///
/// Each step is one paired experiment's log ratio `d_i = ln(candidate / baseline)` with
/// its standard error `s_i`. Independent experiments give the cumulative log ratio
/// `D = sum d_i` with variance `sum s_i^2`, so the chain's ratio is `exp(D)` and its
/// interval `exp(D -+ z sqrt(sum s_i^2))`, `z` the normal quantile at
/// `1 - (1 - confidence) / 2`: the normal interval on the log scale whose variances add.
/// A step's standard error from its reported interval: [`Step::from_interval`].
///
/// Time: O(k log k) for `k` steps.
///
/// # Examples
/// ```
/// use bench_stats::history::{Step, chain};
/// let steps = [
///     Step { log_ratio: 0.02, std_error: 0.01 },
///     Step { log_ratio: -0.005, std_error: 0.01 },
///     Step { log_ratio: 0.01, std_error: 0.02 },
/// ];
/// let c = chain(&steps, 0.95).unwrap();
/// assert!((c.log_ratio - 0.025).abs() < 1e-15);
/// assert!((c.std_error - 0.0006f64.sqrt()).abs() < 1e-15);
/// assert_eq!(c.largest_steps, vec![0]); // 0.02 alone is more than half of 0.025
/// ```
pub fn chain(steps: &[Step], confidence: f64) -> Option<Chain> {
    if steps.is_empty() {
        return None;
    }
    let z = z_of(confidence)?;
    let ok = steps
        .iter()
        .all(|s| s.log_ratio.is_finite() && s.std_error.is_finite() && s.std_error >= 0.0);
    if !ok {
        return None;
    }
    let log_ratio: f64 = steps.iter().map(|s| s.log_ratio).sum();
    let variance: f64 = steps.iter().map(|s| s.std_error * s.std_error).sum();
    let std_error = variance.sqrt();
    let ratio = log_ratio.exp();
    let interval = [
        (log_ratio - z * std_error).exp(),
        (log_ratio + z * std_error).exp(),
    ];
    if !(ratio.is_finite() && interval.iter().all(|v| v.is_finite()) && std_error.is_finite()) {
        return None;
    }
    Some(Chain {
        ratio,
        interval,
        largest_steps: largest(steps, log_ratio),
        log_ratio,
        std_error,
    })
}

/// The fewest steps whose contributions in the direction of `total` reach half of it.
fn largest(steps: &[Step], total: f64) -> Vec<usize> {
    if total == 0.0 {
        return Vec::new();
    }
    let sign = total.signum();
    let mut order: Vec<usize> = (0..steps.len())
        .filter(|&i| steps[i].log_ratio * sign > 0.0)
        .collect();
    order.sort_by(|&a, &b| {
        (steps[b].log_ratio * sign)
            .total_cmp(&(steps[a].log_ratio * sign))
            .then(a.cmp(&b))
    });
    let half = total.abs() / 2.0;
    let mut sum = 0.0;
    let mut out = Vec::new();
    for i in order {
        out.push(i);
        sum += steps[i].log_ratio * sign;
        if sum >= half {
            break;
        }
    }
    out
}

fn z_of(confidence: f64) -> Option<f64> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return None;
    }
    normal_ppf(1.0 - (1.0 - confidence) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degenerate_chains_are_none() {
        let s = Step {
            log_ratio: 0.01,
            std_error: 0.01,
        };
        assert!(chain(&[], 0.95).is_none());
        assert!(chain(std::slice::from_ref(&s), 1.0).is_none());
        assert!(chain(std::slice::from_ref(&s), f64::NAN).is_none());
        let bad = Step {
            std_error: -1.0,
            ..s.clone()
        };
        assert!(chain(&[s.clone(), bad], 0.95).is_none());
        let nan = Step {
            log_ratio: f64::NAN,
            ..s.clone()
        };
        assert!(chain(&[nan], 0.95).is_none());
        assert!(
            chain(
                &[Step {
                    log_ratio: 1e308,
                    std_error: 0.0
                }],
                0.95
            )
            .is_none()
        );
    }

    #[test]
    fn no_change_has_no_largest_step() {
        let steps = [
            Step {
                log_ratio: 0.01,
                std_error: 0.01,
            },
            Step {
                log_ratio: -0.01,
                std_error: 0.01,
            },
        ];
        let c = chain(&steps, 0.95).unwrap();
        assert_eq!(c.ratio, 1.0);
        assert!(c.largest_steps.is_empty());
    }
}
