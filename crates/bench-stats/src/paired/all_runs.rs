//! The mean of all runs: the ratio of the two variants' means over every run (the total
//! time the runs took, per run), with a standard error that treats the blocks as
//! clusters. EQUIVALENT reads it in place of the slow runs' quantile
//! (`crate::analysis::decision`): a slow tail that grew moves the mean of all runs by its
//! share times its size (10% of runs 30% slower: +3%), while on a machine that disturbs
//! some runs of both variants alike its interval narrows as `1 / sqrt(runs)`, where the
//! slow runs' quantile, sitting at the edge of the disturbed runs, has no density to
//! narrow on (`cargo xtask equivalence-disturbed`, `docs/calibration.md`).
//!
//! # Method
//! `L = ln(mean_B / mean_A)`; by the delta method a run `x` of variant `v` adds
//! `(x / mean_v - 1) / n_v` to `ln mean_v`, so `L` is a sum over the blocks of `u_b`, the
//! candidate's share minus the baseline's, with variance `k / (k - 1) sum_b (u_b - mean
//! u)^2` for `k` blocks (the cluster sandwich: the runs of a block may be correlated, the
//! blocks independent; a block level that slows both variants alike cancels within
//! `u_b`). The interval is `L ± t_{k-1} se`, Student's t with `k - 1` degrees of freedom.
//! Time: O(runs).

use crate::model::blocks::{AsBlocks, Blocks};

/// The ratio of the two variants' means of all runs and its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct AllRunsMean {
    /// The candidate's mean of all its runs over the baseline's.
    pub ratio: f64,
    /// Its interval at the shape check's `equivalence_confidence` (`1 - 2 alpha`), read by
    /// the equivalence test; `None` with fewer than two blocks.
    pub equivalence_interval: Option<[f64; 2]>,
}

/// The mean of all runs of `candidate` over `baseline` (each a list of blocks, each block
/// that variant's runs in it) with its two-sided interval at `level`. `None` when a value
/// is not positive and finite, or a variant has no run.
pub fn all_runs_mean(
    baseline: &(impl AsBlocks + ?Sized),
    candidate: &(impl AsBlocks + ?Sized),
    level: f64,
) -> Option<AllRunsMean> {
    let (baseline, candidate) = (&*baseline.as_blocks(), &*candidate.as_blocks());
    let mut all = baseline.values().iter().chain(candidate.values());
    if all.any(|&x| !(x.is_finite() && x > 0.0)) {
        return None;
    }
    let stats = |v: &Blocks| {
        let n = v.values().len() as f64;
        (v.values().iter().sum::<f64>() / n, n)
    };
    let ((m_a, n_a), (m_b, n_b)) = (stats(baseline), stats(candidate));
    if n_a == 0.0 || n_b == 0.0 {
        return None;
    }
    let ratio = m_b / m_a;
    let share = |runs: &[f64], m: f64, n: f64| runs.iter().map(|x| x / m - 1.0).sum::<f64>() / n;
    let u: Vec<f64> = baseline
        .iter()
        .zip(candidate)
        .map(|(a, b)| share(b, m_b, n_b) - share(a, m_a, n_a))
        .collect();
    let k = u.len() as f64;
    let equivalence_interval = (k >= 2.0)
        .then(|| {
            let mean = u.iter().sum::<f64>() / k;
            let se =
                (u.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() * k / (k - 1.0)).sqrt();
            let t = crate::special::student_t_ppf(0.5 + level / 2.0, k - 1.0)?;
            let l = ratio.ln();
            Some([(l - t * se).exp(), (l + t * se).exp()])
        })
        .flatten()
        .filter(|i| i.iter().all(|x| x.is_finite() && *x > 0.0));
    ratio.is_finite().then_some(AllRunsMean {
        ratio,
        equivalence_interval,
    })
}

#[cfg(test)]
mod tests {
    use super::all_runs_mean;

    #[test]
    fn a_constant_ratio_in_every_run_is_that_ratio_with_a_point_interval() {
        let base: Vec<Vec<f64>> = (0..10).map(|i| vec![100.0 + f64::from(i), 90.0]).collect();
        let cand: Vec<Vec<f64>> = base
            .iter()
            .map(|b| b.iter().map(|x| x * 1.02).collect())
            .collect();
        let m = all_runs_mean(&base, &cand, 0.9).unwrap();
        assert!((m.ratio - 1.02).abs() < 1e-12);
        let [lo, hi] = m.equivalence_interval.unwrap();
        assert!(
            (lo - 1.02).abs() < 1e-9 && (hi - 1.02).abs() < 1e-9,
            "{lo} {hi}"
        );
    }

    #[test]
    fn the_interval_is_the_cluster_t_interval_computed_by_hand() {
        // Three blocks of one run each: u_b = b/mB - a/mA over n = 3, the t quantile at
        // 95% with 2 degrees of freedom 2.919986.
        let base = vec![vec![1.0], vec![2.0], vec![3.0]];
        let cand = vec![vec![1.5], vec![2.0], vec![2.5]];
        let m = all_runs_mean(&base, &cand, 0.9).unwrap();
        assert!((m.ratio - 1.0).abs() < 1e-12);
        let u = [1.5 / 2.0 - 0.5, 0.0, 2.5 / 2.0 - 1.5].map(|x: f64| x / 3.0);
        let ss: f64 = u.iter().map(|x| x * x).sum();
        let se = (ss * 3.0 / 2.0).sqrt();
        let [lo, hi] = m.equivalence_interval.unwrap();
        assert!((hi.ln() - 2.919_986 * se).abs() < 1e-5, "{hi} {se}");
        assert!((lo.ln() + 2.919_986 * se).abs() < 1e-5);
    }

    #[test]
    fn values_that_are_not_positive_have_no_mean_ratio() {
        assert!(all_runs_mean(&[vec![1.0, 0.0]], &[vec![1.0, 2.0]], 0.9).is_none());
        assert!(all_runs_mean(&[vec![]], &[vec![1.0]], 0.9).is_none());
    }
}
