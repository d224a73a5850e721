//! The mean run: the ratio of the two variants' mean runs over every run (the total time
//! the runs took, per run), with its interval over the blocks (`RatioOfMeans`): the
//! sign-flip test of Fieller's statistic inverted, Fieller's own above 4,096 blocks.
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
//! be correlated), and a block level that slows both variants alike cancels in them.
//! The interval at `1 - a` is every `R` at which the sign-flip test of the `z_b(R)` does
//! not reject at `a` (`SignFlips`: each pattern of signs over the blocks as likely as the
//! observed one when the `z_b` are symmetric, exact then whatever their tails); at `R = 1`
//! it is the sign-flip test of the blocks' differences of sums. Student's t over the same
//! `z_b(R)` (Fieller 1954, the roots of a quadratic in `R`) is conservative where a few
//! blocks carry most of the spread, as a machine's spikes and bursts make them, and is
//! kept above 4,096 blocks (`FLIP_BLOCKS`), where the two agree and the flips would cost a pass
//! over the blocks each. Fieller's interval is checked against SciPy
//! (`fixtures/scipy/generate_fieller.py`), the sign flips' p and interval against SciPy's
//! exact `permutation_test` (`fixtures/scipy/generate_sign_flip_ratio.py`).
//! Time: O(runs) and `O(P k)` for `P` patterns of `k` blocks.

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
/// with equal counts or not), and its interval: with `z_b(R) = y_b - R x_b`, independent
/// over the blocks with mean 0 at the true ratio whatever the runs' shape and however the
/// runs of a block are correlated (a block level that slows both variants alike leaves
/// `z_b` at the true ratio unmoved), the interval at `1 - a` is every `R` at which the
/// sign-flip test of the `z_b(R)` does not reject at `a` ([`SignFlips`]; up to
/// [`FLIP_BLOCKS`] blocks) or Fieller's, every `R` whose Student t of `mean z(R)` (`k - 1`
/// degrees of freedom for `k` blocks) is inside `t_{1 - a/2}` (Fieller 1954, the roots of
/// a quadratic in `R`; above). At `R = 1` either is the test of the blocks' differences
/// of sums ([`RatioOfMeans::p_value`]), so the interval excludes 1 exactly when that
/// test's p is at most `a`. Time: O(k) for the sums, `O(P k)` for `P` sign patterns,
/// O(P) per interval.
pub(crate) struct RatioOfMeans {
    /// Blocks.
    k: f64,
    /// The sign-flip sums ([`SignFlips`]); `None` above [`FLIP_BLOCKS`] blocks.
    flips: Option<SignFlips>,
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
        let flips = (xs.len() <= FLIP_BLOCKS).then(|| SignFlips::new(xs, ys, mx));
        RatioOfMeans {
            k,
            flips,
            estimate,
            cov: (sxx / d, sxy / d, syy / d),
            s_z: s_z / d,
        }
    }

    /// The two-sided p of `R = 1`: the sign-flip test of the blocks' `z(1) = y - x`
    /// ([`SignFlips`]) up to [`FLIP_BLOCKS`] blocks, the paired t-test
    /// ([`RatioOfMeans::t_p_value`]) above. The interval ([`RatioOfMeans::interval`])
    /// excludes 1 exactly when it is below the interval's `a`.
    pub(crate) fn p_value(&self) -> f64 {
        match &self.flips {
            Some(f) => f.p_value(1.0),
            None => self.t_p_value(),
        }
    }

    /// The interval of `R` at `1 - a`: the sign-flip test inverted
    /// ([`SignFlips::interval`]) up to [`FLIP_BLOCKS`] blocks, Fieller's
    /// ([`RatioOfMeans::fieller_interval`]) above. `None` when it is not a bounded
    /// interval.
    pub(crate) fn interval(&self, a: f64) -> Option<[f64; 2]> {
        match &self.flips {
            Some(f) if self.k >= 2.0 && a > 0.0 && a < 1.0 => f.interval(a),
            Some(_) => None,
            None => self.fieller_interval(a),
        }
    }

    /// The two-sided p of `R = 1`: the paired t-test of the blocks' sums, `mean(y - x)`
    /// over its standard error with `k - 1` degrees of freedom (1 when every block's
    /// sums are equal, 0 when they differ by the same amount in every block).
    pub(crate) fn t_p_value(&self) -> f64 {
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
    pub(crate) fn fieller_interval(&self, a: f64) -> Option<[f64; 2]> {
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

/// Blocks up to which the mean run's interval inverts the sign-flip test; above, where the
/// flips would cost `FLIPS` passes over the blocks, Fieller's interval at Student's t
/// (which the sign-flip test approaches as the blocks grow).
const FLIP_BLOCKS: usize = 4096;

/// Random sign flips beside the observed one; every flip of the blocks when they are at
/// most this many (`2^k <= FLIPS + 1`).
const FLIPS: usize = 1999;

/// The sign-flip test of the blocks' `z_b(R) = y_b - R x_b` and its inversion in `R`.
///
/// At the true ratio `z_b(R)` has mean 0 in every block; when the blocks' `z_b` are
/// symmetric about it (the two variants' runs exchangeable within a block, as the
/// randomized order makes them when nothing changed, or a change that scales every run)
/// each sign pattern `s` of the blocks is as likely as the observed one, and the p of
/// `R` is the share of patterns with `|sum_b s_b z_b(R)| >= |sum_b z_b(R)|`: the
/// studentized statistic `mean z / se(z)` orders the patterns the same way (`sum z_b^2`
/// is the same under every pattern), so this is the sign-flip test of Student's t, exact
/// under symmetry whatever the tails and asymptotically valid without it (Janssen 1999).
/// Student's t itself is conservative when a few blocks carry most of the spread (a
/// spike, a burst, a load phase that changes inside a block: Efron 1969), and its
/// interval was longer than its level on machines that disturb runs.
///
/// With `X_s = sum s_b x_b` and `Y_s = sum s_b y_b` the statistic is `|Y_s - R X_s|`, so
/// each pattern is two numbers and the p of any `R` is one pass over the patterns. A
/// pattern other than the observed one and its negation (which tie at every `R`) reaches
/// the observed statistic for `R` between the two roots `(Y_s - Y) / (X_s - X)` and
/// `(Y_s + Y) / (X_s + X)` (`|X_s| < X` since every `x_b > 0`), an interval that holds the
/// estimate `Y / X`, where every pattern ties. The confidence set `{R : p(R) > a}` is
/// then an interval whose ends are order statistics of the patterns' roots. Time: `O(P k)`
/// for `P` patterns and `k` blocks, `O(P)` per interval.
#[derive(Debug, Clone)]
struct SignFlips {
    /// `(X, Y)`: the sums of every block, the observed pattern.
    observed: (f64, f64),
    /// `(X_s, Y_s)` of every other pattern, the observed one's negation included.
    patterns: Vec<(f64, f64)>,
}

impl SignFlips {
    /// The patterns of the blocks' sums `xs`, `ys` (each divided by `scale`): every one
    /// when there are at most `FLIPS + 1`, else `FLIPS` drawn from a fixed seed.
    fn new(xs: &[f64], ys: &[f64], scale: f64) -> SignFlips {
        use rand::{Rng, SeedableRng};
        let k = xs.len();
        let (x, y): (Vec<f64>, Vec<f64>) = xs
            .iter()
            .zip(ys)
            .map(|(&x, &y)| (x / scale, y / scale))
            .unzip();
        let observed = (x.iter().sum::<f64>(), y.iter().sum::<f64>());
        // A pattern flips the blocks whose bits are set: `X_s = X - 2 sum_flipped x_b`.
        let flipped = |words: &[u64]| {
            let (mut fx, mut fy) = (0.0, 0.0);
            for (w, &word) in words.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let b = w * 64 + bits.trailing_zeros() as usize;
                    fx += x[b];
                    fy += y[b];
                    bits &= bits - 1;
                }
            }
            (observed.0 - 2.0 * fx, observed.1 - 2.0 * fy)
        };
        let patterns = if k < 63 && (1u64 << k) <= (FLIPS + 1) as u64 {
            (1..1u64 << k).map(|m| flipped(&[m])).collect()
        } else {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0x5165_6e46_6c69_7073);
            let mut words = vec![0u64; k.div_ceil(64)];
            let last = if k % 64 == 0 {
                u64::MAX
            } else {
                (1u64 << (k % 64)) - 1
            };
            (0..FLIPS)
                .map(|_| {
                    words.iter_mut().for_each(|w| *w = rng.random());
                    if let Some(w) = words.last_mut() {
                        *w &= last;
                    }
                    flipped(&words)
                })
                .collect()
        };
        SignFlips { observed, patterns }
    }

    /// Patterns in all, the observed one included.
    fn count(&self) -> usize {
        self.patterns.len() + 1
    }

    /// Whether pattern `(xs, ys)` ties the observed one at every `R` (the negation).
    fn always(&self, (xs, ys): (f64, f64)) -> bool {
        let (x, y) = self.observed;
        (xs + x).abs() <= 1e-12 * x && (ys + y).abs() <= 1e-12 * y.abs().max(x)
    }

    /// The share of patterns whose statistic at `R` is at least the observed one's.
    fn p_value(&self, r: f64) -> f64 {
        let (x, y) = self.observed;
        let at = (y - r * x).abs();
        let tol = 1e-12 * (y.abs() + r.abs() * x);
        let reached = self
            .patterns
            .iter()
            .filter(|&&(xs, ys)| (ys - r * xs).abs() >= at - tol)
            .count();
        (1 + reached) as f64 / self.count() as f64
    }

    /// `{R : p(R) > a}`, an interval around `Y / X`; `None` when every `R` is in it (the
    /// patterns that tie everywhere are more than `a` of them: too few blocks).
    fn interval(&self, a: f64) -> Option<[f64; 2]> {
        let (x, y) = self.observed;
        let n = self.count();
        // p(R) <= a exactly when at most `m` patterns reach the observed statistic.
        let m = (a * n as f64 + 1e-9).floor() as usize;
        let mut fixed = 1;
        let (mut lo, mut hi) = (Vec::new(), Vec::new());
        for &(xs, ys) in &self.patterns {
            if self.always((xs, ys)) {
                fixed += 1;
                continue;
            }
            let (r1, r2) = ((ys - y) / (xs - x), (ys + y) / (xs + x));
            lo.push(r1.min(r2));
            hi.push(r1.max(r2));
        }
        if m < fixed {
            return None;
        }
        // Above the estimate the patterns that reach are those whose upper root is past
        // `R`: `R` is rejected once at most `m - fixed` of them are, so the upper end is
        // the `(m - fixed + 1)`-th largest upper root; the lower end likewise.
        let j = m - fixed;
        if j >= hi.len() {
            return None;
        }
        let top = hi.len() - 1 - j;
        let upper = *hi.select_nth_unstable_by(top, f64::total_cmp).1;
        let lower = *lo.select_nth_unstable_by(j, f64::total_cmp).1;
        (lower.is_finite() && upper.is_finite() && lower > 0.0).then_some([lower, upper])
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
                (r.t_p_value() - p).abs() <= 1e-9 * p.max(1e-12),
                "k {}: p {} vs SciPy {p}",
                x.len(),
                r.t_p_value()
            );
            for level in case["intervals"].as_array().expect("intervals") {
                let a = level["a"].as_f64().expect("a");
                let want: Option<[f64; 2]> =
                    serde_json::from_value(level["interval"].clone()).expect("interval");
                let got = r.fieller_interval(a);
                match (got, want) {
                    (Some(g), Some(w)) => {
                        bounded += 1;
                        assert!(
                            close(g[0], w[0]) && close(g[1], w[1]),
                            "k {} a {a}: {g:?} vs SciPy {w:?}",
                            x.len()
                        );
                        // The interval excludes 1 exactly when the t-test rejects at `a`.
                        assert_eq!(g[0] > 1.0 || g[1] < 1.0, r.t_p_value() < a);
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
    /// The sign-flip test and its interval against SciPy
    /// (`fixtures/scipy/generate_sign_flip_ratio.py`): 3 to 10 blocks, every pattern
    /// enumerated on both sides, `scipy.stats.permutation_test`'s exact p of `R = 1` and the
    /// interval's ends found there by bisection on `R` (no interval where the observed
    /// pattern and its negation alone exceed the level).
    #[test]
    fn sign_flip_interval_matches_scipy_permutation_test() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/scipy/sign_flip_ratio.json"
        ))
        .expect("fixture");
        let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
        let cases = doc["cases"].as_array().expect("cases");
        assert!(cases.len() >= 8);
        let (mut bounded, mut unbounded) = (0, 0);
        for case in cases {
            let x: Vec<f64> = serde_json::from_value(case["x"].clone()).expect("x");
            let y: Vec<f64> = serde_json::from_value(case["y"].clone()).expect("y");
            let k = x.len();
            let r = RatioOfMeans::of_sums(&x, &y);
            let p = case["p_value"].as_f64().expect("p");
            assert!(
                (r.p_value() - p).abs() <= 1e-12,
                "k {k}: p {} vs SciPy {p}",
                r.p_value()
            );
            for level in case["intervals"].as_array().expect("intervals") {
                let a = level["a"].as_f64().expect("a");
                let want: Option<[f64; 2]> =
                    serde_json::from_value(level["interval"].clone()).expect("interval");
                match (r.interval(a), want) {
                    (Some(g), Some(w)) => {
                        bounded += 1;
                        let close = |g: f64, w: f64| (g - w).abs() <= 1e-9 * w;
                        assert!(
                            close(g[0], w[0]) && close(g[1], w[1]),
                            "k {k} a {a}: {g:?} vs SciPy {w:?}"
                        );
                    }
                    (None, None) => unbounded += 1,
                    (got, want) => panic!("k {k} a {a}: {got:?} vs SciPy {want:?}"),
                }
            }
        }
        assert!(
            bounded >= 30 && unbounded >= 4,
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
    /// each run of either variant disturbed (a factor uniform in `burst`) with probability
    /// `disturbed`. The true ratio is `1 - share + share slow`. The interval is `interval`'s.
    fn coverage(
        reps: u64,
        (share, slow): (f64, f64),
        (disturbed, burst): (f64, (f64, f64)),
        a: f64,
        interval: fn(&RatioOfMeans, f64) -> Option<[f64; 2]>,
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
                            burst.0 + (burst.1 - burst.0) * rng.random::<f64>()
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
            let [lo, hi] = interval(&RatioOfMeans::of_sums(&xs, &ys), a).expect("bounded");
            covered += u32::from(lo <= truth && truth <= hi);
        }
        f64::from(covered) / reps as f64
    }

    /// The mean run's interval covers the ratio of the mean runs near its level on the
    /// changes that made it the mean run's (issue 42): a share of the candidate's runs
    /// slower (the blocks' sums right-skewed: the part-coverage grid's quiet "30% of B's
    /// runs 20% slower") and, with nothing changed, a machine that disturbs 5% of all runs
    /// (heavy tails on both sides). 3,000 sessions each: Monte Carlo SD 0.4 points.
    /// Fieller's interval at Student's t does as well on these.
    #[test]
    fn the_interval_covers_the_mean_ratio_near_its_level_on_skewed_and_disturbed_blocks() {
        let cases = [
            ((0.3, 1.2), (0.0, (1.0, 1.0))),
            ((0.0, 1.0), (0.05, (1.6, 1.6))),
        ];
        for (change, disturbance) in cases {
            for (name, interval) in [
                ("sign flips", RatioOfMeans::interval as fn(&_, _) -> _),
                ("Fieller", RatioOfMeans::fieller_interval),
            ] {
                let c = coverage(3000, change, disturbance, 0.05, interval);
                assert!(
                    (0.938..=0.962).contains(&c),
                    "{name} {change:?} {disturbance:?}: {c}"
                );
            }
        }
    }

    /// Where a few blocks carry most of the spread (2.5% of runs 1.5-3.5x slower, as a
    /// machine's pre-emptions make them; about one block in ten hit), Student's t is
    /// conservative (Efron 1969) and Fieller's interval held the truth above its level
    /// (the simulated bursty machine's mean cells 98-99% at 96.8%, issue 42); the sign
    /// flips hold it at its level. 3,000 sessions, nothing changed and a 30%-of-runs
    /// change.
    #[test]
    fn spikes_leave_the_sign_flip_interval_at_its_level_where_fieller_is_conservative() {
        let spikes = (0.025, (1.5, 3.5));
        for change in [(0.0, 1.0), (0.3, 1.2)] {
            let flips = coverage(3000, change, spikes, 0.05, RatioOfMeans::interval);
            let fieller = coverage(3000, change, spikes, 0.05, RatioOfMeans::fieller_interval);
            assert!(
                (0.938..=0.962).contains(&flips),
                "{change:?}: sign flips {flips}"
            );
            assert!(
                fieller > flips + 0.01,
                "{change:?}: Fieller {fieller}, flips {flips}"
            );
        }
    }

    /// The interval's ends are where the sign-flip p crosses its level: inside them (by a
    /// hair) `p > a`, outside `p <= a`, on blocks few enough to enumerate every pattern and
    /// on blocks drawn at random.
    #[test]
    fn the_sign_flip_interval_ends_where_its_p_crosses_the_level() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for k in [6, 9, 10, 11, 30, 200] {
            let xs: Vec<f64> = (0..k)
                .map(|_| 10.0 * (0.2 * normal(&mut rng)).exp())
                .collect();
            let ys: Vec<f64> = xs
                .iter()
                .map(|x| 1.03 * x * (0.05 * normal(&mut rng)).exp())
                .collect();
            let r = RatioOfMeans::of_sums(&xs, &ys);
            let f = r.flips.as_ref().expect("flips");
            for a in [0.05, 0.1, 0.2] {
                let Some([lo, hi]) = r.interval(a) else {
                    assert!(k <= 6, "k {k} a {a}");
                    continue;
                };
                assert!(lo < r.estimate && r.estimate < hi);
                let eps = 1e-9 * hi;
                assert!(
                    f.p_value(lo + eps) > a && f.p_value(hi - eps) > a,
                    "k {k} a {a}"
                );
                assert!(
                    f.p_value(lo - eps) <= a && f.p_value(hi + eps) <= a,
                    "k {k} a {a}"
                );
                // The test at 1 agrees with the interval.
                assert_eq!(lo > 1.0 || hi < 1.0, r.p_value() <= a, "k {k} a {a}");
            }
        }
    }
}
