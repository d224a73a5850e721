//! Carryover that differs between two of 3+ variants run in blocks that each hold every
//! variant once (Williams or random orders), blocks back to back.
//!
//! With two variants the ABBA/BAAB contrast answers this ([`super::carryover()`]). With more,
//! a carryover that depends on which variant ran just before is a *residual effect*
//! `rho_u` of the preceding variant `u` on the next run. A Williams design lets every
//! variant precede every other equally often, so the residual effects do not bias a
//! comparison when they are equal; when they differ, `rho_c != rho_b` for candidate `c` and
//! baseline `b`, they do: back to back every run has a predecessor other than itself, so
//! `c`'s runs carry the residual effects of the variants that ran before them and `b`'s
//! theirs. The version difference `c - b` is off by `sum_u rho_u (f(u -> c) - f(u -> b))`,
//! `f(u -> v)` the share of `v`'s runs that follow `u`: about `-(rho_c - rho_b) / (k - 1)`
//! inside Williams rows, less where consecutive rows meet on the same variant (a run after
//! itself), as the cycled rows of `bench-sched` do for 3 variants.
//!
//! # The estimate
//! The standard crossover model, fitted by least squares with block effects absorbed
//! (every value and column centred within its block):
//!
//! `y = block + position_p + variant_v + rho_u + error`, `u` the variant run just before,
//!
//! with one column per position but the first, per variant but the first, and per
//! predecessor but the baseline. A run's predecessor is the previous run of its block, or
//! for position 0 the last run of the previous block when that block is complete and
//! next to it (`BlockJoin::BackToBack`; a position-0 run without one is left out). With
//! `Separated`, position 0 has no predecessor and the position columns absorb the
//! difference. Either way the predecessor columns sum to a combination of the others, so
//! dropping the baseline's makes the candidate's coefficient `rho_c - rho_b` exactly.
//! Its standard error is the usual `sigma² (X'X)^-1` one, and the p-value the two-sided
//! normal tail of `estimate / se` (the residual degrees of freedom are large by the time
//! a residual effect can be seen at all). The false-alarm rate under heavy-tailed noise
//! and the detection rate are calibrated by simulation in `tests/integration/carryover_sim.rs`.

use std::collections::BTreeMap;

use super::carryover::{BlockJoin, CarryoverRun};
use crate::StatsError;
use crate::special::normal_sf;

/// The residual-effect comparison of one candidate against the baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ResidualCarryover {
    /// Estimated `rho_candidate - rho_baseline`: how much more a run reads right after the
    /// candidate than right after the baseline.
    pub estimate: f64,
    /// Estimated bias of `candidate - baseline` from the residual effects, with this
    /// design's predecessor shares (see the module docs).
    pub version_bias: f64,
    /// Two-sided p of `estimate / se` on the normal distribution.
    pub p_value: f64,
    /// `p_value < alpha`.
    pub detected: bool,
    /// Runs right after the candidate, and right after the baseline, in the fit.
    pub runs: [usize; 2],
}

/// Residual-effect carryover of variant `candidate` against `baseline` among `k` variants
/// (`runs[i].variant` in `0..k`; see the module docs).
///
/// Time: O(r log r) for r runs.
///
/// # Errors
/// [`StatsError::InvalidParameter`] for `k < 3`, a variant out of range, `baseline ==
/// candidate`, or `alpha` outside (0, 1); [`StatsError::NonFinite`] for a non-finite value;
/// [`StatsError::TooFewSamples`] when fewer than 2 runs follow either variant.
pub fn residual_carryover(
    runs: &[CarryoverRun],
    k: usize,
    baseline: usize,
    candidate: usize,
    join: BlockJoin,
    alpha: f64,
) -> Result<ResidualCarryover, StatsError> {
    let invalid = |name: &'static str, value: f64, reason: &'static str| {
        Err(StatsError::InvalidParameter {
            name,
            value,
            reason,
        })
    };
    if k < 3 {
        return invalid(
            "variants",
            k as f64,
            "needs 3 or more (two: use `carryover`)",
        );
    }
    if baseline >= k || candidate >= k || baseline == candidate {
        return invalid(
            "candidate",
            candidate as f64,
            "two different variants below k",
        );
    }
    if !(alpha > 0.0 && alpha < 1.0) {
        return invalid("alpha", alpha, "must be strictly between 0 and 1");
    }
    let blocks = complete_blocks(runs, k)?;
    let rows = design_rows(&blocks, k, baseline, join);
    let column = (k - 1) + (k - 1) + predecessor_column(candidate, baseline);
    let fit = least_squares(&rows, 3 * (k - 1)).ok_or(StatsError::TooFewSamples {
        what: "residual carryover: complete blocks with every predecessor",
        needed: 3 * k,
        got: blocks.len(),
    })?;
    let estimate = fit.coefficients[column];
    let se = fit.standard_errors[column];
    let p_value = if se > 0.0 {
        (2.0 * normal_sf((estimate / se).abs())).min(1.0)
    } else {
        1.0
    };
    let followers = |u: usize| rows.iter().filter(|r| r.predecessor == Some(u)).count();
    let version_bias = version_bias(
        &rows,
        &fit.coefficients[2 * (k - 1)..],
        k,
        baseline,
        candidate,
    );
    Ok(ResidualCarryover {
        estimate,
        version_bias,
        p_value,
        detected: p_value < alpha,
        runs: [followers(candidate), followers(baseline)],
    })
}

/// `sum_u (rho_u - rho_b) (f(u -> c) - f(u -> b))`, with `f(u -> v)` the share of `v`'s
/// runs in the fit that follow `u`: the residual effects' bias of `c - b`.
fn version_bias(rows: &[Row], rho: &[f64], k: usize, baseline: usize, candidate: usize) -> f64 {
    let share = |u: usize, v: usize| {
        let of_v = rows.iter().filter(|r| r.variant == v);
        let n = of_v.clone().count().max(1) as f64;
        of_v.filter(|r| r.predecessor == Some(u)).count() as f64 / n
    };
    (0..k)
        .filter(|&u| u != baseline)
        .map(|u| rho[predecessor_column(u, baseline)] * (share(u, candidate) - share(u, baseline)))
        .sum()
}

/// The column of predecessor `u` among the predecessor columns (the baseline has none).
fn predecessor_column(u: usize, baseline: usize) -> usize {
    if u > baseline { u - 1 } else { u }
}

/// One run for the regression: its block, value, columns (uncentred) and predecessor.
struct Row {
    block: u32,
    variant: usize,
    y: f64,
    x: Vec<f64>,
    predecessor: Option<usize>,
}

/// The regression rows: position, variant and predecessor indicators (see the docs).
fn design_rows(
    blocks: &BTreeMap<u32, Vec<(usize, f64)>>,
    k: usize,
    baseline: usize,
    join: BlockJoin,
) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut prev_last: Option<(u32, usize)> = None;
    for (&id, block) in blocks {
        for (p, &(v, y)) in block.iter().enumerate() {
            let before = if p > 0 {
                Some(block[p - 1].0)
            } else {
                match (join, prev_last) {
                    (BlockJoin::BackToBack, Some((prev, last))) if prev + 1 == id => Some(last),
                    (BlockJoin::BackToBack, _) => continue,
                    (BlockJoin::Separated, _) => None,
                }
            };
            let mut x = vec![0.0; 3 * (k - 1)];
            if p > 0 {
                x[p - 1] = 1.0;
            }
            if v > 0 {
                x[(k - 1) + v - 1] = 1.0;
            }
            if let Some(u) = before.filter(|&u| u != baseline) {
                x[2 * (k - 1) + predecessor_column(u, baseline)] = 1.0;
            }
            rows.push(Row {
                block: id,
                variant: v,
                y,
                x,
                predecessor: before,
            });
        }
        prev_last = block.last().map(|&(v, _)| (id, v));
    }
    rows
}

/// Least-squares coefficients and their standard errors.
struct Fit {
    coefficients: Vec<f64>,
    standard_errors: Vec<f64>,
}

/// Least squares of `y` on the `x` columns with block effects absorbed (centred within
/// each block); `None` when the columns are collinear or no residual degree of freedom
/// is left. Time: O(r m² + m³) for r rows and m columns.
fn least_squares(rows: &[Row], m: usize) -> Option<Fit> {
    let mut sums: BTreeMap<u32, (f64, Vec<f64>, usize)> = BTreeMap::new();
    for r in rows {
        let e = sums.entry(r.block).or_insert((0.0, vec![0.0; m], 0));
        e.0 += r.y;
        for (s, x) in e.1.iter_mut().zip(&r.x) {
            *s += x;
        }
        e.2 += 1;
    }
    let centred: Vec<(f64, Vec<f64>)> = rows
        .iter()
        .map(|r| {
            let (sy, sx, n) = &sums[&r.block];
            let n = *n as f64;
            let x = r.x.iter().zip(sx).map(|(x, s)| x - s / n).collect();
            (r.y - sy / n, x)
        })
        .collect();
    let mut xtx = vec![vec![0.0; m]; m];
    let mut xty = vec![0.0; m];
    for (y, x) in &centred {
        for i in 0..m {
            xty[i] += x[i] * y;
            for j in 0..m {
                xtx[i][j] += x[i] * x[j];
            }
        }
    }
    let inverse = invert(xtx)?;
    let coefficients: Vec<f64> = (0..m)
        .map(|i| (0..m).map(|j| inverse[i][j] * xty[j]).sum())
        .collect();
    let rss: f64 = centred
        .iter()
        .map(|(y, x)| (y - x.iter().zip(&coefficients).map(|(a, b)| a * b).sum::<f64>()).powi(2))
        .sum();
    let df = rows.len().checked_sub(sums.len() + m).filter(|&d| d > 0)?;
    let sigma2 = rss / df as f64;
    let standard_errors = (0..m).map(|i| (sigma2 * inverse[i][i]).sqrt()).collect();
    Some(Fit {
        coefficients,
        standard_errors,
    })
}

/// Gauss-Jordan inverse with partial pivoting; `None` when (nearly) singular.
fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let m = a.len();
    let scale = a.iter().flatten().fold(0.0f64, |s, v| s.max(v.abs()));
    let mut inv: Vec<Vec<f64>> = (0..m)
        .map(|i| (0..m).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    for col in 0..m {
        let pivot = (col..m).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() <= 1e-10 * scale.max(f64::MIN_POSITIVE) {
            return None;
        }
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let d = a[col][col];
        for j in 0..m {
            a[col][j] /= d;
            inv[col][j] /= d;
        }
        for i in (0..m).filter(|&i| i != col) {
            let f = a[i][col];
            if f != 0.0 {
                for j in 0..m {
                    a[i][j] -= f * a[col][j];
                    inv[i][j] -= f * inv[col][j];
                }
            }
        }
    }
    Some(inv)
}

/// Blocks holding every variant once, as `(variant, value)` in position order.
fn complete_blocks(
    runs: &[CarryoverRun],
    k: usize,
) -> Result<BTreeMap<u32, Vec<(usize, f64)>>, StatsError> {
    let mut by_block: BTreeMap<u32, Vec<&CarryoverRun>> = BTreeMap::new();
    for r in runs {
        if r.variant >= k {
            return Err(StatsError::InvalidParameter {
                name: "variant",
                value: r.variant as f64,
                reason: "outside 0..k",
            });
        }
        if !r.value.is_finite() {
            return Err(StatsError::NonFinite {
                what: "carryover run value",
                value: r.value,
            });
        }
        by_block.entry(r.block).or_default().push(r);
    }
    let mut out = BTreeMap::new();
    for (id, mut block) in by_block {
        block.sort_by_key(|r| r.position);
        let mut seen = vec![false; k];
        let once = block.len() == k
            && block
                .iter()
                .all(|r| !std::mem::replace(&mut seen[r.variant], true));
        if once {
            out.insert(id, block.iter().map(|r| (r.variant, r.value)).collect());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Williams rows for 3 variants (as `bench-sched` plans them).
    const ROWS: [[usize; 3]; 6] = [
        [0, 2, 1],
        [1, 0, 2],
        [2, 1, 0],
        [1, 2, 0],
        [2, 0, 1],
        [0, 1, 2],
    ];

    fn runs(rho: [f64; 3], blocks: u32) -> Vec<CarryoverRun> {
        let mut out = Vec::new();
        let mut prev: Option<usize> = None;
        for b in 0..blocks {
            for (p, &v) in ROWS[b as usize % 6].iter().enumerate() {
                let wiggle = ((b * 7 + p as u32 * 3) % 5) as f64 * 0.01;
                let value = 10.0 * (v + 1) as f64
                    + f64::from(b) * 0.1
                    + wiggle
                    + prev.map_or(0.0, |u| rho[u]);
                out.push(CarryoverRun {
                    variant: v,
                    block: b,
                    position: p as u32,
                    value,
                });
                prev = Some(v);
            }
        }
        out
    }

    #[test]
    fn reads_the_residual_effect_of_the_candidate() {
        let r = runs([0.0, 0.0, 2.0], 36);
        let c = residual_carryover(&r, 3, 0, 2, BlockJoin::BackToBack, 0.05).unwrap();
        assert!((c.estimate - 2.0).abs() < 0.01, "{c:?}");
        assert!(c.detected);
        assert!(c.version_bias < -0.5 && c.version_bias > -c.estimate / 2.0 - 1e-9);
        let none =
            residual_carryover(&runs([1.0; 3], 36), 3, 0, 2, BlockJoin::BackToBack, 0.05).unwrap();
        assert!(none.estimate.abs() < 0.01, "{none:?}");
    }

    #[test]
    fn rejects_two_variants_and_bad_indices() {
        let r = runs([0.0; 3], 6);
        assert!(residual_carryover(&r, 2, 0, 1, BlockJoin::BackToBack, 0.05).is_err());
        assert!(residual_carryover(&r, 3, 1, 1, BlockJoin::BackToBack, 0.05).is_err());
        assert!(residual_carryover(&r, 3, 0, 5, BlockJoin::BackToBack, 0.05).is_err());
    }
}
