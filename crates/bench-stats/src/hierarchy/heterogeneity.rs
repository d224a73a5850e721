//! Does the effect differ across hosts more than their blocks explain? Cochran's Q on
//! the units' mean block log-ratios with inverse-variance weights (Cochran 1954), the
//! share of spread beyond chance `I² = max(0, (Q - df) / Q)` (Higgins & Thompson 2002),
//! the between-unit variance `τ²` by DerSimonian & Laird (1986), and a permutation
//! p-value: the blocks are shuffled across units (each unit keeping its size) and Q
//! recomputed. Under "no unit effect" the blocks are exchangeable, so the test holds its
//! level whatever the blocks' distribution and however few blocks a unit has, where the
//! chi-square reference of Q runs hot with estimated weights (calibrated in
//! `tests/hierarchy_sim.rs`). It assumes the units' blocks share one spread.

use rand::seq::SliceRandom;

use crate::resample::bootstrap::stream;

/// Cochran's Q and what follows from it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Heterogeneity {
    /// Cochran's Q.
    pub q: f64,
    /// Units minus 1.
    pub df: usize,
    /// `max(0, (Q - df) / Q)`.
    pub i_squared: f64,
    /// DerSimonian-Laird between-unit variance, truncated at 0.
    pub tau_squared: f64,
    /// `(1 + #{Q* >= Q}) / (1 + permutations)`.
    pub p_value: f64,
    /// Permutations drawn.
    pub permutations: u32,
}

/// Q of `values` cut into consecutive units of `sizes`: `Σ w (m - m_w)²` with
/// `w = n / s²`; also `Σ w` and `Σ w²`. `None` when a unit has fewer than 2 values or
/// no spread.
fn cochran_q(values: &[f64], sizes: &[usize]) -> Option<(f64, f64, f64)> {
    let mut stats = Vec::with_capacity(sizes.len());
    let mut start = 0;
    for &n in sizes {
        let unit = &values[start..start + n];
        start += n;
        if n < 2 {
            return None;
        }
        let m = unit.iter().sum::<f64>() / n as f64;
        let s2 = unit.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1) as f64;
        if s2.is_nan() || s2 <= 0.0 {
            return None;
        }
        stats.push((m, n as f64 / s2));
    }
    let sw: f64 = stats.iter().map(|s| s.1).sum();
    let sw2: f64 = stats.iter().map(|s| s.1 * s.1).sum();
    let mw = stats.iter().map(|s| s.0 * s.1).sum::<f64>() / sw;
    let q = stats.iter().map(|(m, w)| w * (m - mw).powi(2)).sum();
    Some((q, sw, sw2))
}

/// The heterogeneity of the units' block values (`units[u]` = the block log-ratios of
/// unit `u`), with a permutation p-value from `permutations` shuffles seeded by `seed`.
/// Time: O(permutations × blocks).
///
/// Returns `None` with fewer than 2 units, a unit with fewer than 2 blocks or with no
/// spread, or `permutations == 0`.
///
/// # Examples
/// ```
/// use bench_stats::hierarchy::heterogeneity;
/// let same = vec![vec![0.1, 0.2, 0.0, 0.1], vec![0.2, 0.0, 0.1, 0.1]];
/// let apart = vec![vec![0.1, 0.2, 0.0, 0.1], vec![1.2, 1.0, 1.1, 1.1]];
/// assert!(heterogeneity(&same, 199, 1).unwrap().p_value > 0.5);
/// assert!(heterogeneity(&apart, 199, 1).unwrap().p_value < 0.05);
/// ```
pub fn heterogeneity(units: &[Vec<f64>], permutations: u32, seed: u64) -> Option<Heterogeneity> {
    if units.len() < 2 || permutations == 0 {
        return None;
    }
    let sizes: Vec<usize> = units.iter().map(Vec::len).collect();
    let values: Vec<f64> = units.iter().flatten().copied().collect();
    let (q, sw, sw2) = cochran_q(&values, &sizes)?;
    let df = units.len() - 1;
    let one = |i: u64| {
        let mut rng = stream(seed ^ 0x4845_5445_524f_4745, i);
        let mut v = values.clone();
        v.shuffle(&mut rng);
        // A shuffle with no spread inside a unit cannot be scored: count it as extreme.
        cochran_q(&v, &sizes).is_none_or(|(qs, _, _)| qs >= q * (1.0 - 1e-12))
    };
    let extreme = count(permutations, one);
    let i_squared = if q > 0.0 {
        ((q - df as f64) / q).max(0.0)
    } else {
        0.0
    };
    let tau_squared = ((q - df as f64) / (sw - sw2 / sw)).max(0.0);
    Some(Heterogeneity {
        q,
        df,
        i_squared,
        tau_squared,
        p_value: (1.0 + extreme as f64) / (1.0 + f64::from(permutations)),
        permutations,
    })
}

/// How many of `count` permutations `f(i)` says are at least as extreme.
fn count(count: u32, f: impl Fn(u64) -> bool + Sync + Send) -> usize {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..u64::from(count))
            .into_par_iter()
            .filter(|&i| f(i))
            .count()
    }
    #[cfg(not(feature = "parallel"))]
    {
        (0..u64::from(count)).filter(|&i| f(i)).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two units of equal variance 1 with means 0 and 2, 5 values each: w = 5 each,
    /// m_w = 1, Q = 5 + 5 = 10, τ² = (10 - 1) / (10 - 50/10) = 1.8.
    #[test]
    fn hand_computed_q_and_tau() {
        let a: Vec<f64> = [-1.0, -0.5, 0.0, 0.5, 1.0]
            .iter()
            .map(|v| v * (1.0f64 / 0.625).sqrt())
            .collect();
        let b: Vec<f64> = a.iter().map(|v| v + 2.0).collect();
        let h = heterogeneity(&[a, b], 99, 1).unwrap();
        assert!((h.q - 10.0).abs() < 1e-9, "{}", h.q);
        assert!((h.tau_squared - 1.8).abs() < 1e-9);
        assert!((h.i_squared - 0.9).abs() < 1e-9);
        assert_eq!(h.df, 1);
    }

    #[test]
    fn degenerate_units_are_not_tested() {
        assert!(heterogeneity(&[vec![1.0, 2.0]], 9, 1).is_none());
        assert!(heterogeneity(&[vec![1.0], vec![1.0, 2.0]], 9, 1).is_none());
        assert!(heterogeneity(&[vec![1.0, 1.0], vec![1.0, 2.0]], 9, 1).is_none());
    }
}
