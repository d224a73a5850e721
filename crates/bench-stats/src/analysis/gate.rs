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
}

/// The candidates that are significantly worse than their baseline (the verdict, at the
/// analysis's alpha) and whose ratio interval reaches a slowdown of `pct` on the worse
/// side: for times the upper end is at least `1 + pct`, for throughputs the lower end is
/// at most `1 - pct`. So the gate trips when the data show a slowdown and do not rule out
/// that it is `pct` or more.
///
/// Its operating characteristic (the probability of tripping at true slowdowns of 0,
/// `pct / 2`, `pct` and `2 pct`) is measured by simulation in
/// `tests/gate_calibration.rs` and printed in the README: at no change it trips at most
/// as often as a one-sided error at `alpha / 2`.
pub fn regressions(analysis: &Analysis, pct: f64) -> Vec<Regression> {
    let mut out = Vec::new();
    for group in &analysis.groups {
        for c in &group.comparisons {
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
                });
            }
        }
    }
    out
}
