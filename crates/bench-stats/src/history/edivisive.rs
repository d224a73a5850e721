//! E-divisive means: change points in a series of per-commit levels.

use rand::Rng;

use crate::StatsError;
use crate::descriptive::summary::median;
use crate::resample::bootstrap::stream;

/// Options of [`e_divisive`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ChangePointConfig {
    /// Fewest values on each side of a split (at least 1). Default 5 (chosen by
    /// `cargo xtask history-calibrate`, docs/history.md "Calibration").
    pub min_segment: usize,
    /// Significance level of each split's permutation test (in (0, 1)): a split is kept
    /// when its `p <= alpha`. Default 0.01 (calibrated, as `min_segment`).
    pub alpha: f64,
    /// Permutations per test (at least 1). Default 199.
    pub permutations: usize,
    /// Seed of the permutations: the same seed gives the same change points. Default 0.
    pub seed: u64,
}

impl Default for ChangePointConfig {
    /// `min_segment` 5, `alpha` 0.01, 199 permutations, seed 0, chosen by the rule of
    /// docs/history.md ("Calibration"): on its simulated histories, at most 0.005 false
    /// change points per 100 commits on every noise profile.
    fn default() -> Self {
        ChangePointConfig {
            min_segment: 5,
            alpha: 0.01,
            permutations: 199,
            seed: 0,
        }
    }
}

impl ChangePointConfig {
    /// Checks every option's range.
    ///
    /// # Errors
    /// [`StatsError::InvalidParameter`] naming the option out of range.
    pub fn validate(&self) -> Result<(), StatsError> {
        if self.min_segment == 0 {
            return Err(StatsError::InvalidParameter {
                name: "min_segment",
                value: 0.0,
                reason: "must be at least 1",
            });
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(StatsError::InvalidParameter {
                name: "alpha",
                value: self.alpha,
                reason: "must be in (0, 1)",
            });
        }
        if self.permutations == 0 {
            return Err(StatsError::InvalidParameter {
                name: "permutations",
                value: 0.0,
                reason: "must be at least 1",
            });
        }
        Ok(())
    }
}

/// One change point found by [`e_divisive`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ChangePoint {
    /// First index of the new segment (the first commit at the new level).
    pub index: usize,
    /// The permutation p of the split when it was found.
    pub p_value: f64,
    /// Median of the segment before (from the previous change point, or the start).
    pub before: f64,
    /// Median of the segment after (up to the next change point, or the end).
    pub after: f64,
    /// `after / before` (+inf when `before` is 0 and `after` is not, 1 when both are 0).
    pub ratio: f64,
    /// The energy statistic `q` of the split in the segment it was found in.
    pub statistic: f64,
}

/// The change points of `series` by e-divisive means (the method below),
/// sorted by index. An invalid `config` or a non-finite value gives no change point; use
/// [`try_e_divisive`] to have the reason.
///
/// # Method
///
/// Matteson & James (2014), "A nonparametric approach for multiple change point analysis
/// of multivariate data", JASA 109(505), with exponent `alpha = 1` (absolute differences)
/// and the split searched over the whole current segment, as MongoDB's
/// `signal-processing-algorithms` (`e_divisive`) and Otava/Hunter do. For a split of a
/// segment into `X = x[a..tau]` (`m` values) and `Y = x[tau..b]` (`n` values), the
/// statistic is
///
/// ```text
/// q(tau) = m n / (m + n) * ( 2/(m n) sum |X_i - Y_j|  -  1/m^2 sum |X_i - X_k|  -  1/n^2 sum |Y_j - Y_l| )
/// ```
///
/// (within sums over ordered pairs, divided by `m^2` and `n^2`: MongoDB's form, checked
/// against it in `tests/history.rs`; its expectation under no change is the same for
/// every split).
///
/// Each pass takes, over every segment between the change points found so far, the split
/// with the largest `q` whose two sides hold at least `min_segment` values, and tests it
/// by permutation: every segment's values are shuffled (seeded) and the largest `q` over
/// every segment recomputed; `p = (1 + #{permuted >= observed}) / (1 + permutations)`
/// (Matteson & James's and R `ecp`'s p; MongoDB's omits the `1 +` of the numerator).
/// A split with `p <= alpha` becomes a change point and the next pass starts; the first
/// pass without one ends the search. A pass stops permuting once enough permuted maxima
/// reached the observed one that `p` can no longer fall to `alpha` (the decision is the
/// same as after every permutation).
///
/// Time: O(n log n) per permutation and pass: as the split moves one value from the
/// second part to the first, its summed distances to each part come from a Fenwick tree
/// over the values' ranks (sorted once per segment and pass), so
/// `O((k + 1) * permutations * n log n)` for `k` change points, in O(n) memory.
pub fn e_divisive(series: &[f64], config: &ChangePointConfig) -> Vec<ChangePoint> {
    try_e_divisive(series, config).unwrap_or_default()
}

/// [`e_divisive`], with its input checked.
///
/// # Errors
/// [`StatsError::InvalidParameter`] for an option out of range
/// ([`ChangePointConfig::validate`]), [`StatsError::NonFinite`] for a NaN or infinite
/// value in `series`.
pub fn try_e_divisive(
    series: &[f64],
    config: &ChangePointConfig,
) -> Result<Vec<ChangePoint>, StatsError> {
    config.validate()?;
    if let Some(&bad) = series.iter().find(|v| !v.is_finite()) {
        return Err(StatsError::NonFinite {
            what: "e-divisive series value",
            value: bad,
        });
    }
    let min = config.min_segment;
    let mut found: Vec<(usize, f64, f64)> = Vec::new();
    let mut out = Vec::new();
    for pass in 0u64.. {
        let mut bounds: Vec<usize> = found.iter().map(|c| c.0).collect();
        bounds.sort_unstable();
        bounds.insert(0, 0);
        bounds.push(series.len());
        let mut windows: Vec<(usize, Window)> = bounds
            .windows(2)
            .filter(|w| w[1] - w[0] >= 2 * min)
            .map(|w| (w[0], Window::new(&series[w[0]..w[1]])))
            .collect();
        let mut best: Option<(usize, f64)> = None;
        for (a, window) in &mut windows {
            let identity: Vec<usize> = (0..window.len()).collect();
            if let Some((tau, q)) = window.best_split(&identity, min, &mut out) {
                if best.is_none_or(|(_, bq)| q > bq) {
                    best = Some((*a + tau, q));
                }
            }
        }
        let Some((index, q)) = best else { break };
        let p = permutation_p(&mut windows, q, config, pass, &mut out);
        if p > config.alpha {
            break;
        }
        found.push((index, p, q));
    }
    found.sort_by_key(|c| c.0);
    let mut bounds: Vec<usize> = found.iter().map(|c| c.0).collect();
    bounds.insert(0, 0);
    bounds.push(series.len());
    Ok(found
        .iter()
        .enumerate()
        .map(|(k, &(index, p_value, statistic))| {
            let before = median(&series[bounds[k]..index]);
            let after = median(&series[index..bounds[k + 2]]);
            ChangePoint {
                index,
                p_value,
                before,
                after,
                ratio: ratio(after, before),
                statistic,
            }
        })
        .collect())
}

fn ratio(after: f64, before: f64) -> f64 {
    if before != 0.0 {
        after / before
    } else if after == 0.0 {
        1.0
    } else {
        f64::INFINITY
    }
}

/// The permutation p of an observed maximum `q` over `windows`.
fn permutation_p(
    windows: &mut [(usize, Window)],
    q: f64,
    config: &ChangePointConfig,
    pass: u64,
    out: &mut Vec<f64>,
) -> f64 {
    let mut rng = stream(config.seed, pass);
    let total = config.permutations as f64 + 1.0;
    // p = (1 + at_least) / total exceeds alpha once at_least > alpha * total - 1: the
    // permutations left cannot lower it, so the test stops there (that lower bound of
    // the full p is returned, already above alpha).
    let give_up = config.alpha * total - 1.0;
    let mut orders: Vec<Vec<usize>> = windows
        .iter()
        .map(|(_, w)| (0..w.len()).collect())
        .collect();
    let mut at_least = 0usize;
    for _ in 0..config.permutations {
        let mut max = f64::NEG_INFINITY;
        for ((_, window), order) in windows.iter_mut().zip(&mut orders) {
            order.sort_unstable();
            for i in (1..order.len()).rev() {
                let j = rng.random_range(0..=i);
                order.swap(i, j);
            }
            if let Some((_, pq)) = window.best_split(order, config.min_segment, out) {
                max = max.max(pq);
            }
        }
        if max >= q {
            at_least += 1;
            if at_least as f64 > give_up {
                break;
            }
        }
    }
    (1 + at_least) as f64 / total
}

/// One segment, prepared once for the statistics of any ordering of its values: each
/// value's rank and summed distance to every other, and a Fenwick tree over the ranks of
/// the values moved into the first part.
struct Window {
    /// The values, less their median (the statistic does not depend on a shift, and the
    /// sums stay small).
    values: Vec<f64>,
    /// Rank of each value (ties broken by position).
    rank: Vec<usize>,
    /// `sum_j |v_i - v_j|` for each `i`.
    to_all: Vec<f64>,
    /// `sum_{i<j} |v_i - v_j|`.
    within: f64,
    /// Fenwick tree of (count, sum) by rank.
    tree: Vec<(u32, f64)>,
}

impl Window {
    /// Time: O(w log w).
    fn new(v: &[f64]) -> Window {
        let w = v.len();
        let mut order: Vec<usize> = (0..w).collect();
        order.sort_by(|&a, &b| v[a].total_cmp(&v[b]).then(a.cmp(&b)));
        let shift = order.get(w / 2).map_or(0.0, |&i| v[i]);
        let values: Vec<f64> = v.iter().map(|x| x - shift).collect();
        let mut rank = vec![0; w];
        let mut to_all = vec![0.0; w];
        let total: f64 = values.iter().sum();
        let mut below = 0.0;
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
            let x = values[i];
            let above = total - below - x;
            to_all[i] = (r as f64 * x - below) + (above - (w - 1 - r) as f64 * x);
            below += x;
        }
        let within = to_all.iter().sum::<f64>() / 2.0;
        Window {
            values,
            rank,
            to_all,
            within,
            tree: vec![(0, 0.0); w + 1],
        }
    }

    fn len(&self) -> usize {
        self.values.len()
    }

    /// Fills `out` with `q(tau)` for `tau` in `0..w`, the first part being the values at
    /// `order[..tau]`. Time: O(w log w).
    fn statistics(&mut self, order: &[usize], out: &mut Vec<f64>) {
        let w = order.len();
        out.clear();
        out.resize(w, 0.0);
        self.tree.iter_mut().for_each(|t| *t = (0, 0.0));
        let mut within_x = 0.0;
        let mut within_y = self.within;
        let mut across = 0.0;
        let mut x_sum = 0.0;
        for (tau, &e) in order.iter().enumerate() {
            if tau > 0 {
                let m = tau as f64;
                let n = (w - tau) as f64;
                let d =
                    2.0 * across / (m * n) - 2.0 * within_x / (m * m) - 2.0 * within_y / (n * n);
                out[tau] = m * n / (m + n) * d;
            }
            // Move value e from the second part to the first.
            let k = self.values[e];
            let r = self.rank[e];
            let (c_below, s_below) = self.prefix(r);
            let c_above = (tau - c_below) as f64;
            let s_above = x_sum - s_below;
            let to_x = (c_below as f64 * k - s_below) + (s_above - c_above * k);
            let to_y = self.to_all[e] - to_x;
            across += to_y - to_x;
            within_x += to_x;
            within_y -= to_y;
            x_sum += k;
            self.add(r, k);
        }
    }

    /// Count and sum of the first part's values of rank below `r`.
    fn prefix(&self, r: usize) -> (usize, f64) {
        let (mut c, mut s) = (0usize, 0.0);
        let mut i = r;
        while i > 0 {
            c += self.tree[i].0 as usize;
            s += self.tree[i].1;
            i &= i - 1;
        }
        (c, s)
    }

    fn add(&mut self, r: usize, x: f64) {
        let mut i = r + 1;
        while i < self.tree.len() {
            self.tree[i].0 += 1;
            self.tree[i].1 += x;
            i += i & i.wrapping_neg();
        }
    }

    /// The split of the values in `order` with the largest statistic among those leaving
    /// at least `min` values on each side (the first on ties): `(tau, q)`, `tau` the first
    /// index of the second part. `None` when there are fewer than `2 * min` values.
    fn best_split(
        &mut self,
        order: &[usize],
        min: usize,
        out: &mut Vec<f64>,
    ) -> Option<(usize, f64)> {
        let min = min.max(1);
        let w = order.len();
        if w < 2 * min {
            return None;
        }
        self.statistics(order, out);
        let mut best: Option<(usize, f64)> = None;
        for (tau, &q) in out.iter().enumerate().take(w - min + 1).skip(min) {
            if best.is_none_or(|(_, bq)| q > bq) {
                best = Some((tau, q));
            }
        }
        best
    }
}

/// The energy statistic `q(tau)` of every split of `series` into `series[..tau]` and
/// `series[tau..]`, for `tau` in `0..n` (`q(0) = 0`): MongoDB's `_calculate_t_stats`,
/// which [`e_divisive`] maximises (over `min_segment <= tau <= n - min_segment`).
///
/// Time: O(n log n) (the sums of distances are kept in a Fenwick tree over the ranks);
/// memory O(n).
///
/// # Examples
/// ```
/// let q = bench_stats::history::energy_split_statistics(&[1.0, 1.0, 5.0, 5.0]);
/// // The split at 2 separates the two levels: 2*2/4 * (2*16/4 - 0 - 0) = 8; at 1,
/// // 1*3/4 * (2*8/3 - 0 - 2*8/9) = 8/3.
/// assert_eq!(q[2], 8.0);
/// assert!((q[1] - 8.0 / 3.0).abs() < 1e-12 && (q[3] - 8.0 / 3.0).abs() < 1e-12);
/// ```
pub fn energy_split_statistics(series: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    let identity: Vec<usize> = (0..series.len()).collect();
    Window::new(series).statistics(&identity, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statistic straight from its definition, O(n^3).
    fn brute(v: &[f64], tau: usize) -> f64 {
        let (x, y) = v.split_at(tau);
        let (m, n) = (x.len() as f64, y.len() as f64);
        let d = |a: &[f64], b: &[f64]| {
            a.iter()
                .flat_map(|p| b.iter().map(move |q| (p - q).abs()))
                .sum::<f64>()
        };
        m * n / (m + n) * (2.0 * d(x, y) / (m * n) - d(x, x) / (m * m) - d(y, y) / (n * n))
    }

    #[test]
    fn incremental_statistic_matches_its_definition() {
        let v: Vec<f64> = (0..23)
            .map(|i| ((i * 37 % 11) as f64).sin() + if i > 12 { 1.5 } else { 0.0 })
            .collect();
        let q = energy_split_statistics(&v);
        for (tau, &got) in q.iter().enumerate().skip(1) {
            let b = brute(&v, tau);
            assert!(
                (got - b).abs() < 1e-10 * b.abs().max(1.0),
                "{tau}: {got} {b}"
            );
        }
    }

    #[test]
    fn statistic_of_a_permuted_order_with_ties_matches_its_definition() {
        let v = [3.0, 1.0, 3.0, 2.0, 2.0, 7.0, 3.0, 1.0, 9.0, 2.0, 3.0];
        let order = [4, 8, 0, 10, 1, 6, 2, 9, 3, 7, 5];
        let permuted: Vec<f64> = order.iter().map(|&i| v[i]).collect();
        let mut w = Window::new(&v);
        let mut q = Vec::new();
        w.statistics(&order, &mut q);
        for (tau, &got) in q.iter().enumerate().skip(1) {
            let b = brute(&permuted, tau);
            assert!(
                (got - b).abs() < 1e-12 * b.abs().max(1.0),
                "{tau}: {got} {b}"
            );
        }
        // The tree is reset between orderings.
        let mut again = Vec::new();
        w.statistics(&order, &mut again);
        assert_eq!(q, again);
    }

    #[test]
    fn no_change_point_in_a_constant_or_short_series() {
        let cfg = ChangePointConfig::default();
        assert!(e_divisive(&[3.0; 50], &cfg).is_empty());
        assert!(e_divisive(&[1.0, 9.0], &cfg).is_empty());
        assert!(e_divisive(&[], &cfg).is_empty());
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let cfg = ChangePointConfig::default();
        assert!(matches!(
            try_e_divisive(&[1.0, f64::NAN, 2.0], &cfg),
            Err(StatsError::NonFinite { .. })
        ));
        for bad in [
            ChangePointConfig {
                min_segment: 0,
                ..cfg.clone()
            },
            ChangePointConfig {
                alpha: 1.0,
                ..cfg.clone()
            },
            ChangePointConfig {
                alpha: f64::NAN,
                ..cfg.clone()
            },
            ChangePointConfig {
                permutations: 0,
                ..cfg.clone()
            },
        ] {
            assert!(matches!(
                try_e_divisive(&[1.0; 20], &bad),
                Err(StatsError::InvalidParameter { .. })
            ));
        }
    }

    #[test]
    fn two_steps_are_found_with_their_sizes_and_seed_decides_p() {
        let mut v: Vec<f64> = Vec::new();
        for i in 0..90 {
            let level = match i {
                0..30 => 100.0,
                30..60 => 110.0,
                _ => 105.0,
            };
            v.push(level + ((i * 7 % 5) as f64 - 2.0) * 0.5);
        }
        let cfg = ChangePointConfig::default();
        let found = e_divisive(&v, &cfg);
        let idx: Vec<usize> = found.iter().map(|c| c.index).collect();
        assert_eq!(idx, vec![30, 60]);
        assert!((found[0].ratio - 1.1).abs() < 1e-9);
        assert!((found[1].ratio - 105.0 / 110.0).abs() < 1e-9);
        assert!(found.iter().all(|c| c.p_value <= cfg.alpha));
        assert_eq!(found, e_divisive(&v, &cfg));
    }
}
