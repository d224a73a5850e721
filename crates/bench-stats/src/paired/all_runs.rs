//! The mean run: the ratio of the two variants' mean runs over every run (the total time
//! the runs took, per run), with Fieller's interval over the blocks (`RatioOfMeans`).
//! One estimator, read in two places: the shape check's mean-run part
//! (`crate::paired::shape`, tested there against "nothing changed"), and, when the blocks
//! hold unequal counts and that part is not checked, [`AllRunsMean`], which EQUIVALENT
//! reads for the slow runs (`crate::analysis::decision`). A slow tail that grew moves the
//! mean run by its share times its size (10% of runs 30% slower: +3%), while on a machine
//! that disturbs some runs of both variants alike its interval narrows as the blocks grow,
//! where the slow runs' quantile, sitting at the edge of the disturbed runs, has no density
//! to narrow on (`cargo xtask equivalence-disturbed`, `docs/calibration.md`).
//!
//! # Method
//! With `x_b` and `y_b` the baseline's and the candidate's sums of runs in block `b`, each
//! over its variant's number of runs, `R = sum y_b / sum x_b` is the ratio of the mean
//! runs. `z_b(R) = y_b - R x_b` are independent over the blocks (the runs of a block may
//! be correlated), and a block level that slows both variants alike cancels in them;
//! Fieller's interval at `1 - a` is every `R` whose Student t of `mean z(R)` (`k - 1`
//! degrees of freedom for `k` blocks) is inside `t_{1 - a/2}`, the roots of a quadratic
//! in `R` (Fieller 1954). At `R = 1` it is the paired t-test of the blocks' sums. Checked
//! against SciPy (`fixtures/scipy/generate_fieller.py`). Time: O(runs).

use crate::model::blocks::{AsBlocks, Blocks};

/// The ratio of the two variants' means of all runs and its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct AllRunsMean {
    /// The candidate's mean of all its runs over the baseline's.
    pub ratio: f64,
    /// Fieller's interval at the shape check's `equivalence_confidence` (`1 - 2 alpha`),
    /// read by the equivalence test; `None` with fewer than two blocks or when the
    /// interval is not bounded (the baseline's sums not clear of 0 at that level).
    pub equivalence_interval: Option<[f64; 2]>,
}

impl AllRunsMean {
    /// From a ratio and its interval (the shape check's mean-run part, which holds them).
    pub(crate) fn new(ratio: f64, equivalence_interval: Option<[f64; 2]>) -> AllRunsMean {
        AllRunsMean {
            ratio,
            equivalence_interval,
        }
    }
}

/// The mean of all runs of `candidate` over `baseline` (each a list of blocks, each block
/// that variant's runs in it) with Fieller's two-sided interval at `level`. `None` when a
/// value is not positive and finite, a variant has no run, or the two have not as many
/// blocks.
pub fn all_runs_mean(
    baseline: &(impl AsBlocks + ?Sized),
    candidate: &(impl AsBlocks + ?Sized),
    level: f64,
) -> Option<AllRunsMean> {
    let (baseline, candidate) = (&*baseline.as_blocks(), &*candidate.as_blocks());
    let r = RatioOfMeans::of_blocks(baseline, candidate, |x| x)?;
    let equivalence_interval = r
        .interval(1.0 - level)
        .filter(|i| i.iter().all(|x| x.is_finite() && *x > 0.0));
    Some(AllRunsMean {
        ratio: r.estimate,
        equivalence_interval,
    })
}

/// The ratio of two variants' mean runs from paired blocks, `R = sum_b y_b / sum_b x_b`
/// for `x_b`, `y_b` the sums of the baseline's and the candidate's runs in block `b`, each
/// over its variant's number of runs (so `R` is the ratio of the mean runs over every run,
/// with equal counts or not), and Fieller's interval for it (Fieller 1954): with `z_b(R) = y_b - R x_b`,
/// independent over the blocks with mean 0 at the true ratio whatever the runs' shape and
/// however the runs of a block are correlated, the interval at `1 - a` is every `R` whose
/// Student t of `mean z(R)` (`k - 1` degrees of freedom for `k` blocks) is inside
/// `t_{1 - a/2}`: the roots of a quadratic in `R`. A block level that slows both variants
/// alike leaves `z_b` at the true ratio unmoved. At `R = 1` it is the paired t-test of the
/// blocks' sums ([`RatioOfMeans::p_value`]), so the interval excludes 1 exactly when that
/// test's p is below `a`. Time: O(k) for the sums, O(1) per interval.
pub(crate) struct RatioOfMeans {
    /// Blocks.
    k: f64,
    /// The candidate's sum over the baseline's, over every block: `R`.
    pub(crate) estimate: f64,
    /// The sample covariances of the blocks' `(x_b, y_b)`, each divided by the mean `x`:
    /// `(s_xx, s_xy, s_yy)`.
    cov: (f64, f64, f64),
    /// The sample variance of `z_b(estimate)`, scaled as `cov`.
    s_z: f64,
}

impl RatioOfMeans {
    /// From each block's runs (`a`: the baseline's, `b`: the candidate's, the same
    /// blocks), each stored number read as the run `value(x)` (the run itself, or `exp`
    /// of a log-run); `None` without a block or a run of each variant, or with a run or a
    /// variant's sum that is not positive and finite.
    pub(crate) fn of_blocks(
        a: &Blocks,
        b: &Blocks,
        value: impl Fn(f64) -> f64 + Copy,
    ) -> Option<RatioOfMeans> {
        let sums = |v: &Blocks| -> Option<Vec<f64>> {
            let n = v.values().len() as f64;
            let sums: Vec<f64> = v
                .iter()
                .map(|runs| runs.iter().map(|&x| value(x)).sum::<f64>() / n)
                .collect();
            let ok = v.values().iter().all(|&x| {
                let r = value(x);
                r.is_finite() && r > 0.0
            });
            (ok && n > 0.0 && !sums.is_empty()).then_some(sums)
        };
        let (xs, ys) = (sums(a)?, sums(b)?);
        if xs.len() != ys.len() {
            return None;
        }
        let r = Self::of_sums(&xs, &ys);
        (r.estimate.is_finite() && r.estimate > 0.0).then_some(r)
    }

    /// From the blocks' sums `x_b` (baseline) and `y_b` (candidate), all positive.
    pub(crate) fn of_sums(xs: &[f64], ys: &[f64]) -> RatioOfMeans {
        let k = xs.len() as f64;
        let (sum_x, sum_y) = (xs.iter().sum::<f64>(), ys.iter().sum::<f64>());
        let (mx, my) = (sum_x / k, sum_y / k);
        // Exactly 1 when the two variants' sums are the same numbers.
        let estimate = sum_y / sum_x;
        let d = (k - 1.0).max(1.0);
        // Deviations scaled by the mean x: R and every t-ratio are unchanged, the squares
        // stay small, and equal sums in every block leave no spread at all.
        let (mut sxx, mut sxy, mut syy, mut s_z) = (0.0, 0.0, 0.0, 0.0);
        for (&xi, &yi) in xs.iter().zip(ys) {
            let (dx, dy) = ((xi - mx) / mx, (yi - my) / mx);
            sxx += dx * dx;
            sxy += dx * dy;
            syy += dy * dy;
            let dz = dy - estimate * dx;
            s_z += dz * dz;
        }
        RatioOfMeans {
            k,
            estimate,
            cov: (sxx / d, sxy / d, syy / d),
            s_z: s_z / d,
        }
    }

    /// The two-sided p of `R = 1`: the paired t-test of the blocks' sums, `mean(y - x)`
    /// over its standard error with `k - 1` degrees of freedom (1 when every block's
    /// sums are equal, 0 when they differ by the same amount in every block).
    pub(crate) fn p_value(&self) -> f64 {
        let (sxx, sxy, syy) = self.cov;
        let var = (syy - 2.0 * sxy + sxx).max(0.0) / self.k;
        let diff = self.estimate - 1.0;
        if var <= 0.0 || var.sqrt() <= 1e-14 * diff.abs() {
            return if diff.abs() <= 1e-14 { 1.0 } else { 0.0 };
        }
        let t = diff.abs() / var.sqrt();
        crate::special::student_t_sf(t, self.k - 1.0).map_or(1.0, |p| (2.0 * p).min(1.0))
    }

    /// Fieller's interval for `R` at `1 - a`; `None` when it is not a bounded interval
    /// (the mean of the baseline's sums not clear of 0 at that level, or too few blocks).
    pub(crate) fn interval(&self, a: f64) -> Option<[f64; 2]> {
        if self.k < 2.0 || !(a > 0.0 && a < 1.0) {
            return None;
        }
        let t = crate::special::student_t_ppf(1.0 - a / 2.0, self.k - 1.0)?;
        let g = t * t / self.k;
        let (sxx, sxy, syy) = self.cov;
        // (mean z(R))^2 <= g var z(R): A R^2 - 2 B R + C <= 0, mean x = 1.
        let qa = 1.0 - g * sxx;
        if qa <= 0.0 {
            return None;
        }
        let qb = self.estimate - g * sxy;
        // B^2 - A C = g (var z(estimate) - g (s_xx s_yy - s_xy^2)), both terms >= 0 at
        // a bounded interval; written so that it does not cancel.
        let det = (sxx * syy - sxy * sxy).max(0.0);
        let disc = (g * (self.s_z - g * det)).max(0.0);
        let half = disc.sqrt();
        let lo = (qb - half) / qa;
        let hi = (qb + half) / qa;
        (lo.is_finite() && hi.is_finite() && lo > 0.0).then_some([lo, hi])
    }
}

#[cfg(test)]
mod tests {
    use super::{RatioOfMeans, all_runs_mean};

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
    fn with_unequal_counts_it_is_the_ratio_of_the_pooled_means() {
        // Blocks of 1-3 runs of each variant, 12 of A and 13 of B in all: the ratio of the
        // two means over every run (not of the sums), and its interval is the one of the
        // blocks' sums each over its variant's count.
        let base = vec![
            vec![10.0, 11.0, 12.0],
            vec![20.0],
            vec![15.0, 16.0],
            vec![12.0, 12.5],
            vec![18.0, 17.0, 19.0],
            vec![14.0],
        ];
        let cand = vec![
            vec![12.0],
            vec![21.0, 22.0, 23.0],
            vec![16.0, 15.5],
            vec![12.5, 13.0],
            vec![18.5],
            vec![14.0, 15.0, 14.5, 14.2],
        ];
        let m = all_runs_mean(&base, &cand, 0.9).unwrap();
        let mean = |v: &[Vec<f64>]| {
            let all: Vec<f64> = v.iter().flatten().copied().collect();
            all.iter().sum::<f64>() / all.len() as f64
        };
        assert!((m.ratio - mean(&cand) / mean(&base)).abs() < 1e-12);
        let (na, nb) = (12.0, 13.0);
        let xs: Vec<f64> = base.iter().map(|b| b.iter().sum::<f64>() / na).collect();
        let ys: Vec<f64> = cand.iter().map(|b| b.iter().sum::<f64>() / nb).collect();
        let want = RatioOfMeans::of_sums(&xs, &ys).interval(0.1).unwrap();
        let [lo, hi] = m.equivalence_interval.unwrap();
        assert!((lo - want[0]).abs() < 1e-12 && (hi - want[1]).abs() < 1e-12);
        assert!(lo < m.ratio && m.ratio < hi);
    }

    #[test]
    fn values_that_are_not_positive_have_no_mean_ratio() {
        assert!(all_runs_mean(&[vec![1.0, 0.0]], &[vec![1.0, 2.0]], 0.9).is_none());
        assert!(all_runs_mean(&[vec![]], &[vec![1.0]], 0.9).is_none());
        assert!(all_runs_mean(&[vec![1.0]], &[vec![1.0], vec![2.0]], 0.9).is_none());
    }

    /// Fieller's interval and the paired t-test against SciPy
    /// (`fixtures/scipy/generate_fieller.py`): the interval's ends found there without the
    /// closed form, as the ratios at which `ttest_1samp(y - R x)` has p `a`.
    #[test]
    fn ratio_of_means_matches_scipy_fieller() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/scipy/fieller.json"
        ))
        .expect("fixture");
        let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
        let cases = doc["cases"].as_array().expect("cases");
        assert!(cases.len() >= 12);
        let close = |got: f64, want: f64| (got - want).abs() <= 1e-9 * want.abs().max(1e-300);
        let (mut bounded, mut unbounded) = (0, 0);
        for case in cases {
            let x: Vec<f64> = serde_json::from_value(case["x"].clone()).expect("x");
            let y: Vec<f64> = serde_json::from_value(case["y"].clone()).expect("y");
            let r = RatioOfMeans::of_sums(&x, &y);
            let want = case["ratio"].as_f64().expect("ratio");
            assert!(
                close(r.estimate, want),
                "k {}: {} vs {want}",
                x.len(),
                r.estimate
            );
            let p = case["p_value"].as_f64().expect("p");
            assert!(
                (r.p_value() - p).abs() <= 1e-9 * p.max(1e-12),
                "k {}: p {} vs SciPy {p}",
                x.len(),
                r.p_value()
            );
            for level in case["intervals"].as_array().expect("intervals") {
                let a = level["a"].as_f64().expect("a");
                let want: Option<[f64; 2]> =
                    serde_json::from_value(level["interval"].clone()).expect("interval");
                let got = r.interval(a);
                match (got, want) {
                    (Some(g), Some(w)) => {
                        bounded += 1;
                        assert!(
                            close(g[0], w[0]) && close(g[1], w[1]),
                            "k {} a {a}: {g:?} vs SciPy {w:?}",
                            x.len()
                        );
                        // The interval excludes 1 exactly when the t-test rejects at `a`.
                        assert_eq!(g[0] > 1.0 || g[1] < 1.0, r.p_value() < a);
                    }
                    (None, None) => unbounded += 1,
                    _ => panic!("k {} a {a}: {got:?} vs SciPy {want:?}", x.len()),
                }
            }
        }
        assert!(
            bounded >= 40 && unbounded >= 2,
            "{bounded} bounded, {unbounded} not"
        );
    }
}

#[cfg(test)]
mod coverage_tests {
    use super::RatioOfMeans;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
        let (u, v): (f64, f64) = (rng.random(), rng.random());
        (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// The share of `reps` sessions whose interval at `1 - a` holds the true ratio of the
    /// mean runs, each session 30 blocks of 2 + 2 runs: a block level (SD 10%), run noise
    /// (1%), each of the candidate's runs `slow` times slower with probability `share`, and
    /// each run of either variant disturbed (`burst` times slower) with probability
    /// `disturbed`. The true ratio is `1 - share + share slow`.
    fn coverage(
        reps: u64,
        (share, slow): (f64, f64),
        (disturbed, burst): (f64, f64),
        a: f64,
    ) -> f64 {
        let truth = 1.0 - share + share * slow;
        let mut covered = 0u32;
        for rep in 0..reps {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1000 + rep);
            let (mut xs, mut ys) = (Vec::new(), Vec::new());
            for _ in 0..30 {
                let level = (0.1 * normal(&mut rng)).exp();
                let (mut x, mut y) = (0.0, 0.0);
                for _ in 0..2 {
                    let run = |rng: &mut Xoshiro256PlusPlus| {
                        let d = if rng.random::<f64>() < disturbed {
                            burst
                        } else {
                            1.0
                        };
                        level * d * (0.01 * normal(rng)).exp()
                    };
                    x += run(&mut rng);
                    let f = if rng.random::<f64>() < share {
                        slow
                    } else {
                        1.0
                    };
                    y += f * run(&mut rng);
                }
                xs.push(x);
                ys.push(y);
            }
            let [lo, hi] = RatioOfMeans::of_sums(&xs, &ys)
                .interval(a)
                .expect("bounded");
            covered += u32::from(lo <= truth && truth <= hi);
        }
        f64::from(covered) / reps as f64
    }

    /// Fieller's interval covers the ratio of the mean runs near its level on the
    /// changes that made it the mean run's (issue 42): a share of the candidate's runs
    /// slower (the blocks' sums right-skewed: the part-coverage grid's quiet "30% of B's
    /// runs 20% slower") and, with nothing changed, a machine that disturbs 5% of all runs
    /// (heavy tails on both sides). 3,000 sessions each: Monte Carlo SD 0.4 points.
    #[test]
    fn fieller_covers_the_mean_ratio_near_its_level_on_skewed_and_disturbed_blocks() {
        for (change, disturbance) in [((0.3, 1.2), (0.0, 1.0)), ((0.0, 1.0), (0.05, 1.6))] {
            let c = coverage(3000, change, disturbance, 0.05);
            assert!(
                (0.938..=0.962).contains(&c),
                "{change:?} {disturbance:?}: {c}"
            );
        }
    }
}
