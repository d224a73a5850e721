//! The fewest blocks (or runs) with which the deciding test can reach alpha at all: the
//! floor under every "run more blocks" advice.
//!
//! An exact rank test has a smallest p it can give: the Wilcoxon signed-rank (and sign)
//! test with `n` blocks that differ `2 / 2^n` two-sided (every block on one side), the
//! Mann-Whitney U test with `n` runs of each variant `2 / C(2n, n)` (every run of one
//! below every run of the other), the typical run's min-p adjusted randomization test of
//! its parts `2 / 2^n` (its mean run at its extreme,
//! [`crate::paired::shape::min_shape_blocks`]). Holm's step-down correction
//! over `m` comparisons (Holm 1979) multiplies the smallest p by `m` at its first step,
//! so nothing is rejected unless some raw p is below `alpha / m`. Advice that names fewer
//! blocks than this floor names an experiment that cannot decide, whatever it measures.

/// The test a floor is for, and so the smallest p it can reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FloorTest {
    /// The Wilcoxon signed-rank test of the block values: smallest p `2 / 2^n`.
    SignedRank,
    /// The typical run's randomization test of this many parts, min-p adjusted
    /// ([`crate::paired::shape::min_shape_blocks`]): smallest adjusted p `2 / 2^n`.
    Quantiles(usize),
    /// The Mann-Whitney U test of the runs: smallest p `2 / C(2n, n)` with `n` of each.
    MannWhitney,
    /// A block-bootstrap interval: no smallest p; abba tests it from as many blocks as the
    /// signed-rank test needs.
    Bootstrap,
}

/// The fewest blocks (paired) or runs per variant (unpaired) with which the deciding test
/// can reach the level of Holm's first step, `alpha / holm`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TestFloor {
    /// The count.
    pub count: usize,
    /// The comparisons Holm's correction runs over (1: no correction).
    pub holm: usize,
    /// The level the smallest p must be below: `alpha / holm`.
    pub level: f64,
    /// The test.
    pub test: FloorTest,
}

/// Largest count searched; beyond it every test here reaches any alpha a user gives.
const MAX: usize = 1 << 12;

impl TestFloor {
    /// The floor of `test` at `alpha` with Holm's correction over `holm` comparisons.
    ///
    /// Time: O(count) (O(count^2) for the Mann-Whitney test's binomial coefficients,
    /// which exceed any reasonable `1 / alpha` within a few dozen runs).
    pub(crate) fn new(test: FloorTest, alpha: f64, holm: usize) -> TestFloor {
        let holm = holm.max(1);
        let level = alpha / holm as f64;
        let count = match test {
            FloorTest::SignedRank | FloorTest::Bootstrap => {
                fewest(|n| 2.0 / 2f64.powi(n as i32) < level)
            }
            FloorTest::Quantiles(k) => crate::paired::shape::min_shape_blocks(level, k),
            FloorTest::MannWhitney => fewest(|n| 2.0 / central_binomial(n) < level),
        };
        TestFloor {
            count,
            holm,
            level,
            test,
        }
    }

    /// "the signed-rank test cannot reach alpha = 0.05 with fewer than 6 blocks (its
    /// smallest p with n blocks that differ is 2/2^n)", with Holm's first step named when
    /// it applies; `alpha` is the configured one.
    pub(crate) fn words(&self, alpha: f64) -> String {
        let level = if self.holm > 1 {
            format!(
                "alpha/{} = {} (the first step of Holm's correction over {} comparisons)",
                self.holm,
                short(self.level),
                self.holm
            )
        } else {
            format!("alpha = {}", short(alpha))
        };
        let n = self.count;
        match self.test {
            FloorTest::SignedRank => format!(
                "the signed-rank test cannot reach {level} with fewer than {n} blocks (its smallest p with n blocks that differ is 2/2^n)"
            ),
            FloorTest::Quantiles(k) => {
                let smallest = if k == 1 {
                    "its one part's smallest p with n blocks is 2/2^n"
                } else {
                    "its smallest adjusted p with n blocks is 2/2^n, the mean run's at its extreme"
                };
                format!(
                    "the typical run's test cannot reach {level} with fewer than {n} blocks ({smallest})"
                )
            }
            FloorTest::MannWhitney => format!(
                "the Mann-Whitney test cannot reach {level} with fewer than {n} runs per variant (its smallest p with n of each is 2/C(2n,n))"
            ),
            FloorTest::Bootstrap => format!(
                "abba tests the block bootstrap from {n} blocks on, the fewest with which the signed-rank test can reach {level}"
            ),
        }
    }
}

/// The smallest `n` in `2..=MAX` that `reaches`, else `MAX`.
fn fewest(reaches: impl Fn(usize) -> bool) -> usize {
    (2..MAX).find(|&n| reaches(n)).unwrap_or(MAX)
}

/// `C(2n, n)` in floating point (exact while it is below 2^53, then within rounding).
fn central_binomial(n: usize) -> f64 {
    (1..=n).fold(1.0, |c, i| c * (n + i) as f64 / i as f64)
}

/// A level for reading: four significant digits at most (`0.05`, `0.01667`).
pub(crate) fn short(x: f64) -> String {
    let text = format!("{x:.3e}");
    text.parse::<f64>().map_or(text, |v| format!("{v}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_rank_floor_is_the_first_n_whose_smallest_p_is_below_the_level() {
        // 2/2^6 = 0.03125 < 0.05 <= 2/2^5.
        assert_eq!(TestFloor::new(FloorTest::SignedRank, 0.05, 1).count, 6);
        // Holm over 3: 0.0167; 2/2^7 = 0.0156 reaches it, 2/2^6 does not.
        assert_eq!(TestFloor::new(FloorTest::SignedRank, 0.05, 3).count, 7);
        // Over 4: 0.0125 needs 2/2^8.
        assert_eq!(TestFloor::new(FloorTest::SignedRank, 0.05, 4).count, 8);
        // A level of exactly 2/2^5 is not reached by p = 2/2^5 (p < alpha decides).
        assert_eq!(TestFloor::new(FloorTest::SignedRank, 0.0625, 1).count, 6);
    }

    #[test]
    fn mann_whitney_floor_counts_runs_of_each() {
        // C(8, 4) = 70: 2/70 = 0.029 < 0.05; C(6, 3) = 20: 0.1.
        assert_eq!(TestFloor::new(FloorTest::MannWhitney, 0.05, 1).count, 4);
        // Over 3 comparisons: 0.0167; C(10, 5) = 252: 0.0079.
        assert_eq!(TestFloor::new(FloorTest::MannWhitney, 0.05, 3).count, 5);
        assert_eq!(central_binomial(5), 252.0);
    }

    #[test]
    fn quantile_floor_matches_the_shape_checks_own() {
        for alpha in [0.05, 0.01, 0.1] {
            assert_eq!(
                TestFloor::new(FloorTest::Quantiles(4), alpha, 1).count,
                crate::paired::shape::min_shape_blocks(alpha, 4)
            );
        }
    }

    #[test]
    fn words_name_the_level_and_holm() {
        let f = TestFloor::new(FloorTest::SignedRank, 0.05, 3);
        let w = f.words(0.05);
        assert!(w.contains("alpha/3 = 0.01667"), "{w}");
        assert!(w.contains("Holm's correction over 3 comparisons"), "{w}");
        assert!(w.contains("fewer than 7 blocks"), "{w}");
        assert!(
            TestFloor::new(FloorTest::SignedRank, 0.05, 1)
                .words(0.05)
                .contains("reach alpha = 0.05 with")
        );
    }
}
