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
/// part is reported.
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
                let reaching = shape.parts().filter(|q| {
                    q.part == crate::paired::shape::PartMove::Slower
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
