//! The hierarchical block bootstrap of a pooled effect: resample the top-level units
//! (hosts) with replacement, then the sessions within each drawn unit, then the blocks
//! within each drawn session (Kalibera & Jones 2013, "Rigorous benchmarking in reasonable
//! time", ISMM; Davison & Hinkley 1997, *Bootstrap Methods*, §3.8).
//!
//! Resampling every level with replacement counts the lower levels' noise twice (it is
//! already in the spread of the unit means), so the standard error leans high: 1.6-2.3
//! times the t interval on the means when the effect is the same on every host
//! (`tests/integration/hierarchy_sim.rs`). The analysis therefore decides from the units'
//! means ([`super::pool_units`]) and reports this bootstrap beside it as a cross-check,
//! studentized as `estimate ± t(k - 1) · SE · sqrt(k / (k - 1))` (see
//! [`super::pooled_interval`]): with few units no percentile interval of a bootstrap can
//! cover (two hosts give three distinct resampled means).

use rand::Rng;

use crate::resample::bootstrap::{per_index, stream};

/// The pooled statistic: the mean over units of the mean over sessions of the mean block
/// value. Empty sessions and units must have been removed.
pub fn pooled_mean(units: &[Vec<Vec<f64>>]) -> f64 {
    let unit_mean = |u: &Vec<Vec<f64>>| {
        u.iter()
            .map(|s| s.iter().sum::<f64>() / s.len() as f64)
            .sum::<f64>()
            / u.len() as f64
    };
    units.iter().map(unit_mean).sum::<f64>() / units.len() as f64
}

/// What [`hierarchical_bootstrap`] returns.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HierarchicalBootstrap {
    /// The pooled mean of the data ([`pooled_mean`]).
    pub estimate: f64,
    /// The standard deviation of the resampled pooled means.
    pub standard_error: f64,
    /// Resamples drawn.
    pub resamples: u32,
}

/// Bootstraps [`pooled_mean`] of `units` (unit → session → block values), resampling
/// every level with replacement. Resample `i` draws from its own seeded stream, so the
/// result is the same on any number of threads. Time: O(resamples × blocks).
///
/// Returns `None` when a unit or session is empty, a value is not finite, or
/// `resamples < 2`.
///
/// # Examples
/// ```
/// use bench_stats::hierarchy::hierarchical_bootstrap;
/// let hosts = vec![
///     vec![vec![0.01, 0.02, 0.03], vec![0.02, 0.01]],
///     vec![vec![0.05, 0.04], vec![0.06, 0.05, 0.04]],
/// ];
/// let b = hierarchical_bootstrap(&hosts, 500, 7).unwrap();
/// assert!((b.estimate - 0.0325).abs() < 1e-12);
/// assert!(b.standard_error > 0.0);
/// ```
pub fn hierarchical_bootstrap(
    units: &[Vec<Vec<f64>>],
    resamples: u32,
    seed: u64,
) -> Option<HierarchicalBootstrap> {
    let valid = !units.is_empty()
        && units.iter().all(|u| {
            !u.is_empty()
                && u.iter()
                    .all(|s| !s.is_empty() && s.iter().all(|v| v.is_finite()))
        });
    if !valid || resamples < 2 {
        return None;
    }
    let one = |i: u64| {
        let mut rng = stream(seed, i);
        let k = units.len();
        let mut total = 0.0;
        for _ in 0..k {
            let unit = &units[rng.random_range(0..k)];
            let mut unit_sum = 0.0;
            for _ in 0..unit.len() {
                let session = &unit[rng.random_range(0..unit.len())];
                let n = session.len();
                let sum: f64 = (0..n).map(|_| session[rng.random_range(0..n)]).sum();
                unit_sum += sum / n as f64;
            }
            total += unit_sum / unit.len() as f64;
        }
        total / k as f64
    };
    let reps = per_index(resamples, || (), |_, i| one(i));
    let mean = reps.iter().sum::<f64>() / reps.len() as f64;
    let var = reps.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (reps.len() - 1) as f64;
    Some(HierarchicalBootstrap {
        estimate: pooled_mean(units),
        standard_error: var.sqrt(),
        resamples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_unit_one_session_one_block_has_no_spread() {
        let b = hierarchical_bootstrap(&[vec![vec![0.5]]], 50, 1).unwrap();
        assert_eq!(b.estimate, 0.5);
        assert_eq!(b.standard_error, 0.0);
        assert!(hierarchical_bootstrap(&[vec![]], 50, 1).is_none());
        assert!(hierarchical_bootstrap(&[vec![vec![f64::NAN]]], 50, 1).is_none());
    }

    /// Balanced units with one session each: the host-level resampling alone gives a
    /// variance of about (k - 1) / k · s² / k of the unit means.
    #[test]
    fn top_level_spread_dominates_when_units_differ() {
        let units: Vec<Vec<Vec<f64>>> = (0..10).map(|h| vec![vec![f64::from(h); 4]]).collect();
        let b = hierarchical_bootstrap(&units, 4000, 3).unwrap();
        let s2 = 55.0 / 6.0; // sample variance of 0..9
        let expected = ((9.0 / 10.0) * s2 / 10.0f64).sqrt();
        assert!(
            (b.standard_error / expected - 1.0).abs() < 0.05,
            "{}",
            b.standard_error
        );
    }
}
