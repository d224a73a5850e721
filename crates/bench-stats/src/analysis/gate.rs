//! The regression gate of CI pipelines (`abba compare --fail-if-slower PCT`): which
//! candidates are slower by an amount that may matter.

use crate::model::report::{Analysis, Verdict};

/// A candidate the gate flags.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Regression {
    /// The group's baseline.
    pub baseline: String,
    /// The candidate.
    pub candidate: String,
    /// Its ratio, candidate over baseline.
    pub ratio: f64,
    /// The ratio's interval.
    pub ratio_ci: [f64; 2],
    /// The quantile of the run distribution that tripped the gate, for the typical-run
    /// estimator (0.5 the typical run, 0.9 the slow runs of times); `None` for the others
    /// and for the mean run.
    pub quantile: Option<f64>,
    /// The part that tripped it in words ("slow runs (p90)", "mean run"), for the
    /// typical-run estimator; `None` for the others.
    pub part: Option<String>,
}

/// The candidates that are significantly worse than their baseline (the verdict, at the
/// analysis's alpha) and whose ratio interval reaches a slowdown of `pct` on the worse
/// side: for times the upper end is at least `1 + pct`, for throughputs the lower end is
/// at most `1 - pct`. So the gate trips when the data show a slowdown and do not rule out
/// that it is `pct` or more.
///
/// Its operating characteristic (the probability of tripping at true slowdowns of 0,
/// `pct / 2`, `pct` and `2 pct`) is measured by simulation in
/// `tests/integration/decision_calibration.rs` and printed in `docs/calibration.md`: at no change it
/// trips at most as often as a one-sided error at `alpha / 2`.
///
/// For the typical-run estimator the gate reads every checked part of the distribution
/// ([`crate::Comparison::distribution`]): a part that is significantly slower (its
/// simultaneous interval excludes no change, family-wise at alpha) and whose interval
/// reaches `pct` trips it, so a regression of the slow runs alone is caught; the worst such
/// part is reported. The fast runs count only when the verdict is SLOWER: alone they are
/// a change of spread (a more consistent candidate loses its lucky runs).
///
/// A comparison decided by a confidence sequence (`--until decided`,
/// [`crate::Comparison::sequential`]) is gated on what decided it: its verdict and its
/// anytime-valid interval. The shape check's fixed-sample intervals, read at a stop the
/// data chose, would claim more than the sequence supports.
pub fn regressions(analysis: &Analysis, pct: f64) -> Vec<Regression> {
    let mut out = Vec::new();
    for group in &analysis.groups {
        for c in &group.comparisons {
            let fixed_sample_shape = c.distribution.as_ref().filter(|_| c.sequential.is_none());
            if let Some(shape) = fixed_sample_shape {
                // The fast runs alone are no regression a user pays for unless the
                // verdict is SLOWER: a B whose runs are more consistent loses its lucky
                // fast runs (issue 42: the gate failed it in 68-99% of simulations).
                let fast_counts = c.outcome == crate::Outcome::Slower;
                let reaching = shape.parts().filter(|q| {
                    (fast_counts || !is_fast_runs(q, analysis.higher_is_better))
                        && q.part == crate::paired::shape::PartMove::Slower
                        && q.interval.is_some_and(|[lo, hi]| {
                            if analysis.higher_is_better {
                                lo <= 1.0 - pct
                            } else {
                                hi >= 1.0 + pct
                            }
                        })
                });
                let worst = reaching.max_by(|a, b| {
                    let badness = |r: f64| {
                        if analysis.higher_is_better {
                            -r.ln()
                        } else {
                            r.ln()
                        }
                    };
                    badness(a.ratio).total_cmp(&badness(b.ratio))
                });
                if let (Some(q), Some(ci)) = (worst, worst.and_then(|q| q.interval)) {
                    out.push(Regression {
                        baseline: group.baseline.clone(),
                        candidate: c.candidate.clone(),
                        ratio: q.ratio,
                        ratio_ci: ci,
                        quantile: Some(q.quantile).filter(|q| q.is_finite()),
                        part: Some(q.part_name(analysis.higher_is_better)),
                    });
                }
                continue;
            }
            let (Some(ratio), Some([lo, hi])) = (c.ratio, c.ratio_ci) else {
                continue;
            };
            let (worse, reaches) = if analysis.higher_is_better {
                (ratio < 1.0, lo <= 1.0 - pct)
            } else {
                (ratio > 1.0, hi >= 1.0 + pct)
            };
            if c.verdict == Verdict::Significant && worse && reaches {
                out.push(Regression {
                    baseline: group.baseline.clone(),
                    candidate: c.candidate.clone(),
                    ratio,
                    ratio_ci: [lo, hi],
                    quantile: None,
                    part: None,
                });
            }
        }
    }
    out
}

/// The fast runs: the low quantiles of a time, the high ones of a throughput.
fn is_fast_runs(q: &crate::paired::shape::QuantileShift, higher_is_better: bool) -> bool {
    q.statistic == crate::paired::shape::PartStatistic::Quantile
        && (q.quantile - 0.5).abs() > 1e-9
        && (q.quantile < 0.5) != higher_is_better
}

/// The one regression gate of compare, suite and history (`--fail-if-slower PCT`): a
/// threshold, and [`Gate::check`] of an analysis into a typed [`GateResult`] saying which
/// comparisons trip it and why. `bench-report` words it (`render_gate`).
///
/// # Examples
/// ```
/// use bench_stats::analysis::Gate;
/// let gate = Gate::new(0.05);
/// // A chain of history steps, or any ratio with its interval: significantly slower
/// // (the interval above 1) and reaching 5%.
/// assert!(gate.interval_trips([1.02, 1.08], false));
/// assert!(!gate.interval_trips([1.01, 1.04], false));
/// assert!(!gate.interval_trips([0.99, 1.08], false));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gate {
    /// The slowdown that fails, as a fraction (0.05 is 5%).
    pub threshold: f64,
}

/// Why a comparison trips a [`Gate`] (a closed set: a new reason is a new rule).
#[derive(Debug, Clone, PartialEq)]
pub enum TripReason {
    /// Significantly worse, and its interval reaches the threshold.
    Regression(Regression),
    /// No test could run (too few blocks or runs to reach alpha), so a slowdown of the
    /// threshold's size is not ruled out; the gate fails rather than pass silently.
    Undecided {
        /// The group's baseline.
        baseline: String,
        /// The candidate.
        candidate: String,
    },
}

/// What a [`Gate`] found in one analysis.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct GateResult {
    /// The gate's threshold.
    pub threshold: f64,
    /// Whether the analysis's values are times or throughputs (a regression is "slower");
    /// otherwise it is "worse" (memory, counts, a named value).
    pub timed: bool,
    /// The counted event when the values are counts (`instructions`): a regression is
    /// then "executes more instructions", never "slower" or "worse".
    pub counted: Option<String>,
    /// The benchmark of a suite this analysis is, named in the words; `None` for one
    /// experiment.
    pub benchmark: Option<String>,
    /// Whether the verdicts were corrected across a suite (said in the words).
    pub suite_corrected: bool,
    /// The comparisons that trip the gate, regressions first.
    pub trips: Vec<TripReason>,
}

impl GateResult {
    /// Whether anything trips the gate (the command then exits 1).
    pub fn tripped(&self) -> bool {
        !self.trips.is_empty()
    }

    /// The result as one benchmark of a suite whose verdicts were corrected across it.
    #[must_use]
    pub fn in_suite(mut self, benchmark: impl Into<String>) -> GateResult {
        self.benchmark = Some(benchmark.into());
        self.suite_corrected = true;
        self
    }

    /// Only the regressions (a caller that does not fail on undecided comparisons).
    #[must_use]
    pub fn regressions_only(mut self) -> GateResult {
        self.trips
            .retain(|t| matches!(t, TripReason::Regression(_)));
        self
    }
}

impl Gate {
    /// A gate failing on a slowdown of `threshold` (a fraction) or more.
    pub fn new(threshold: f64) -> Gate {
        Gate { threshold }
    }

    /// What the gate finds in `analysis`: each regression ([`regressions`]), then each
    /// comparison no test could decide, unless its group's omnibus test said the variants
    /// do not differ. Time: O(comparisons).
    pub fn check(&self, analysis: &Analysis) -> GateResult {
        let mut trips: Vec<TripReason> = regressions(analysis, self.threshold)
            .into_iter()
            .map(TripReason::Regression)
            .collect();
        for group in &analysis.groups {
            if group.omnibus.is_some_and(|o| !o.significant) {
                continue;
            }
            for c in &group.comparisons {
                if c.verdict == Verdict::NotTested {
                    trips.push(TripReason::Undecided {
                        baseline: group.baseline.clone(),
                        candidate: c.candidate.clone(),
                    });
                }
            }
        }
        GateResult {
            threshold: self.threshold,
            timed: matches!(
                analysis.quantity,
                None | Some(crate::Quantity::Time | crate::Quantity::Throughput)
            ),
            counted: analysis
                .quantity
                .as_ref()
                .filter(|q| q.is_count())
                .map(|q| q.as_str().to_owned()),
            benchmark: None,
            suite_corrected: false,
            trips,
        }
    }

    /// Whether a ratio's interval `[lo, hi]` trips the gate on its own: it excludes no
    /// change on the worse side (significant) and reaches the threshold (times: `hi >= 1 +
    /// threshold`; higher-is-better values: `lo <= 1 - threshold`). History's chain of
    /// steps is gated this way.
    pub fn interval_trips(&self, [lo, hi]: [f64; 2], higher_is_better: bool) -> bool {
        if higher_is_better {
            hi < 1.0 && lo <= 1.0 - self.threshold
        } else {
            lo > 1.0 && hi >= 1.0 + self.threshold
        }
    }
}

/// The gates of a suite (`--fail-if-slower [NAME=]PCT`): a default and per-benchmark ones,
/// the last given for a benchmark winning; each benchmark is checked by the one [`Gate`].
///
/// # Examples
/// ```
/// use bench_stats::analysis::SuiteGates;
/// let mut gates = SuiteGates::default();
/// gates.set(None, 0.05);
/// gates.set(Some("parse"), 0.02);
/// assert_eq!(gates.of("parse").map(|g| g.threshold), Some(0.02));
/// assert_eq!(gates.of("other").map(|g| g.threshold), Some(0.05));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SuiteGates {
    /// The gate of every benchmark without its own.
    pub default: Option<Gate>,
    /// Benchmarks' own gates, in the order given.
    pub by_name: Vec<(String, Gate)>,
}

impl SuiteGates {
    /// Adds the gate of `threshold` for benchmark `name` (every benchmark when `None`).
    pub fn set(&mut self, name: Option<&str>, threshold: f64) {
        match name {
            Some(n) => self.by_name.push((n.to_owned(), Gate::new(threshold))),
            None => self.default = Some(Gate::new(threshold)),
        }
    }

    /// The gate of benchmark `name`: its own (the last given), else the default.
    pub fn of(&self, name: &str) -> Option<Gate> {
        self.by_name
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, g)| *g)
            .or(self.default)
    }

    /// Each gated benchmark of `report` checked by its gate ([`Gate::check`]), as a
    /// benchmark of a suite whose verdicts were corrected across it. Time: O(comparisons).
    pub fn check(&self, report: &crate::suite::SuiteReport) -> Vec<GateResult> {
        report
            .benchmarks
            .iter()
            .filter_map(|b| {
                let gate = self.of(&b.name)?;
                Some(gate.check(&b.analysis).in_suite(b.name.clone()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AnalysisConfig, Dataset, Design, Observation, Series, analyze};

    fn analysis(base: f64, cand: f64, higher: bool) -> Analysis {
        let series = |name: &str, v: f64| {
            Series::new(
                name,
                (0..12).map(|b| Observation::in_block(v + f64::from(b % 4) * 0.1, b)),
            )
        };
        let data = Dataset::new("ns", vec![series("a", base), series("b", cand)])
            .with_higher_is_better(higher)
            .with_design(Design::Abba);
        analyze(&data, &AnalysisConfig::default()).unwrap()
    }

    #[test]
    fn gate_trips_only_on_a_significant_regression_past_the_threshold() {
        let trips = |base, cand, higher| Gate::new(0.02).check(&analysis(base, cand, higher));
        assert_eq!(trips(100.0, 105.0, false).trips.len(), 1);
        assert!(!trips(100.0, 101.0, false).tripped());
        assert!(!trips(100.0, 95.0, false).tripped());
        // Throughput: lower is the regression.
        assert_eq!(trips(100.0, 95.0, true).trips.len(), 1);
        assert!(!trips(100.0, 105.0, true).tripped());
        let r = trips(100.0, 105.0, false);
        assert!(matches!(&r.trips[0], TripReason::Regression(x) if x.candidate == "b"));
        assert!(r.timed && r.benchmark.is_none());
    }

    #[test]
    fn a_comparison_no_test_could_decide_trips_the_gate_unless_dropped() {
        let series =
            |name: &str, v: f64| Series::new(name, (0..2).map(|b| Observation::in_block(v, b)));
        let data =
            Dataset::new("ns", vec![series("a", 1.0), series("b", 2.0)]).with_design(Design::Abba);
        let a = analyze(&data, &AnalysisConfig::default()).unwrap();
        let r = Gate::new(0.05).check(&a);
        assert!(
            matches!(&r.trips[..], [TripReason::Undecided { candidate, .. }] if candidate == "b"),
            "{r:?}"
        );
        assert!(!r.in_suite("x").regressions_only().tripped());
    }
}
