//! The pooled effect from the top-level units' means: a Student t interval on the means
//! when the units are balanced, else a random-effects meta-analysis of them.
//!
//! Each unit (host) gives one mean block log-ratio `y_i` (the mean over its sessions of
//! their mean block value) and its within-unit variance `v_i`. The spread of the `y_i`
//! already holds the within-unit noise, so the pooled interval needs only the means: it
//! counts that noise once, where the hierarchical bootstrap ([`super::hierarchical_bootstrap`])
//! resamples it again inside every drawn unit.
//!
//! - **Balanced units** (the same number of sessions and of blocks in every unit): the
//!   plain mean of the `y_i` with `SE = s_y / sqrt(k)` and Student's t on `k - 1` degrees
//!   of freedom, exact for normal unit means of one variance.
//! - **Unbalanced units**: DerSimonian & Laird (1986) `τ² = max(0, (Q - (k - 1)) / (Σw -
//!   Σw² / Σw))` from Cochran's Q with weights `w = 1 / v`; random-effects weights
//!   `w* = 1 / (v + τ²)`, `μ = Σ w* y / Σ w*`; the Hartung-Knapp-Sidik-Jonkman variance
//!   (Hartung & Knapp 2001; Sidik & Jonkman 2002) `q / Σ w*` with
//!   `q = Σ w* (y - μ)² / (k - 1)`, replaced by `max(1, q) / Σ w*`, the "ad hoc"
//!   modification of Knapp & Hartung (2003) recommended for few studies by Röver, Knapp &
//!   Friede (2015, *BMC Med. Res. Methodol.* 15:99), so the interval is never narrower
//!   than the plain random-effects one; Student's t on `k - 1` degrees of freedom.
//!
//! Checked against NumPy/SciPy in `fixtures/scipy/generate_meta.py` (`meta.json`).

use crate::model::levels::PooledMethod;
use crate::special::student_t_ppf;

/// One top-level unit's summary: its mean block log-ratio and that mean's variance.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct UnitMean {
    /// The mean over the unit's sessions of their mean block value.
    pub mean: f64,
    /// The variance of `mean` if the blocks are independent with the unit's block
    /// variance `s²` (about the unit's mean block value): `s² · Σ_s (1 / n_s) / S²` over
    /// its `S` sessions of `n_s` blocks (`s² / n` with one session). `None` with fewer than
    /// 2 blocks or no spread.
    pub variance: Option<f64>,
    /// Its sessions.
    pub sessions: usize,
    /// Its blocks.
    pub blocks: usize,
}

/// A pooled estimate on the log scale and how it was built.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PooledMeans {
    /// Which construction.
    pub method: PooledMethod,
    /// The pooled mean.
    pub estimate: f64,
    /// Its standard error (for HKSJ, `sqrt(max(1, q) / Σ w*)`).
    pub standard_error: f64,
    /// Units minus 1: the degrees of freedom of Student's t.
    pub df: usize,
    /// DerSimonian-Laird `τ²` (random effects only).
    pub tau_squared: Option<f64>,
    /// The HKSJ factor `q` before truncation at 1 (random effects only).
    pub hksj_factor: Option<f64>,
}

impl PooledMeans {
    /// `estimate ± t(1 - (1 - level) / 2, df) · standard_error`; `None` when `level` is
    /// not in (0, 1).
    pub fn interval(&self, level: f64) -> Option<[f64; 2]> {
        if !(level > 0.0 && level < 1.0) {
            return None;
        }
        let t = student_t_ppf(1.0 - (1.0 - level) / 2.0, self.df as f64)?;
        let half = t * self.standard_error;
        Some([self.estimate - half, self.estimate + half])
    }
}

/// Each unit's [`UnitMean`] (`units`: unit → session → block values). Time: O(blocks).
///
/// Returns `None` when a unit or a session is empty or a value is not finite.
pub fn unit_means(units: &[Vec<Vec<f64>>]) -> Option<Vec<UnitMean>> {
    units
        .iter()
        .map(|u| {
            if u.is_empty()
                || u.iter()
                    .any(|s| s.is_empty() || s.iter().any(|v| !v.is_finite()))
            {
                return None;
            }
            let sessions = u.len() as f64;
            let mean = u
                .iter()
                .map(|s| s.iter().sum::<f64>() / s.len() as f64)
                .sum::<f64>()
                / sessions;
            let n: usize = u.iter().map(Vec::len).sum();
            let all = u.iter().flatten();
            let grand = all.clone().sum::<f64>() / n as f64;
            let s2 = all.map(|v| (v - grand).powi(2)).sum::<f64>() / (n as f64 - 1.0);
            let inv_n: f64 = u.iter().map(|s| 1.0 / s.len() as f64).sum();
            let variance =
                (n >= 2 && s2 > 0.0 && s2.is_finite()).then(|| s2 * inv_n / sessions.powi(2));
            Some(UnitMean {
                mean,
                variance,
                sessions: u.len(),
                blocks: n,
            })
        })
        .collect()
}

/// Student's t on the unit `means`: their mean, `SE = s / sqrt(k)`, `k - 1` degrees of
/// freedom. Time: O(k).
///
/// Returns `None` with fewer than 2 means or a value not finite.
///
/// # Examples
/// ```
/// use bench_stats::hierarchy::t_on_means;
/// let p = t_on_means(&[0.01, 0.02, 0.03]).unwrap();
/// assert!((p.estimate - 0.02).abs() < 1e-15);
/// assert!((p.standard_error - 0.01 / 3f64.sqrt()).abs() < 1e-15);
/// ```
pub fn t_on_means(means: &[f64]) -> Option<PooledMeans> {
    let k = means.len();
    if k < 2 || means.iter().any(|m| !m.is_finite()) {
        return None;
    }
    let kf = k as f64;
    let m = means.iter().sum::<f64>() / kf;
    let s2 = means.iter().map(|y| (y - m).powi(2)).sum::<f64>() / (kf - 1.0);
    Some(PooledMeans {
        method: PooledMethod::TOnMeans,
        estimate: m,
        standard_error: (s2 / kf).sqrt(),
        df: k - 1,
        tau_squared: None,
        hksj_factor: None,
    })
}

/// The random-effects meta-analysis of `means` with within-unit `variances`: DerSimonian-
/// Laird `τ²`, weights `1 / (v + τ²)`, the Hartung-Knapp-Sidik-Jonkman variance with the
/// `max(1, q)` modification, `k - 1` degrees of freedom (see the module docs). Time: O(k).
///
/// Returns `None` with fewer than 2 units, lengths that differ, a mean not finite or a
/// variance not positive and finite.
///
/// # Examples
/// ```
/// use bench_stats::hierarchy::random_effects_hksj;
/// // Two units of variance 1 at 0 and 2: Q = 2, τ² = (2 - 1) / (2 - 1) = 1,
/// // w* = 1/2 each, μ = 1, q = (0.5 + 0.5) / 1 = 1, SE = sqrt(1 / 1).
/// let p = random_effects_hksj(&[0.0, 2.0], &[1.0, 1.0]).unwrap();
/// assert!((p.tau_squared.unwrap() - 1.0).abs() < 1e-12);
/// assert!((p.estimate - 1.0).abs() < 1e-12);
/// assert!((p.standard_error - 1.0).abs() < 1e-12);
/// ```
pub fn random_effects_hksj(means: &[f64], variances: &[f64]) -> Option<PooledMeans> {
    let k = means.len();
    if k < 2
        || variances.len() != k
        || means.iter().any(|m| !m.is_finite())
        || variances.iter().any(|v| !(v.is_finite() && *v > 0.0))
    {
        return None;
    }
    let df = (k - 1) as f64;
    let w: Vec<f64> = variances.iter().map(|v| 1.0 / v).collect();
    let sw: f64 = w.iter().sum();
    let sw2: f64 = w.iter().map(|x| x * x).sum();
    let fixed = weighted_mean(means, &w, sw);
    let q_cochran: f64 = means
        .iter()
        .zip(&w)
        .map(|(y, wi)| wi * (y - fixed).powi(2))
        .sum();
    let tau2 = ((q_cochran - df) / (sw - sw2 / sw)).max(0.0);
    let ws: Vec<f64> = variances.iter().map(|v| 1.0 / (v + tau2)).collect();
    let sws: f64 = ws.iter().sum();
    let mu = weighted_mean(means, &ws, sws);
    let q = means
        .iter()
        .zip(&ws)
        .map(|(y, wi)| wi * (y - mu).powi(2))
        .sum::<f64>()
        / df;
    let se = (q.max(1.0) / sws).sqrt();
    (mu.is_finite() && se.is_finite()).then_some(PooledMeans {
        method: PooledMethod::RandomEffectsHksj,
        estimate: mu,
        standard_error: se,
        df: k - 1,
        tau_squared: Some(tau2),
        hksj_factor: Some(q),
    })
}

fn weighted_mean(y: &[f64], w: &[f64], sw: f64) -> f64 {
    y.iter().zip(w).map(|(y, w)| y * w).sum::<f64>() / sw
}

/// The pooled estimate of `units` (unit → session → block values): [`t_on_means`] when
/// every unit has the same sessions and blocks, or when some unit has no within-unit
/// variance; else [`random_effects_hksj`] of the [`unit_means`]. Time: O(blocks).
///
/// Returns `None` with fewer than 2 units, an empty unit or session, or a value not
/// finite.
///
/// # Examples
/// ```
/// use bench_stats::hierarchy::pool_units;
/// use bench_stats::model::PooledMethod;
/// let balanced = vec![vec![vec![0.01, 0.03]], vec![vec![0.02, 0.02]], vec![vec![0.0, 0.04]]];
/// assert_eq!(pool_units(&balanced).unwrap().method, PooledMethod::TOnMeans);
/// let unbalanced = vec![vec![vec![0.01, 0.03, 0.02]], vec![vec![0.02, 0.01]], vec![vec![0.0, 0.04]]];
/// assert_eq!(pool_units(&unbalanced).unwrap().method, PooledMethod::RandomEffectsHksj);
/// ```
pub fn pool_units(units: &[Vec<Vec<f64>>]) -> Option<PooledMeans> {
    let summaries = unit_means(units)?;
    let means: Vec<f64> = summaries.iter().map(|u| u.mean).collect();
    let first = summaries.first()?;
    let balanced = summaries
        .iter()
        .all(|u| u.sessions == first.sessions && u.blocks == first.blocks);
    let variances: Option<Vec<f64>> = summaries.iter().map(|u| u.variance).collect();
    match variances {
        Some(v) if !balanced => random_effects_hksj(&means, &v),
        _ => t_on_means(&means),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Means 0, 0.1, 0.2 of variance 1: Q = 0.02 < 2 df, so `τ² = 0`, the weights are
    /// equal, μ = 0.1 and q = 0.01 is raised to 1: the SE is the fixed-effect `sqrt(1 / 3)`.
    #[test]
    fn q_below_one_keeps_the_fixed_effect_variance() {
        let p = random_effects_hksj(&[0.0, 0.1, 0.2], &[1.0, 1.0, 1.0]).unwrap();
        assert_eq!(p.tau_squared, Some(0.0));
        assert!(p.hksj_factor.unwrap() < 1.0);
        assert!((p.estimate - 0.1).abs() < 1e-15);
        assert!((p.standard_error - (1.0f64 / 3.0).sqrt()).abs() < 1e-15);
    }

    #[test]
    fn degenerate_inputs_pool_nothing() {
        assert!(t_on_means(&[1.0]).is_none());
        assert!(random_effects_hksj(&[1.0, 2.0], &[1.0]).is_none());
        assert!(random_effects_hksj(&[1.0, 2.0], &[1.0, 0.0]).is_none());
        assert!(pool_units(&[vec![vec![]], vec![vec![1.0]]]).is_none());
        // A unit without spread cannot be weighed: the t interval on the means decides.
        let p = pool_units(&[vec![vec![1.0, 1.0]], vec![vec![1.0, 2.0, 3.0]]]).unwrap();
        assert_eq!(p.method, PooledMethod::TOnMeans);
        assert!((p.estimate - 1.5).abs() < 1e-15);
    }
}
