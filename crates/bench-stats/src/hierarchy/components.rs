//! Variance components of a fully nested design (host, session, block, run) by the
//! analysis-of-variance method of moments.
//!
//! Each level's sum of squares about its parent's mean, `SS_l = Σ_g n_g (ȳ_g - ȳ_parent)²`,
//! has expectation `Σ_{k >= l} c_{l,k} σ_k²`, with
//! `c_{l,k} = A(l, k) - A(l - 1, k)` and `A(m, k) = Σ_{j at level k} n_j² / n_{ancestor of j at level m}`
//! (runs count 1 each). Equating the observed sums of squares to their expectations and
//! solving the triangular system from the runs upwards gives unbiased estimates for
//! unbalanced data (Henderson's Method I; Searle, Casella & McCulloch 1992, *Variance
//! Components*, ch. 4-5, where `E[y'Ay] = tr(AV)` gives the same coefficients). Negative
//! estimates are reported as 0, the usual truncation. A level whose every parent has
//! exactly one child has no degrees of freedom: it cannot be told apart from the level
//! above and is reported as `None` (its variance is counted in the level above).
//! Checked against an independent trace computation in NumPy
//! (`fixtures/hierarchy/generate.py`).

use std::collections::HashMap;

/// The estimated variance components, top level first: `[host, session, block, run]`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct NestedComponents {
    /// Each level's variance (truncated at 0); `None` when the level has no degrees of
    /// freedom of its own.
    pub variance: [Option<f64>; 4],
    /// Units at each level (the runs last).
    pub units: [usize; 4],
}

/// The nesting of one level: a dense group index per observation, its size, sum, and its
/// parent group at the level above.
struct Level {
    group_of: Vec<usize>,
    n: Vec<f64>,
    sum: Vec<f64>,
    parent: Vec<usize>,
}

/// Variance components of `y` nested as `ids[i] = [host, session, block]` (ids unique
/// within their level: a session id is never reused on another host). Time: O(n).
///
/// Returns `None` for fewer than 2 values, a non-finite value, or ids that do not nest
/// (one session id under two hosts).
///
/// # Examples
/// ```
/// use bench_stats::hierarchy::nested_variance_components;
/// // 2 hosts x 2 sessions x 2 blocks x 2 runs, the host shifting every value.
/// let mut ids = Vec::new();
/// let mut y = Vec::new();
/// for i in 0..16u32 {
///     ids.push([i / 8, i / 4, i / 2]);
///     y.push(if i < 8 { 0.0 } else { 10.0 } + [0.1, -0.1][(i % 2) as usize]);
/// }
/// let c = nested_variance_components(&ids, &y).unwrap();
/// assert!(c.variance[0].unwrap() > 40.0);
/// assert!((c.variance[3].unwrap() - 0.02).abs() < 1e-12);
/// ```
pub fn nested_variance_components(ids: &[[u32; 3]], y: &[f64]) -> Option<NestedComponents> {
    if y.len() < 2 || ids.len() != y.len() || y.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut levels: Vec<Level> = Vec::with_capacity(3);
    for l in 0..3 {
        let prev = levels.last();
        let level = build_level(ids, y, l, |i| prev.map_or(0, |p| p.group_of[i]))?;
        levels.push(level);
    }
    let n_total = y.len() as f64;
    let grand = y.iter().sum::<f64>() / n_total;
    let ss = sums_of_squares(&levels, y, grand);
    let coef = coefficients(&levels, n_total);
    let mut sigma = [0.0f64; 4];
    let mut separable = [true; 4];
    for l in (0..4).rev() {
        let below: f64 = (l + 1..4).map(|k| coef[l][k] * sigma[k]).sum();
        if coef[l][l] <= 1e-9 * n_total {
            separable[l] = false;
            sigma[l] = 0.0;
        } else {
            sigma[l] = (ss[l] - below) / coef[l][l];
        }
    }
    let mut variance = [None; 4];
    for l in 0..4 {
        variance[l] = separable[l].then_some(sigma[l].max(0.0));
    }
    let units = [
        levels[0].n.len(),
        levels[1].n.len(),
        levels[2].n.len(),
        y.len(),
    ];
    Some(NestedComponents { variance, units })
}

/// Groups the observations by `ids[i][l]`, checking each group has one parent.
fn build_level(
    ids: &[[u32; 3]],
    y: &[f64],
    l: usize,
    parent_of: impl Fn(usize) -> usize,
) -> Option<Level> {
    let mut dense: HashMap<u32, usize> = HashMap::new();
    let mut level = Level {
        group_of: Vec::with_capacity(y.len()),
        n: Vec::new(),
        sum: Vec::new(),
        parent: Vec::new(),
    };
    for (i, (id, v)) in ids.iter().zip(y).enumerate() {
        let next = dense.len();
        let g = *dense.entry(id[l]).or_insert(next);
        let p = parent_of(i);
        if g == level.n.len() {
            level.n.push(0.0);
            level.sum.push(0.0);
            level.parent.push(p);
        } else if level.parent[g] != p {
            return None;
        }
        level.n[g] += 1.0;
        level.sum[g] += v;
        level.group_of.push(g);
    }
    Some(level)
}

/// `SS_l` for the host, session and block levels, and the runs about their block means.
fn sums_of_squares(levels: &[Level], y: &[f64], grand: f64) -> [f64; 4] {
    let mean = |lv: &Level, g: usize| lv.sum[g] / lv.n[g];
    let mut ss = [0.0; 4];
    for (l, lv) in levels.iter().enumerate() {
        ss[l] = (0..lv.n.len())
            .map(|g| {
                let parent = if l == 0 {
                    grand
                } else {
                    mean(&levels[l - 1], lv.parent[g])
                };
                lv.n[g] * (mean(lv, g) - parent).powi(2)
            })
            .sum();
    }
    let blocks = &levels[2];
    ss[3] = y
        .iter()
        .zip(&blocks.group_of)
        .map(|(v, &g)| (v - mean(blocks, g)).powi(2))
        .sum();
    ss
}

/// `c[l][k] = A(l, k) - A(l - 1, k)` for `k >= l` (levels 0..3 = host, session, block,
/// run; `A(-1, k)` is the grand total's).
fn coefficients(levels: &[Level], n_total: f64) -> [[f64; 4]; 4] {
    // a[m][k], m = 0 (grand) ..= 4 (runs), k = 1..=4 (host, session, block, run).
    let mut a = [[0.0f64; 5]; 5];
    for k in 1..=4usize {
        for m in 0..=k {
            a[m][k] = if k == 4 {
                if m == 4 {
                    n_total
                } else if m == 0 {
                    1.0
                } else {
                    levels[m - 1].n.len() as f64
                }
            } else if m == k {
                n_total
            } else {
                let lv = &levels[k - 1];
                (0..lv.n.len())
                    .map(|j| lv.n[j] * lv.n[j] / ancestor_size(levels, k, j, m, n_total))
                    .sum()
            };
        }
    }
    let mut c = [[0.0; 4]; 4];
    for l in 0..4 {
        for k in l..4 {
            c[l][k] = a[l + 1][k + 1] - a[l][k + 1];
        }
    }
    c
}

/// The size of the ancestor at level `m` (0 = grand) of group `j` at level `k` (1-based).
fn ancestor_size(levels: &[Level], k: usize, mut j: usize, m: usize, n_total: f64) -> f64 {
    if m == 0 {
        return n_total;
    }
    for l in (m..k).rev() {
        j = levels[l].parent[j];
    }
    levels[m - 1].n[j]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A balanced design has the textbook expected mean squares: with `b` blocks of `r`
    /// runs per session and `s` sessions per host, E[MS_block] = σ_run² + r σ_block².
    #[test]
    fn balanced_coefficients_match_the_textbook() {
        let (h, s, b, r) = (3u32, 2u32, 4u32, 2u32);
        let mut ids = Vec::new();
        let mut y = Vec::new();
        for i in 0..h * s * b * r {
            ids.push([i / (s * b * r), i / (b * r), i / r]);
            y.push(f64::from(i % 7) * 0.3 + f64::from(i / (b * r) % 3));
        }
        let levels: Vec<Level> = {
            let mut out: Vec<Level> = Vec::new();
            for l in 0..3 {
                let prev = out.last();
                let lv = build_level(&ids, &y, l, |i| prev.map_or(0, |p| p.group_of[i])).unwrap();
                out.push(lv);
            }
            out
        };
        let c = coefficients(&levels, y.len() as f64);
        let (hf, sf, bf, rf) = (f64::from(h), f64::from(s), f64::from(b), f64::from(r));
        // SS_block: df s*h*(b-1), E = df (σ_run² + r σ_block²).
        let df_block = hf * sf * (bf - 1.0);
        assert!((c[2][3] - df_block).abs() < 1e-9);
        assert!((c[2][2] - df_block * rf).abs() < 1e-9);
        // SS_host: df h-1, E = df (σ_run² + r σ_block² + b r σ_session² + s b r σ_host²).
        let df_host = hf - 1.0;
        assert!((c[0][0] - df_host * sf * bf * rf).abs() < 1e-9);
        assert!((c[0][1] - df_host * bf * rf).abs() < 1e-9);
        assert!((c[0][3] - df_host).abs() < 1e-9);
    }

    #[test]
    fn a_session_reused_under_two_hosts_does_not_nest() {
        let ids = [[0, 0, 0], [1, 0, 1]];
        assert_eq!(nested_variance_components(&ids, &[1.0, 2.0]), None);
    }

    #[test]
    fn one_session_per_host_is_not_separable() {
        let ids: Vec<[u32; 3]> = (0..12).map(|i| [i / 4, i / 4, i / 2]).collect();
        let y: Vec<f64> = (0..12).map(|i| f64::from(i % 5)).collect();
        let c = nested_variance_components(&ids, &y).unwrap();
        assert!(c.variance[0].is_some());
        assert_eq!(c.variance[1], None);
    }
}
